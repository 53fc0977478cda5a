"""What share must not leak that an earlier round did (found by a redaction audit): a secret
with blanks, quotes or backslashes (a guard holds it as a repr), the length of a removed value
(torch pads a guard to 60 columns), the user's lines under ``--no-source`` (recompile
reasons, compile metrics, kernel origins), the user who made a report when someone else
shares it, and a private name in the output files' own names.

One real capture of ``samples/private_run.py``, shared twice (with and without source).
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import SAMPLES, run_cli

from inspectc.model import secrets as run_secrets
from inspectc.share.redact import Redactor

PHRASE = "correct horse battery staple"
QUOTED = "it's-S3cr3t!xyz"
BLOB = "back\\slash\\Secret99"
SOURCE_MARKER = "marker_qz_source_line"  # a comment on the user's line of the sample
OTHER_USER = "zq_carol"
GLOBAL_SECRET = "Tr0ub4dor-horse-99"  # samples/private_run.py's DB_SECRET
TORCH_ENV = "it's-a-torch-secret-99"  # torch's repro script writes it as it"s-a-torch-secret-99


def forms(value: str) -> set[bytes]:
    """*value* as text may hold it: raw, in a repr, JSON-escaped, and both."""
    as_repr, as_json = repr(value)[1:-1], json.dumps(value)[1:-1]
    found = {value, as_repr, as_json, json.dumps(as_repr)[1:-1]}
    return {f.encode() for f in found}


@dataclass(frozen=True)
class Run:
    report: Path
    files: dict[str, dict[str, bytes]]  # "full" / "no_source": output and bundle member -> bytes


def outputs(out: Path) -> dict[str, bytes]:
    """Every file share wrote, every member of the bundle, and every decompressed payload."""
    files = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    bundle = next(out.glob("*.share.zip"))
    with zipfile.ZipFile(bundle) as archive:
        for name in archive.namelist():
            files[f"zip:{name}"] = archive.read(name)
    copy = out / "copy.inspectc"
    copy.write_bytes(files["zip:report.inspectc"])
    db = sqlite3.connect(copy)
    for seq, blob in db.execute("SELECT seq, payload FROM events WHERE payload IS NOT NULL"):
        files[f"payload {seq}"] = zlib.decompress(blob)
    db.close()
    copy.unlink()
    return files


@pytest.fixture(scope="module")
def private(tmp_path_factory: pytest.TempPathFactory) -> Run:
    pytest.importorskip("torch")
    base = tmp_path_factory.mktemp("private")
    report = base / "private.inspectc"
    env = {
        "MY_DB_PASSPHRASE": PHRASE,
        "MY_QUOTED_SECRET": QUOTED,
        "MY_AUTH_BLOB": BLOB,
        "MY_TORCH_PASSWORD": TORCH_ENV,
    }
    proc = run_cli("run", "-o", str(report), str(SAMPLES / "private_run.py"), cwd=base, env=env)
    assert proc.returncode == 0 and report.exists(), proc.stderr
    files = {}
    for kind, flags in (("full", ()), ("no_source", ("--no-source",))):
        out = base / kind
        made = run_cli("share", str(report), "--html", "-o", str(out), *flags)
        assert made.returncode == 0, made.stderr
        files[kind] = outputs(out)
    return Run(report, files)


@pytest.mark.capture
@pytest.mark.parametrize("value", [PHRASE, QUOTED, BLOB], ids=["blanks", "quote", "backslashes"])
def test_a_secret_with_blanks_quotes_or_backslashes_leaves_every_output(private: Run, value: str) -> None:
    raw = private.report.read_bytes() + b"".join(
        zlib.decompress(b)
        for (b,) in sqlite3.connect(private.report).execute(
            "SELECT payload FROM events WHERE payload IS NOT NULL"
        )
    )
    assert any(f in raw for f in forms(value))  # the guard recorded it: the test can fail
    for kind, files in private.files.items():
        left = [(kind, name) for name, data in files.items() if any(f in data for f in forms(value))]
        assert not left, left


@pytest.mark.capture
def test_a_removed_value_leaves_no_length_in_a_guards_padding(private: Run) -> None:
    guards = [
        line
        for name, data in private.files["full"].items()
        if name.startswith("payload")
        for line in data.decode().splitlines()
        if "EQUALS_MATCH" in line and "<redacted str>" in line
    ]
    assert len(guards) >= 2, guards  # the passphrase and the backslash blob, in each guard tree
    # torch pads the guard to 60 columns: the blanks after the placeholder would count the secret
    assert all(re.search(r"<redacted str>  # ", line) for line in guards), guards


def test_layout_after_a_removed_value_is_fixed_width() -> None:
    r = Redactor.for_report(secrets=("sk-live-1234567890",), this_machine=False)
    short = "L['k'] == 'sk-live-1234567890'" + " " * 29 + "  # a.py:3 in f"
    assert r.sub(short) == "L['k'] == <redacted str>  # a.py:3 in f"
    carets = (
        '  File "a.py", line 3, in f\n    y = f("sk-live-1234567890")\n        ^^^^^^^^^^^^^^^^^^^^^^^^\nnext'
    )
    assert r.sub(carets) == '  File "a.py", line 3, in f\n    y = f("<secret>")\nnext'
    text = "x = 'sk-live-1234567890'     # pad\nkept    as is"
    new, moved = r.sub_mapped(text, [text.index("kept")])
    assert new == "x = <redacted str>  # pad\nkept    as is"
    assert moved[text.index("kept")] == new.index("kept")


def test_a_secret_is_found_in_quotes_nested_in_json() -> None:
    meta = run_secrets.hashed([PHRASE, BLOB])
    by_len: dict[int, set[str]] = {}
    for digest, length in meta["values"]:
        by_len.setdefault(length, set()).add(digest)
    guard = f"L['p'] == {PHRASE!r}  # x\nL['b'] == {BLOB!r}"
    for text in (guard, json.dumps([guard]), json.dumps({"a": json.dumps([guard])})):
        assert run_secrets.matches(text, meta["salt"], by_len) == {PHRASE, BLOB}, text


@pytest.mark.capture
def test_no_source_leaves_out_the_users_lines_everywhere(private: Run) -> None:
    marker = SOURCE_MARKER.encode()
    assert any(marker in data for data in private.files["full"].values())  # it is there to remove
    left = [name for name, data in private.files["no_source"].items() if marker in data]
    assert not left, left
    summary = private.files["no_source"]["private.share.md"].decode()
    assert "0/1" in summary  # the recompile is still shown, without the line it quoted


@pytest.mark.capture
def test_the_reports_user_is_redacted_when_someone_else_shares_it(private: Run, tmp_path: Path) -> None:
    """Captured by another user in a folder no rule knows (/u/NAME): the report's own origin
    names the user; share replaces it everywhere, in the files' names too, and --check finds
    it in a bundle made with --no-redact."""
    report = tmp_path / f"{OTHER_USER}_run.inspectc"
    shutil.copy(private.report, report)
    db = sqlite3.connect(report)
    run = json.loads(db.execute("SELECT value FROM meta WHERE key = 'run'").fetchone()[0])
    run["cwd"] = f"/u/{OTHER_USER}/proj"
    db.execute("UPDATE meta SET value = ? WHERE key = 'run'", (json.dumps(run),))
    db.execute("UPDATE meta SET value = ? WHERE key = 'origin_user'", (OTHER_USER,))
    db.commit()
    db.close()
    out = tmp_path / "out"
    made = run_cli("share", str(report), "--html", "-o", str(out))
    assert made.returncode == 0, made.stderr
    names = sorted(p.name for p in out.iterdir())
    assert names == ["user_run.share.html", "user_run.share.md", "user_run.share.zip"], names
    files = outputs(out)
    left = [name for name, data in files.items() if OTHER_USER.encode() in data]
    assert not left, left
    assert "user_run.share.zip" in files["user_run.share.md"].decode()
    check = run_cli("share", "--check", str(out / "user_run.share.zip"))
    assert check.returncode == 0, check.stdout
    plain = tmp_path / "plain"
    assert run_cli("share", str(report), "--no-redact", "-o", str(plain)).returncode == 0
    found = run_cli("share", "--check", str(next(plain.glob("*.zip"))))
    assert found.returncode == 1 and "user name" in found.stdout, found.stdout


def _recorded(report: Path) -> bytes:
    return report.read_bytes() + b"".join(
        zlib.decompress(b)
        for (b,) in sqlite3.connect(report).execute("SELECT payload FROM events WHERE payload IS NOT NULL")
    )


@pytest.mark.capture
@pytest.mark.parametrize(
    ("value", "written"),
    [(GLOBAL_SECRET, GLOBAL_SECRET), (TORCH_ENV, TORCH_ENV.replace("'", '"'))],
    ids=["guard-of-a-secret-named-global", "torch-repro-env-quote-rewritten"],
)
def test_a_secret_in_a_guard_key_or_torchs_repro_leaves_every_output(
    private: Run, value: str, written: str
) -> None:
    """G['DB_SECRET'] == '...' (the assignment rule wanted NAME= right after the name), and an
    env secret torch's repro script rewrites (' to "), so its salted hash no longer matched."""
    assert written.encode() in _recorded(private.report)  # the test can fail
    for kind, files in private.files.items():
        left = [
            (kind, name) for name, data in files.items() if written.encode() in data or value.encode() in data
        ]
        assert not left, left


@pytest.mark.capture
def test_share_check_says_where_not_what(private: Run, tmp_path: Path) -> None:
    """--check runs in public CI logs: a finding's first characters and length were printed."""
    out = tmp_path / "raw"
    run_cli("share", str(private.report), "--no-redact", "-o", str(out), check=True)
    (bundle,) = out.glob("*.zip")
    proc = run_cli("share", "--check", str(bundle))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    findings = [line for line in proc.stdout.splitlines() if " in " in line and ": at character " in line]
    assert findings, proc.stdout
    assert not re.search(r"\(\d+ characters\)", proc.stdout), proc.stdout  # no length, no first letters


@pytest.mark.parametrize(
    ("text", "shared"),
    [
        ("G['CONFIG']['db_password'] == 'Zq9pass-word-77'", "G['CONFIG']['db_password'] == <secret>"),
        ('{"api_key": "abcdefgh1"}', '{"api_key": <secret>}'),
        ("postgres://dbuser:Pa55@w0rd/x@db.example:5432/p", "postgres://<userinfo>@db.example:5432/p"),
        ("/Users/Jane Doe/proj/t.py", "~/proj/t.py"),
        ("C:\\Users\\Bob Smith\\AppData", "~\\AppData"),
        ("c:\\users\\carolwin\\ckpt", "~\\ckpt"),
        ("ssh gpu-node-17.acme.internal:22", "ssh <host>:22"),
        ("L['max_tokens'] == 5", "L['max_tokens'] == 5"),  # not secret-named: kept
        ("/home/alice and /tmp/x", "~ and /tmp/x"),  # one word when no folder follows
    ],
)
def test_redaction_shapes_an_audit_found(text: str, shared: str) -> None:
    r = Redactor.for_report(hostnames=["gpu-node-17"], this_machine=False)
    assert r.sub(text) == shared


def test_a_base64_secret_is_found_in_brackets_after_equals_and_with_its_padding() -> None:
    key, padded = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "Pa55w0rd+x="
    meta = run_secrets.hashed([key, padded])
    by_len: dict[int, set[str]] = {}
    for digest, length in meta["values"]:
        by_len.setdefault(length, set()).add(digest)
    for text in (f"[{key}]", f"?sig={key}&x=1", f"x={key}", f"({padded})"):
        assert run_secrets.matches(text, meta["salt"], by_len) <= {key, padded}
        assert run_secrets.matches(text, meta["salt"], by_len), text
