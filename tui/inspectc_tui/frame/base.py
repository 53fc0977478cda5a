"""What every tab of the frame screen shares: lazy building and "where am I" for `e`."""

from __future__ import annotations

import asyncio

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widget import Widget

from inspectc.model import Frame
from inspectc_tui.data import ReportData

Location = tuple[str | None, int | None]


class FramePane(Vertical):
    """A tab's content. Empty until first shown: then :meth:`build` makes its widgets and
    :meth:`load` fills them (a frame screen opens with one tab's widgets, not six)."""

    def __init__(self, data: ReportData, frame: Frame, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.data = data
        self.frame = frame
        self.loaded = False  # build and load have started
        self.built = False  # the widgets exist
        self.navigated = False  # fusion navigation is bringing the user here: it sets the focus
        self._ready = asyncio.Event()

    async def ensure_loaded(self) -> None:
        """Build and load once; a second caller waits for the first to finish."""
        if self.loaded:
            await self._ready.wait()
            return
        self.loaded = True
        await self.mount_compose(self.build())
        self.built = True
        self.load()
        self._ready.set()

    async def wait_built(self) -> None:
        """Return once the pane is built and filled (whoever started it)."""
        await self._ready.wait()

    def build(self) -> ComposeResult:
        """The pane's widgets (like ``compose``, run when first shown)."""
        yield from ()

    def load(self) -> None:
        """Fill the widgets (called once, after :meth:`build`)."""

    def main_widget(self) -> Widget | None:
        """The widget to focus when the tab is shown."""
        return None

    def current_location(self) -> Location | None:
        """The user file:line the pane points at, for `e` (open in editor)."""
        return None
