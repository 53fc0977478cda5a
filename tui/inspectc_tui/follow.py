"""Following a report that ``inspectc run`` is still writing. No Textual.

The writer commits at least every 0.2 s and each commit changes the file's size or mtime,
so a cheap ``stat`` says when to read again; a read sees the last commit (SQLite), never a
half-written row. Reading stops once the run has ended and the file stays still.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from inspectc.errors import ReportError
from inspectc.model import Run
from inspectc_tui.data import Progress, ReportData, load_report

Stamp = tuple[int, int] | None  # (size, mtime_ns), None while the file does not exist
Cancelled = Callable[[], bool]


def stamp(path: Path) -> Stamp:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns)


def finished(run: Run) -> bool:
    return run.exit_code is not None or run.end_reason not in (None, "running")


def follow_report(
    path: Path,
    progress: Progress,
    *,
    on_run: Callable[[Run], None] | None = None,
    every_s: float = 0.5,
    cancelled: Cancelled = lambda: False,
) -> ReportData:
    """:func:`load_report`, first waiting for the run to create *path*."""
    while stamp(path) is None:
        progress(f"waiting for the run to create {path}", 0.0)
        if cancelled():
            raise ReportError(f"no such report: {path}")
        time.sleep(every_s)
    return load_report(path, progress, on_run=on_run)


def watch(
    path: Path, seen: Stamp, *, every_s: float = 0.5, cancelled: Cancelled = lambda: False
) -> Iterator[ReportData]:
    """A fresh :class:`ReportData` each time *path* changes after *seen*, until the run has
    ended and the file did not change for one more interval (its last commit was read)."""
    done = False
    while not cancelled():
        time.sleep(every_s)
        now = stamp(path)
        if now == seen:
            if done:
                return
            continue
        try:
            fresh = load_report(path)
        except ReportError:
            continue  # held by the writer past the timeout, or mid-replacement: next time
        seen = now
        done = finished(fresh.run)
        yield fresh
