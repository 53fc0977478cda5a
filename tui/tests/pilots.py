"""Driving the app in tests: an app that records what it did, and waits on what happened.

Tests wait on messages and workers (the report's ``ReportLoaded``, a pane's build, the
app's workers), never on the clock: :func:`loaded` awaits the loaded report, :func:`settle`
the active tab's build and every worker it started.
"""

from __future__ import annotations

import asyncio
import functools
import io
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from inspectc_tui.app import InspectcApp
from inspectc_tui.frame.screen import FrameScreen
from inspectc_tui.messages import LoadFailed, OpenFrame, ReportLoaded
from inspectc_tui.widgets.table import VirtualTable
from rich.console import Console
from textual.pilot import Pilot
from textual.widgets import Static

from inspectc.model import CompileId

WAIT_S = 60  # a stuck wait fails the test instead of hanging the session


class RecordingApp(InspectcApp):
    """The app, with notifications, editor commands and the end of loading recorded."""

    def __init__(self, path: Path, **kwargs: Any) -> None:
        self.editor_calls: list[list[str]] = []
        super().__init__(path, editor=self.editor_calls.append, **kwargs)
        self.notes: list[str] = []
        self.done_loading = asyncio.Event()

    def notify(self, message: str, **kwargs: Any) -> None:  # type: ignore[override]
        self.notes.append(message)
        super().notify(message, **kwargs)

    # Textual calls these and then the app's own handlers for the same message.
    def on_report_loaded(self, message: ReportLoaded) -> None:
        self.call_after_refresh(self.done_loading.set)

    def on_load_failed(self, message: LoadFailed) -> None:
        self.call_after_refresh(self.done_loading.set)


async def loaded(pilot: Pilot[None]) -> RecordingApp:
    """Wait until the report's ``ReportLoaded`` (or ``LoadFailed``) was handled and drawn."""
    app = pilot.app
    assert isinstance(app, RecordingApp)
    await asyncio.wait_for(app.done_loading.wait(), WAIT_S)
    await pilot.pause()
    return app


async def settle(pilot: Pilot[None]) -> None:
    """Wait until the active frame tab is built and the workers it started are done."""
    for _ in range(2):  # twice: a worker's result may start another (a row, then its source)
        screen = pilot.app.screen
        if isinstance(screen, FrameScreen):
            await asyncio.wait_for(screen.pane(screen.active_tab).wait_built(), WAIT_S)
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()


async def open_frame(pilot: Pilot[None], cid: str, **kwargs: Any) -> FrameScreen:
    pilot.app.post_message(OpenFrame(CompileId.parse(cid), **kwargs))
    await pilot.pause()
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, FrameScreen) and str(screen.frame.compile_id) == cid
    return screen


def text_of(app: InspectcApp, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).visual)


def first_cell(table: VirtualTable) -> str:
    return table.cells_for(table.row_keys()[0])[0].plain


def screen_text(app: InspectcApp) -> str:
    """What the screen shows, as plain text lines (rendered the way Textual's screenshot is)."""
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), record=True, legacy_windows=False)
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens))
    return console.export_text()


def walk(node: Any) -> Any:
    for child in node.children:
        yield child
        yield from walk(child)


def sync(test: Callable[..., Awaitable[None]]) -> Callable[..., None]:
    """Run an async Pilot test with asyncio.run (no async pytest plugin needed)."""

    @functools.wraps(test)
    def run(*args: Any, **kwargs: Any) -> None:
        asyncio.run(test(*args, **kwargs))

    return run
