"""Issue 38: consent a report cannot forge. Whether *this user's capture wrote this report here*
is decided by an HMAC under a key in the user's config folder, never by the report's own
``origin_host``/``origin_user`` (which anyone can write: main ran a stranger's command when a
report named this host and ``root``).

Real captures (``samples/suggest_item.py``, shared by the session) are the user's own: commands
that run recorded code go ahead without asking. Foreign, and so refused without a terminal
unless ``--yes``: a copy whose recorded command was edited, whose output code gained a line,
a report naming this host and user, the user's own report checked under another key, and a
share copy (it carries no MAC). The key file is private (0600 in a 0700 folder, created
exclusively) and never read through a symbolic link. The CLI runs as the installed command,
under ``ulimit -v`` and a timeout.
"""

from __future__ import annotations

import getpass
import json
import os
import shutil
import socket
import sqlite3
import stat
import zipfile
import zlib
from pathlib import Path

import pytest
from receiving import GOLDEN, cli, one_line

from inspectc.store import origin
from inspectc.store.open import open_report

pytestmark = pytest.mark.capture
REFUSED = "refused without a terminal (pass --yes to allow)"


@pytest.fixture(scope="module")
def own(captures) -> Path:  # type: ignore[no-untyped-def]
    run = captures.get("suggest_item.py", label="suggest")
    assert run.proc.returncode == 0, run.proc.stderr[-2000:]
    return run.report


def _copy(own: Path, folder: Path, name: str = "copy.inspectc") -> Path:
    target = folder / name
    shutil.copyfile(own, target)
    return target


def _sql(path: Path, sql: str, args: tuple[object, ...] = ()) -> None:
    db = sqlite3.connect(path)
    db.execute(sql, args)
    db.commit()
    db.close()


def _mine(path: Path, env: dict[str, str] | None = None) -> bool:
    saved = os.environ.get("XDG_CONFIG_HOME")
    try:
        if env:
            os.environ.update(env)
        with open_report(path) as report:
            return origin.made_here(report.rows, report.meta)
    finally:
        if saved is not None:
            os.environ["XDG_CONFIG_HOME"] = saved


def test_the_users_own_capture_is_trusted_and_runs_without_asking(own: Path, tmp_path: Path) -> None:
    assert _mine(own)
    with open_report(own) as report:
        assert len(report.meta[origin.MAC]) == 64
    report = _copy(own, tmp_path, "mine.inspectc")  # moved or copied as it is: still the user's
    proc = cli("suggest", str(report), "--budget", "0.01", cwd=tmp_path, timeout=300)
    assert proc.returncode == 0 and REFUSED not in proc.stderr, proc.stderr[-2000:]
    assert "baseline" in proc.stdout or "not tried" in proc.stdout, proc.stdout


def _edit_argv(path: Path) -> None:
    db = sqlite3.connect(path)
    run = json.loads(db.execute("SELECT value FROM meta WHERE key = 'run'").fetchone()[0])
    run["argv"] = [*run["argv"], "--and-then-something"]
    db.execute("UPDATE meta SET value = ? WHERE key = 'run'", (json.dumps(run),))
    db.commit()
    db.close()


def _append_to_output_code(path: Path) -> None:
    db = sqlite3.connect(path)
    seq, blob = db.execute(
        "SELECT seq, payload FROM events WHERE payload IS NOT NULL"  # output code where there is some
        " ORDER BY name = 'inductor_output_code' DESC, seq LIMIT 1"
    ).fetchone()
    text = zlib.decompress(blob).decode() + "\nimport os; os.system('touch pwned')\n"
    db.execute("UPDATE events SET payload = ? WHERE seq = ?", (zlib.compress(text.encode()), seq))
    db.commit()
    db.close()


def _forge_origin(path: Path) -> None:
    for key, value in ((origin.HOST, socket.gethostname()), (origin.USER, getpass.getuser())):
        _sql(path, "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))


@pytest.mark.parametrize("edit", [_edit_argv, _append_to_output_code], ids=["argv", "output-code"])
def test_an_edited_copy_of_the_users_own_report_is_foreign(own: Path, tmp_path: Path, edit) -> None:  # type: ignore[no-untyped-def]
    report = _copy(own, tmp_path)
    edit(report)
    assert not _mine(report)
    for args in (["suggest", str(report)], ["bench", str(report), "-o", str(tmp_path / "b.inspectc")]):
        line = one_line(cli(*args, cwd=tmp_path))
        assert REFUSED in line and "not one your captures wrote here" in line, line
    assert not (tmp_path / "pwned").exists() and not (tmp_path / "b.inspectc").exists()


def test_forged_origin_fields_are_foreign(tmp_path: Path) -> None:
    report = _copy(GOLDEN, tmp_path)
    _forge_origin(report)  # this host, this user: what main trusted
    assert not _mine(report)
    line = one_line(cli("bench", str(report), "-o", str(tmp_path / "b.inspectc"), cwd=tmp_path))
    assert REFUSED in line and repr(getpass.getuser()) in line, line


def test_the_users_report_under_another_key_is_foreign(own: Path, tmp_path: Path) -> None:
    other = {"XDG_CONFIG_HOME": str(tmp_path / "another-user")}
    assert not _mine(own, other)
    line = one_line(cli("suggest", str(own), cwd=tmp_path, env=other))
    assert REFUSED in line


def test_a_share_copy_carries_no_mac(own: Path, tmp_path: Path) -> None:
    report = _copy(own, tmp_path, "mine.inspectc")
    proc = cli("share", str(report), "--no-redact", "-o", str(tmp_path / "out"), cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    (bundle,) = (tmp_path / "out").glob("*.zip")
    with zipfile.ZipFile(bundle) as archive:
        archive.extract("report.inspectc", tmp_path / "x")
    with open_report(tmp_path / "x" / "report.inspectc") as copy:
        assert origin.MAC not in copy.meta
    assert not _mine(bundle)
    assert REFUSED in one_line(cli("suggest", str(bundle), cwd=tmp_path))


def test_yes_runs_a_foreign_report_when_asked_to(own: Path, tmp_path: Path) -> None:
    report = _copy(own, tmp_path)
    _edit_argv(report)
    proc = cli("suggest", str(report), "--budget", "0.01", "--yes", cwd=tmp_path, timeout=300)
    assert proc.returncode == 0 and REFUSED not in proc.stderr, proc.stderr[-2000:]


# -- the key ------------------------------------------------------------------------------------
def test_the_key_is_private_made_once_and_never_read_through_a_link(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    key = origin.user_key(create=True)
    assert key is not None and origin.user_key() == key == origin.user_key(create=True)
    folder, file = tmp_path / "cfg" / "inspectc", tmp_path / "cfg" / "inspectc" / "key"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700 and stat.S_IMODE(file.stat().st_mode) == 0o600
    file.chmod(0o644)  # readable by others: anyone could sign, so nobody is trusted
    assert origin.user_key() is None
    file.chmod(0o600)
    # a key planted elsewhere, reached through a link: the folder or the file
    planted = tmp_path / "planted"
    shutil.copytree(folder, planted)
    shutil.rmtree(folder)
    folder.symlink_to(planted)
    assert origin.user_key() is None and origin.user_key(create=True) is None
    folder.unlink()
    folder.mkdir(mode=0o700)
    file.symlink_to(planted / "key")
    assert origin.user_key() is None and origin.user_key(create=True) is None
    assert file.is_symlink() and (planted / "key").read_bytes()  # nothing followed, nothing changed


def test_no_key_no_trust(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "empty"))
    with open_report(GOLDEN) as report:
        meta = {**report.meta, origin.MAC: "0" * 64}
        assert not origin.made_here(report.rows, meta)
    assert not (tmp_path / "empty").exists()  # checking never creates a key
