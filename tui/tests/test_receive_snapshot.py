"""Issue 38: the TUI checks a report once, and reads only what it checked.

On main the TUI verified the schema at open, then read lazily from the file: a view planted
afterwards ran on the next lazy read (the UI froze ~90 s, ``q`` was ignored, then a traceback).
Now it reads a private immutable snapshot verified at open, so whatever is done to the file
later is never read; the first lazy read after the file changed says so in one line, once.
A journal planted beside the report is never played back, and said in one line too.
"""

from __future__ import annotations

import shutil
import sqlite3
import time
from pathlib import Path

from pilots import RecordingApp, loaded, open_frame, settle, sync

SIZE = (160, 48)
# The attack: every read of `events` (graphs, sources, raw events are payload slices) recurses forever.
RECURSIVE_VIEW = (
    "ALTER TABLE events RENAME TO e0; CREATE VIEW events AS WITH RECURSIVE"
    " r(seq, ts, rank, compile_id, name, metadata, payload) AS (SELECT 1, 0, -1, NULL, 'x', '{}', NULL"
    " UNION ALL SELECT seq + 1, ts, rank, compile_id, name, metadata, payload FROM r) SELECT * FROM r"
)


@sync
async def test_a_view_planted_after_open_is_never_read(graph_breaks_report: Path, tmp_path: Path) -> None:
    report = tmp_path / "r.inspectc"
    shutil.copyfile(graph_breaks_report, report)
    app = RecordingApp(report)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        assert app.data is not None and app.data.frames
        db = sqlite3.connect(report)
        db.executescript(RECURSIVE_VIEW + "; DELETE FROM frames;")
        db.close()
        started = time.monotonic()
        await open_frame(pilot, "0/0")
        for key in ("3", "6", "3"):  # graphs, raw events, graphs again: lazy reads, each
            await pilot.press(key)
            await settle(pilot)
        assert time.monotonic() - started < 30  # no freeze: the view is never run
        frame = app.data.frames[0]
        assert app.data.graph(frame, "dynamo")  # the snapshot's text, as it was at open
        changed = [n for n in app.notes if "changed on disk after it was opened" in n]
        assert len(changed) == 1, app.notes  # one line, once
        await pilot.press("escape", "q")
    assert app.return_code in (None, 0)


@sync
async def test_a_journal_beside_is_said_once_and_never_played(
    graph_breaks_report: Path, tmp_path: Path
) -> None:
    report = tmp_path / "r.inspectc"
    shutil.copyfile(graph_breaks_report, report)
    victim = tmp_path / "train.py"
    victim.write_text("keep\n")
    side = Path(f"{report}-journal")
    side.write_bytes(_journal_naming(str(victim), report.stat().st_size // 4096))
    app = RecordingApp(report)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        assert app.data is not None
        said = [n for n in app.notes if "not played back" in n]
        assert len(said) == 1 and "last transaction may be missing" in said[0], app.notes
    assert victim.read_text() == "keep\n" and side.exists()


def _journal_naming(name: str, pages: int) -> bytes:
    import struct

    magic = bytes.fromhex("d9d505f920a163d7")
    head = (magic + struct.pack(">IIIII", 0, 0, pages, 512, 4096)).ljust(512, b"\0")
    raw = name.encode()
    return head + struct.pack(">I", 0x40000 // 4 + 1) + raw + struct.pack(">II", len(raw), sum(raw)) + magic
