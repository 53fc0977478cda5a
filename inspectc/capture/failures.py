"""Capture's own failures: kept for the report (``run.capture_errors``), never raised into the
user's program. Every part of a capture records through one :class:`Failures`."""

from __future__ import annotations

from inspectc.store.writer import ReportWriter, WriteError

MAX_ERRORS = 100  # capture errors kept in one report


class Failures:
    """What went wrong inside capture, in order, each message once, at most :data:`MAX_ERRORS`.

    Once a writer is attached, each new message is also written to the report at once (a
    process that dies later still says what failed); the run's record repeats them at the end.
    """

    def __init__(self) -> None:
        self.messages: list[str] = []
        self._writer: ReportWriter | None = None

    def attach(self, writer: ReportWriter | None) -> None:
        self._writer = writer

    def record(self, message: str) -> None:
        if message in self.messages or len(self.messages) >= MAX_ERRORS:
            return
        self.messages.append(message)
        if self._writer is not None:
            try:
                self._writer.set_meta("capture_errors", list(self.messages))
            except WriteError:
                pass  # noqa: S110 - kept in self.messages: the run's record at the end has them

    def record_error(self, what: str, exc: BaseException) -> None:
        self.record(f"{what}: {type(exc).__name__}: {exc}")


def why(exc: BaseException) -> str:
    """An OS error's reason in a few words (``No space left on device``), else the error."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__
