"""The search dialog with Pilot: Down moves from the input into the results (issue 43)."""

from __future__ import annotations

from pathlib import Path

from inspectc_tui.dialogs.search import SearchScreen
from inspectc_tui.frame.screen import FrameScreen
from pilots import RecordingApp, loaded, settle, sync
from textual.widgets import OptionList

SIZE = (160, 48)


@sync
async def test_down_moves_from_the_input_into_the_results(graph_breaks_report: Path) -> None:
    app = RecordingApp(graph_breaks_report)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("slash", *"cpp_fused")
        screen = app.screen
        assert isinstance(screen, SearchScreen) and len(screen.hits) >= 2
        await pilot.press("down")
        results = screen.query_one("#search-results", OptionList)
        assert screen.focused is results
        await pilot.press("down")
        assert results.highlighted == 1
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, FrameScreen) and app.screen.active_tab == "kernels"
