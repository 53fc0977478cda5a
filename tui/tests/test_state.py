"""The panes keep their state in Textual reactive attributes and the widgets follow it:
setting the attribute (what a key or a click does through the widget's event) is enough
to change what is shown, with no hand-pushed update. Driven with Pilot on daily.py's report."""

from __future__ import annotations

from pathlib import Path

from inspectc_tui.frame.breaks import BreaksPane
from inspectc_tui.frame.graphs import TITLES, GraphsPane
from inspectc_tui.frame.guards import GuardsPane
from inspectc_tui.overview.screen import OverviewScreen
from pilots import RecordingApp, loaded, open_frame, settle, sync, text_of
from textual.widgets import Static, Tree

SIZE = (160, 48)


@sync
async def test_the_break_pane_follows_its_selected_entry(daily: Path) -> None:
    app = RecordingApp(daily)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        screen = await open_frame(pilot, "2/0")
        breaks = screen.pane("breaks")
        assert isinstance(breaks, BreaksPane) and breaks.selected == 0
        shown = text_of(app, "#break-info")
        assert shown == breaks.entries[0].head.plain
        breaks.selected = None  # nothing highlighted: the panel keeps what it showed
        screen.query_one("#break-info", Static).update("")
        breaks.selected = 0
        await settle(pilot)
        assert text_of(app, "#break-info") == shown


@sync
async def test_guard_and_graph_panes_follow_their_state(graph_breaks_report: Path) -> None:
    app = RecordingApp(graph_breaks_report)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        screen = await open_frame(pilot, "0/0")
        screen.action_show_tab("guards")
        await settle(pilot)
        guards = screen.pane("guards")
        assert isinstance(guards, GuardsPane)
        tree: Tree = screen.query_one("#guard-tree", Tree)
        everything = str(tree.root.label)
        guards.needle = "no guard has this in it"
        await pilot.pause()
        assert "0 match" in str(tree.root.label)
        guards.needle = ""
        await pilot.pause()
        assert str(tree.root.label) == everything
        guard = screen.frame.guards[-1]
        guards.guard = guard
        await pilot.pause()
        assert guard.kind in text_of(app, "#guard-detail")

        screen.action_show_tab("graphs")
        await settle(pilot)
        graphs = screen.pane("graphs")
        assert isinstance(graphs, GraphsPane) and len(graphs.kinds) > 1
        last = graphs.kinds[-1]
        graphs.current = last
        await settle(pilot)
        assert text_of(app, "#graph-caption").startswith(TITLES.get(last, last))


@sync
async def test_overview_fills_from_its_data(daily: Path) -> None:
    app = RecordingApp(daily)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        overview = app.screen
        assert isinstance(overview, OverviewScreen) and overview.data is not None
        before = overview.query_one("#frames-box").border_title
        overview.data = overview.data  # a followed run's reload: the same report again
        await pilot.pause()
        assert overview.query_one("#frames-box").border_title == before
