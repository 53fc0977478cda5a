"""Snapshots of the main screens at a fixed size (pytest-textual-snapshot).

Golden reports are fixed files and nothing shown depends on the clock, the viewer's
paths or the machine, so the pictures are stable. Update them with
``pytest tui/tests/test_snapshots.py --snapshot-update`` and review the SVG diff.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from conftest import settle
from inspectc_tui.app import InspectcApp
from inspectc_tui.messages import OpenFrame
from textual.pilot import Pilot

SIZE = (120, 34)


async def _loaded(pilot: Pilot[None]) -> None:
    app = pilot.app
    assert isinstance(app, InspectcApp)
    for _ in range(400):
        if app.data is not None:
            break
        await pilot.pause(0.025)
    await app.workers.wait_for_complete()
    await pilot.pause()


def at_frame(cid: str, *keys: str, **kwargs: Any) -> Callable[[Pilot[None]], Awaitable[None]]:
    async def run_before(pilot: Pilot[None]) -> None:
        await _loaded(pilot)
        pilot.app.post_message(OpenFrame((None, cid), **kwargs))
        await pilot.pause()
        await settle(pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)

    return run_before


class TestOverview:
    def test_overview(self, snap_compare: Any, graph_breaks_report: Path) -> None:
        assert snap_compare(InspectcApp(graph_breaks_report), run_before=_loaded, terminal_size=SIZE)

    def test_overview_80x24(self, snap_compare: Any, graph_breaks_report: Path) -> None:
        assert snap_compare(InspectcApp(graph_breaks_report), run_before=_loaded, terminal_size=(80, 24))

    def test_help(self, snap_compare: Any, sin_report: Path) -> None:
        async def run_before(pilot: Pilot[None]) -> None:
            await _loaded(pilot)
            await pilot.press("question_mark")

        assert snap_compare(InspectcApp(sin_report), run_before=run_before, terminal_size=SIZE)


class TestFrame:
    def test_graph_break_with_source(self, snap_compare: Any, graph_breaks_report: Path) -> None:
        app = InspectcApp(graph_breaks_report)
        assert snap_compare(app, run_before=at_frame("2/0"), terminal_size=SIZE)

    def test_recompile_guards(self, snap_compare: Any, graph_breaks_report: Path) -> None:
        app = InspectcApp(graph_breaks_report)
        assert snap_compare(app, run_before=at_frame("2/1", "2"), terminal_size=SIZE)

    def test_fx_graph(self, snap_compare: Any, sin_report: Path) -> None:
        app = InspectcApp(sin_report)
        assert snap_compare(
            app, run_before=at_frame("0/0", "3", "down", "down", "down", "down"), terminal_size=SIZE
        )

    def test_kernels(self, snap_compare: Any, mlp_report: Path) -> None:
        app = InspectcApp(mlp_report)
        assert snap_compare(app, run_before=at_frame("0/0", "4", "down"), terminal_size=SIZE)

    def test_hostile_text_literal(self, snap_compare: Any, fusion_report: Path) -> None:
        app = InspectcApp(fusion_report)
        assert snap_compare(app, run_before=at_frame("1/0", "1"), terminal_size=SIZE)
