"""The report file a capture writes: taken under its lock (one writer per path), closed at the
end. Where it cannot be had, the program runs without capture and one line says why."""

from __future__ import annotations

import sys
from pathlib import Path

from inspectc.capture.failures import why
from inspectc.errors import ReportBusy, ReportError
from inspectc.store import runlock
from inspectc.store.writer import ReportWriter


class ReportFile:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.writer: ReportWriter | None = None
        self.warning: str | None = None  # the line said on stderr, if any
        self.unfinished: str | None = None  # why the report's end could not be written
        self._lock: runlock.ReportLock | None = None

    def open(self, *, refuse_busy: bool) -> ReportWriter | None:
        """The writer; None where the report cannot be written (said on stderr). A report
        another capture writes raises :class:`ReportBusy` with *refuse_busy* (``inspectc run``:
        refused in one line before the script starts)."""
        try:
            self._lock = runlock.acquire(self.path)
        except ReportBusy as exc:
            if refuse_busy:
                raise
            self._say(f"inspectc: {exc}; running without capture")
            return None
        try:
            self.writer = ReportWriter(self.path)
        except (ReportError, OSError) as exc:
            reason = (
                str(exc) if isinstance(exc, ReportError) else f"cannot write report {self.path}: {why(exc)}"
            )
            self._say(f"inspectc: {reason}; running without capture")
            self._release()
        return self.writer

    def close(self) -> None:
        """Commit and close; say so where writing failed while the program ran (disk full...)."""
        if self.writer is None:
            return
        self.writer.close()
        self._release()
        failure = self.writer.failure or self.unfinished
        if failure is not None:
            self._say(
                f"inspectc: report {self.path} is incomplete: writing it failed ({failure});"
                " it holds what was saved before that"
            )

    @property
    def ok(self) -> bool:
        """Written to the end (no summary of a report that failed midway)."""
        return self.writer is not None and self.writer.failure is None and self.unfinished is None

    def abandon(self) -> None:
        """In a forked child: the parent's writer and lock are left as they are."""
        if self.writer is not None:
            self.writer.abandon()
        if self._lock is not None:
            self._lock.abandon()
            self._lock = None
        self.writer = None

    def _release(self) -> None:
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def _say(self, line: str) -> None:
        self.warning = line
        print(line, file=sys.stderr)
