"""Snapshots of the main screens at a fixed size (pytest-textual-snapshot).

Golden reports are fixed files and nothing shown depends on the clock, the viewer's
paths or the machine, so the pictures are stable. Update them with
``pytest tui/tests/test_snapshots.py --snapshot-update`` and review the SVG diff.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from daily import daily_run, write_daily_report
from inspectc_tui.messages import OpenFrame
from pilots import RecordingApp, loaded, settle
from textual.pilot import Pilot

from inspectc.model import CompileId

SIZE = (120, 34)


async def _loaded(pilot: Pilot[None]) -> None:
    await loaded(pilot)
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def at_frame(cid: str, *keys: str, **kwargs: Any) -> Callable[[Pilot[None]], Awaitable[None]]:
    async def run_before(pilot: Pilot[None]) -> None:
        await _loaded(pilot)
        pilot.app.post_message(OpenFrame(CompileId.parse(cid), **kwargs))
        await pilot.pause()
        await settle(pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)

    return run_before


class TestOverview:
    def test_overview(self, snap_compare: Any, graph_breaks_report: Path) -> None:
        assert snap_compare(RecordingApp(graph_breaks_report), run_before=_loaded, terminal_size=SIZE)

    def test_overview_80x24(self, snap_compare: Any, graph_breaks_report: Path) -> None:
        assert snap_compare(RecordingApp(graph_breaks_report), run_before=_loaded, terminal_size=(80, 24))

    def test_help(self, snap_compare: Any, sin_report: Path) -> None:
        async def run_before(pilot: Pilot[None]) -> None:
            await _loaded(pilot)
            await pilot.press("question_mark")

        assert snap_compare(RecordingApp(sin_report), run_before=run_before, terminal_size=SIZE)


class TestFrame:
    def test_graph_break_with_source(self, snap_compare: Any, graph_breaks_report: Path) -> None:
        app = RecordingApp(graph_breaks_report)
        assert snap_compare(app, run_before=at_frame("2/0"), terminal_size=SIZE)

    def test_recompile_guards(self, snap_compare: Any, graph_breaks_report: Path) -> None:
        app = RecordingApp(graph_breaks_report)
        assert snap_compare(app, run_before=at_frame("2/1", "2"), terminal_size=SIZE)

    def test_fx_graph(self, snap_compare: Any, sin_report: Path) -> None:
        app = RecordingApp(sin_report)
        assert snap_compare(
            app, run_before=at_frame("0/0", "3", "down", "down", "down", "down"), terminal_size=SIZE
        )

    def test_kernels(self, snap_compare: Any, mlp_report: Path) -> None:
        app = RecordingApp(mlp_report)
        assert snap_compare(app, run_before=at_frame("0/0", "4", "down"), terminal_size=SIZE)

    def test_hostile_text_literal(self, snap_compare: Any, fusion_report: Path) -> None:
        app = RecordingApp(fusion_report)
        assert snap_compare(app, run_before=at_frame("1/0", "1"), terminal_size=SIZE)


# -- issue 18: daily use ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def daily(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_daily_report(tmp_path_factory.mktemp("daily") / "daily.inspectc")


def keys(*pressed: str) -> Callable[[Pilot[None]], Awaitable[None]]:
    async def run_before(pilot: Pilot[None]) -> None:
        await _loaded(pilot)
        for key in pressed:
            await pilot.press(key)
            await settle(pilot)

    return run_before


class TestBreakDetail:
    def test_page_caret_and_user_stack(self, snap_compare: Any, daily: Path) -> None:
        assert snap_compare(RecordingApp(daily), run_before=at_frame("1/0"), terminal_size=SIZE)


class TestGuardText:
    def test_tensor_guard_shows_its_shape(self, snap_compare: Any, daily: Path) -> None:
        run_before = at_frame("0/0", "down", "down", tab="guards", exact_tab=True)
        assert snap_compare(RecordingApp(daily), run_before=run_before, terminal_size=SIZE)

    def test_stack_value_explained(self, snap_compare: Any, daily: Path) -> None:
        run_before = at_frame("2/1", tab="guards", exact_tab=True)
        assert snap_compare(RecordingApp(daily), run_before=run_before, terminal_size=SIZE)


class TestBranches:
    def test_overview_tells_the_sides_apart(self, snap_compare: Any, daily: Path) -> None:
        assert snap_compare(RecordingApp(daily), run_before=_loaded, terminal_size=SIZE)

    def test_overview_at_100_columns(self, snap_compare: Any, daily: Path) -> None:
        assert snap_compare(RecordingApp(daily), run_before=_loaded, terminal_size=(100, 34))


class TestEmptyFrame:
    def test_no_fx_graph_says_why(self, snap_compare: Any, daily: Path) -> None:
        assert snap_compare(RecordingApp(daily), run_before=at_frame("5/0"), terminal_size=SIZE)


class TestBreakStacks:
    def test_stack_trie(self, snap_compare: Any, daily: Path) -> None:
        assert snap_compare(RecordingApp(daily), run_before=keys("t"), terminal_size=SIZE)


class TestRunDetails:
    def test_options_and_versions(self, snap_compare: Any, tmp_path: Path) -> None:
        from dataclasses import replace

        run = replace(daily_run(tmp_path), cwd="/home/alice/proj", capture_errors=("timings: no profiler",))
        path = write_daily_report(tmp_path / "run.inspectc", frames=1, run=run)
        assert snap_compare(RecordingApp(path), run_before=keys("i"), terminal_size=SIZE)


class TestExport:
    def test_x_asks_where(self, snap_compare: Any, fusion_report: Path) -> None:
        app = RecordingApp(fusion_report, export_dir=Path("/home/alice/exports"))
        assert snap_compare(app, run_before=keys("x"), terminal_size=SIZE)


class TestFollow:
    def test_waiting_for_the_run(
        self, snap_compare: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.chdir(tmp_path)
        app = RecordingApp(Path("later.inspectc"), follow=True, follow_every_s=0.05)

        async def run_before(pilot: Pilot[None]) -> None:
            await pilot.pause()

        assert snap_compare(app, run_before=run_before, terminal_size=SIZE)
