"""What every tab of the frame screen shares: lazy loading and "where am I" for `e`."""

from __future__ import annotations

from textual.containers import Vertical
from textual.widget import Widget

from inspectc.model import Frame
from inspectc_tui.data import ReportData

Location = tuple[str | None, int | None]


class FramePane(Vertical):
    """A tab's content. Composes empty; :meth:`load` fills it the first time it is shown."""

    DEFAULT_CSS = """
    FramePane { height: 1fr; }
    FramePane > Horizontal { height: 1fr; }
    """

    def __init__(self, data: ReportData, frame: Frame, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.data = data
        self.frame = frame
        self.loaded = False

    def ensure_loaded(self) -> None:
        if not self.loaded:
            self.loaded = True
            self.load()

    def load(self) -> None:
        """Fill the pane (called once, when first shown)."""

    def main_widget(self) -> Widget | None:
        """The widget to focus when the tab is shown."""
        return None

    def current_location(self) -> Location | None:
        """The user file:line the pane points at, for `e` (open in editor)."""
        return None
