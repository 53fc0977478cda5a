"""Hostile values: redaction that was quadratic in a field's length, bundles whose member data
is corrupt, numbers no ``int()`` reads ("²", 5,000 digits), a WAL-mode report, a rank no
report can hold, NaN in a run entry (each found by a held-out sweep, failing on the code before).

Each input is built from a committed report or log; every command runs as the installed CLI.
No torch.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import struct
import zipfile
import zlib
from pathlib import Path

import pytest
from conftest import run_cli
from test_hostile_ir_and_logs import BIG_GOLDEN, GOLDEN, log_of, one_clear_line

from inspectc.share.redact import Redactor

LOCAL, CENTRAL = b"PK\x03\x04", b"PK\x01\x02"


@pytest.fixture(autouse=True)
def _inputs() -> None:
    if not (GOLDEN.exists() and BIG_GOLDEN.exists()):
        pytest.skip("committed reports are missing")


# -- redaction is linear in the text -----------------------------------------------------------


@pytest.mark.timeout(60)
@pytest.mark.parametrize("unit", ["a.", "a-", "x+", "xsk-"])
def test_redaction_of_a_long_run_of_scheme_characters_is_linear(unit: str) -> None:
    """The URL-credentials rule tried a match at every word boundary of ``a.a.a...`` and scanned
    to its end from each: 128 KB took 14 s, a few MB hours (share, share --check)."""
    redactor = Redactor.for_report(this_machine=False)
    text = unit * 250_000  # 0.5-1 MB: minutes at the old rate, under a second now
    assert redactor.sub(text) == text
    assert redactor.sub("x.https://alice:pw@host/p") == "x.https://<userinfo>@host/p"  # still found


# -- bundles whose member data is damaged ------------------------------------------------------


def _bundle(path: Path, data: bytes, *, method: int, size: int) -> Path:
    """A bundle whose report member holds *data* stored, then relabelled as *method* with an
    uncompressed *size* (local and central headers): what a corrupt or cut download looks like."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as archive:
        archive.writestr("report.inspectc", data)
    raw = bytearray(path.read_bytes())
    local, central = raw.index(LOCAL), raw.index(CENTRAL)
    struct.pack_into("<H", raw, local + 8, method)
    struct.pack_into("<I", raw, local + 22, size)
    struct.pack_into("<H", raw, central + 10, method)
    struct.pack_into("<I", raw, central + 24, size)
    path.write_bytes(bytes(raw))
    return path


def _deflated(data: bytes) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    return packer.compress(data) + packer.flush()


@pytest.mark.parametrize("damage", ["corrupt", "cut", "lzma"])
def test_a_bundle_with_damaged_member_data_is_one_line(damage: str, tmp_path: Path) -> None:
    report = GOLDEN.read_bytes()
    packed = _deflated(report)
    if damage == "corrupt":
        data = packed[:2000] + bytes(b ^ 0xFF for b in packed[2000:2100]) + packed[2100:]
        method = zipfile.ZIP_DEFLATED
    elif damage == "cut":
        data, method = packed[: len(packed) // 2], zipfile.ZIP_DEFLATED
    else:
        data, method = packed, zipfile.ZIP_LZMA  # not LZMA data
    bundle = _bundle(tmp_path / "b.share.zip", data, method=method, size=len(report))
    for command in (["summary"], ["share", "--check"], ["export"]):
        line = one_clear_line(run_cli(*command, str(bundle)))
        assert "damaged bundle" in line or "Bad CRC-32" in line, line  # cut: zipfile checks the CRC
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.share.zip"]


# -- numbers int() does not read ---------------------------------------------------------------


def test_a_schema_version_of_a_superscript_digit_is_one_line(tmp_path: Path) -> None:
    report = tmp_path / "sv.inspectc"
    shutil.copyfile(GOLDEN, report)
    with sqlite3.connect(report) as db:
        db.execute("UPDATE meta SET value = '²' WHERE key = 'schema_version'")
    db.close()
    assert "schema version" in one_clear_line(run_cli("summary", str(report)))


def test_import_reads_superscript_and_5000_digit_numbers_in_text(tmp_path: Path) -> None:
    """A timestamp's microseconds of "²00000" and line numbers of 5,000 digits (int() raises on
    both) in break texts and stacks: read as no figure, never a traceback."""
    text = log_of(BIG_GOLDEN).replace("12:00:00.000000", "12:00:00.²00000")
    huge = "7" * 5000
    text, n = re.subn(r"(line |\.py:)\d+", lambda m: m.group(1) + huge, text)
    assert n > 5
    log = tmp_path / "t.log"
    log.write_text(text)
    proc = run_cli("import", str(log), "-o", str(tmp_path / "o.inspectc"))
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    for command in ("summary", "export", "kernels"):
        shown = run_cli(command, str(tmp_path / "o.inspectc"))
        assert shown.returncode == 0 and "Traceback" not in shown.stderr, shown.stderr


def test_a_rank_no_report_can_hold_is_no_rank(tmp_path: Path) -> None:
    """rank_99999999999999999999.log: the import wrote a report its own readers refused."""
    folder = tmp_path / "ranks"
    folder.mkdir()
    text = log_of(GOLDEN)
    (folder / "dedicated_log_torch_trace_rank_0_a.log").write_text(text)
    (folder / "dedicated_log_torch_trace_rank_99999999999999999999_b.log").write_text(
        text.replace("x.py:1] {", 'x.py:1] {"rank": 99999999999999999999, ', 1)
    )
    proc = run_cli("import", str(folder), "-o", str(tmp_path / "o.inspectc"))
    assert "Traceback" not in proc.stderr, proc.stderr
    if proc.returncode == 0:  # imported: every reader opens it
        for command in ("summary", "export", "kernels", "check"):
            shown = run_cli(command, str(tmp_path / "o.inspectc"))
            assert shown.returncode in (0, 1) and "Traceback" not in shown.stderr, shown.stderr
        data = json.loads(run_cli("export", str(tmp_path / "o.inspectc"), check=True).stdout)
        assert {f["rank"] for f in data["frames"]} <= {0, None}
    else:
        one_clear_line(proc)


# -- a WAL-mode report -------------------------------------------------------------------------


def test_a_wal_mode_report_is_read_without_touching_files_beside_it(tmp_path: Path) -> None:
    """inspectc never writes WAL mode. Opened read-only, SQLite made -wal and -shm beside a
    stranger's WAL-mode file, truncated a user's own -shm and read the stranger's -wal."""
    report = tmp_path / "w.inspectc"
    raw = bytearray(GOLDEN.read_bytes())
    raw[18:20] = b"\x02\x02"  # the header's read and write versions: WAL
    report.write_bytes(bytes(raw))
    assert run_cli("summary", str(report)).returncode == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w.inspectc"]
    mine = b"IMPORTANT USER DATA\n" * 2000
    (tmp_path / "w.inspectc-shm").write_bytes(mine)
    assert run_cli("export", str(report)).returncode == 0
    assert (tmp_path / "w.inspectc-shm").read_bytes() == mine
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w.inspectc", "w.inspectc-shm"]


# -- strict JSON -------------------------------------------------------------------------------


def test_export_is_strict_json_when_the_run_entry_holds_nan(tmp_path: Path) -> None:
    report = tmp_path / "nan.inspectc"
    shutil.copyfile(GOLDEN, report)
    with sqlite3.connect(report) as db:
        (run,) = db.execute("SELECT value FROM meta WHERE key = 'run'").fetchone()
        changed = re.sub(r'"started": [0-9.]+', '"started": NaN', run)
        assert changed != run
        db.execute("UPDATE meta SET value = ? WHERE key = 'run'", (changed,))
    db.close()
    proc = run_cli("export", str(report))
    assert proc.returncode == 0, proc.stderr

    def refuse(token: str) -> None:
        raise ValueError(token)

    data = json.loads(proc.stdout, parse_constant=refuse)  # NaN, Infinity: not JSON
    assert data["run"]["started"] is None
