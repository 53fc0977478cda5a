"""Messages that travel up to the app: what the user asked to open, what a worker read."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from inspectc.model import Run
from inspectc_tui.data import FrameKey, ReportData


@dataclass
class OpenFrame(Message):
    """Open a frame's screen, on a tab, optionally at a kernel or a graph break."""

    key: FrameKey
    tab: str = "breaks"
    kernel_id: int | None = None
    break_reason: str | None = None
    exact_tab: bool = False  # open on *tab* even when it is not the frame's most telling


@dataclass
class StepFrame(Message):
    """Go from frame *key* to the next (+1) or previous (-1) one, on the same tab."""

    key: FrameKey
    step: int
    tab: str


@dataclass
class LoadProgress(Message):
    """The loader worker's progress; a burst of these coalesces to the newest."""

    what: str
    fraction: float

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, LoadProgress)


@dataclass
class RunRead(Message):
    """The run's header was read (before the frames): paint it at once."""

    run: Run


@dataclass
class ReportLoaded(Message):
    data: ReportData


@dataclass
class ReportUpdated(Message):
    """A followed report holds more than last read (a fresh read of it); bursts coalesce."""

    data: ReportData

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, ReportUpdated)


@dataclass
class ReportNotice(Message):
    """One line about the report itself (a journal left unread, the file changed on disk)."""

    text: str


@dataclass
class LoadFailed(Message):
    error: str
