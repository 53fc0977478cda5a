"""Helpers of the tests of receiving a stranger's report (issue 38; tests/test_receive_*.py).

:func:`cli` runs the installed CLI as a user would, in a child limited to 1 GiB of address
space (``ulimit -v``) and a timeout. :func:`journal_naming` writes the rollback journal an
attacker plants beside a report: it names a "super-journal" that SQLite deletes when it plays
the journal back (``pager_delsuper`` in SQLite's pager.c). :func:`with_ranks` makes a folder
of per-rank reports from a golden one.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import sqlite3
import struct
import subprocess
from pathlib import Path

from conftest import REPORTS, inspectc_cmd

GOLDEN = REPORTS / "graph_breaks.inspectc"
JOURNAL_MAGIC = bytes.fromhex("d9d505f920a163d7")
GIB = 1 << 30


def cli(
    *args: str,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 120,
    vmem: int = GIB,
    stdin: int | None = subprocess.DEVNULL,
) -> subprocess.CompletedProcess[str]:
    """``inspectc ARGS`` under ``RLIMIT_AS`` = *vmem* and *timeout* seconds."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (vmem, vmem))

    return subprocess.run(
        [*inspectc_cmd(), *args],
        cwd=cwd,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=limit,  # noqa: PLW1509 - the test's own child, no threads involved
        stdin=stdin,
    )


def one_line(proc: subprocess.CompletedProcess[str]) -> str:
    """The one stderr line of a refusal (exit 2, no traceback)."""
    assert proc.returncode == 2, (proc.returncode, proc.stdout[-500:], proc.stderr[-2000:])
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("inspectc: "), proc.stderr[-2000:]
    return lines[0]


def journal_naming(
    super_journal: str | bytes,
    db_pages: int,
    *,
    page_size: int = 4096,
    sector: int = 512,
    records: int = 0,
    nonce: int = 0,
    checksum_ok: bool = True,
) -> bytes:
    """A hot rollback journal (no page records by default) whose trailer names *super_journal*.

    Layout (SQLite's file format, section 4): an 8-byte magic, the record count, the checksum
    nonce, the database's size in pages, the sector and page sizes, padded to one sector; then
    the super-journal record: its page number, the name, its length, its checksum (the sum of
    its bytes) and the magic again."""
    name = super_journal.encode() if isinstance(super_journal, str) else super_journal
    head = JOURNAL_MAGIC + struct.pack(">IIIII", records, nonce, db_pages, sector, page_size)
    head = head.ljust(max(sector, 28), b"\0")
    checksum = sum(name) + (0 if checksum_ok else 1)
    tail = struct.pack(">I", 0x40000000 // page_size + 1) + name
    return head + tail + struct.pack(">II", len(name), checksum & 0xFFFFFFFF) + JOURNAL_MAGIC


def plant_journal(report: Path, super_journal: str) -> Path:
    """Write :func:`journal_naming` beside *report*; returns the journal's path."""
    side = Path(f"{report}-journal")
    side.write_bytes(journal_naming(super_journal, report.stat().st_size // 4096))
    return side


def with_ranks(folder: Path, source: Path = GOLDEN, ranks: tuple[int, ...] = (0, 1)) -> list[Path]:
    """Copies of *source* in *folder*, one per rank (their run records say which)."""
    folder.mkdir(parents=True, exist_ok=True)
    made = []
    for rank in ranks:
        path = folder / f"run.rank{rank}.inspectc"
        shutil.copyfile(source, path)
        db = sqlite3.connect(path)
        run = json.loads(db.execute("SELECT value FROM meta WHERE key = 'run'").fetchone()[0])
        run.update(rank=rank, world_size=len(ranks))
        db.execute("UPDATE meta SET value = ? WHERE key = 'run'", (json.dumps(run),))
        db.commit()
        db.close()
        made.append(path)
    return made
