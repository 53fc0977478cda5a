"""The report's last commit when a reader holds the file (``tui --follow``, a ``summary``).

SQLite gives a writer SQLITE_BUSY after its busy_timeout (5 s) while another connection
reads; closing then rolled back whatever was not committed yet, silently. Now close() waits
for the reader (bounded) and, if it never lets go, says in ``failure`` what was lost.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

from inspectc.store.writer import ReportWriter

HOLD_S = 6.5  # longer than the writer's 5 s busy_timeout: one COMMIT attempt alone fails


def _hold_read_lock(path: Path, seconds: float, started: threading.Event) -> None:
    db = sqlite3.connect(str(path), isolation_level=None)
    db.execute("BEGIN")
    db.execute("SELECT count(*) FROM events").fetchone()  # SHARED lock until the end
    started.set()
    time.sleep(seconds)
    db.execute("COMMIT")
    db.close()


def _events(path: Path) -> list[str]:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return [row[0] for row in db.execute("SELECT name FROM events ORDER BY seq")]
    finally:
        db.close()


def _writer_with_one_committed_event(path: Path) -> ReportWriter:
    writer = ReportWriter(path, flush_s=60.0)  # no background commit during the test
    writer.add_event(name="first", metadata={}, payload=None, compile_id=None, rank=None, ts=0.0)
    writer.flush()
    return writer


def _close_while_read(writer: ReportWriter, path: Path, hold_s: float) -> float:
    started = threading.Event()
    reader = threading.Thread(target=_hold_read_lock, args=(path, hold_s, started))
    reader.start()
    assert started.wait(10)
    writer.add_event(name="last", metadata={}, payload=None, compile_id=None, rank=None, ts=1.0)
    t0 = time.monotonic()
    writer.close()
    took = time.monotonic() - t0
    reader.join()
    return took


def test_close_waits_for_a_reader_longer_than_busy_timeout(tmp_path: Path) -> None:
    path = tmp_path / "r.inspectc"
    writer = _writer_with_one_committed_event(path)
    took = _close_while_read(writer, path, HOLD_S)
    assert writer.failure is None
    assert _events(path) == ["first", "last"]  # nothing lost
    assert took >= HOLD_S - 1.0  # it did wait for the reader


def test_close_says_what_is_lost_when_the_reader_never_lets_go(tmp_path: Path) -> None:
    path = tmp_path / "r.inspectc"
    writer = _writer_with_one_committed_event(path)
    writer.final_commit_s = 0.5
    _close_while_read(writer, path, HOLD_S)
    assert writer.failure is not None and "not saved" in writer.failure, writer.failure
    assert _events(path) == ["first"]  # the file is as last committed, still a report
