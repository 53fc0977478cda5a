"""The overview driven with Pilot: the run, its tables, and reports of every shape."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

from inspectc_tui.dialogs.help import HelpScreen
from inspectc_tui.dialogs.search import SearchScreen
from inspectc_tui.frame.screen import FrameScreen
from inspectc_tui.overview.screen import OverviewScreen
from inspectc_tui.widgets.code_view import CodeView
from inspectc_tui.widgets.table import VirtualTable
from pilots import RecordingApp, first_cell, loaded, open_frame, settle, sync, text_of
from reports import write_empty_report

SIZE = (160, 48)


@sync
async def test_overview_shows_run_frames_breaks_kernels(graph_breaks_report: Path) -> None:
    app = RecordingApp(graph_breaks_report)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        screen = app.screen
        assert isinstance(screen, OverviewScreen)
        data = app.data
        assert data is not None and len(data.frames) > 4 and len(data.groups) > 1
        assert screen.query_one("#frames", VirtualTable).row_count == len(data.frames)
        breaks = screen.query_one("#breaks", VirtualTable)
        assert breaks.row_count == len(data.groups)
        assert first_cell(breaks) == f"{max(g.count for g in data.groups)}×"  # most frequent first
        top = data.top_kernels[:50] or data.kernels[:50]  # timed kernels, slowest first
        assert screen.query_one("#top-kernels", VirtualTable).row_count == len(top)
        header = text_of(app, "#run-header")
        assert f"torch {data.run.torch_version}" in header and "exited 0" in header
        t = data.totals
        assert f"{t.frames} frames" in header
        assert f"{t.graph_breaks} graph breaks ({t.unique_breaks} unique)" in header
        assert app.focused is screen.query_one("#frames")


@sync
async def test_frames_table_sorts_by_header(graph_breaks_report: Path) -> None:
    app = RecordingApp(graph_breaks_report)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        table = app.screen.query_one("#frames", VirtualTable)
        x = sum(c.shown + 2 for c in table.columns[:6]) + 2  # inside the "Compile" header
        await pilot.click("#frames", offset=(x, 0))
        assert app.data is not None
        slowest = str(max(app.data.frames, key=lambda f: f.metrics.entire_frame_s or 0.0).compile_id)
        assert table.sorted_by == ("compile", False)
        assert first_cell(table) == slowest
        await pilot.click("#frames", offset=(x, 0))
        assert table.sorted_by == ("compile", True) and first_cell(table) != slowest
        await pilot.click("#frames", offset=(2, 3))  # third row: the cursor goes there
        assert table.cursor == 2
        await pilot.click("#frames", offset=(2, 3))  # and again: it opens
        await settle(pilot)
        assert isinstance(app.screen, FrameScreen)
        assert app.screen.frame is table.object_for(table.row_keys()[2])


@sync
async def test_break_group_opens_its_frame_at_the_break(graph_breaks_report: Path) -> None:
    app = RecordingApp(graph_breaks_report)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("b", "enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, FrameScreen) and str(screen.frame.compile_id) == "2/0"
        assert "Unsupported Tensor.item()" in text_of(app, "#break-info")


@sync
async def test_corrupt_report_shows_the_error(tmp_path: Path, sin_report: Path) -> None:
    bad = tmp_path / "bad.inspectc"
    bad.write_bytes(sin_report.read_bytes())
    with sqlite3.connect(bad) as db:
        db.execute("UPDATE frames SET data = 'not json'")
    app = RecordingApp(bad)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)  # the LoadFailed message
        assert app.data is None
        assert any("corrupt frame entry" in note for note in app.notes)
        assert "corrupt frame entry" in text_of(app, "#loading-label")


@sync
async def test_large_report_opens_and_keys_answer_while_it_loads(large_report: Path) -> None:
    app = RecordingApp(large_report)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("question_mark")  # before the frames are read: the UI answers
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await loaded(pilot)
        assert app.screen.query_one("#frames", VirtualTable).row_count == 120
        await pilot.press("end", "home", "pagedown")
        await pilot.press("k", "enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, FrameScreen) and screen.active_tab == "kernels"
        assert screen.query_one("#kernel-source", CodeView).line_count > 50


@sync
async def test_a_report_with_nothing_compiled(tmp_path: Path) -> None:
    app = RecordingApp(write_empty_report(tmp_path / "empty.inspectc"))
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        assert "ended: killed" in text_of(app, "#run-header")
        assert "No frames were compiled" in text_of(app, "#no-frames")
        assert "No graph breaks." in text_of(app, "#no-breaks")
        await pilot.press("enter", "e", "x")
        assert isinstance(app.screen, OverviewScreen)
        assert app.notes == ["no source location here", "choose a frame to export"]
        await pilot.press("slash", *"anything", "enter")
        assert isinstance(app.screen, SearchScreen) and app.screen.hits == []


@sync
async def test_a_share_bundle_and_a_rank_directory_open(sin_report: Path, tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "inspectc", "share", str(sin_report), "-o", str(tmp_path / "share")],
        check=True,
        capture_output=True,
        timeout=120,
    )
    (tmp_path / "ranks").mkdir()
    shutil.copy(sin_report, tmp_path / "ranks" / "sin_sin.inspectc")
    for target in (tmp_path / "share" / "sin_sin.share.zip", tmp_path / "ranks"):
        app = RecordingApp(target)
        async with app.run_test(size=SIZE) as pilot:
            await loaded(pilot)
            assert app.screen.query_one("#frames", VirtualTable).row_count == 1
            await pilot.press("enter")
            await settle(pilot)
            assert isinstance(app.screen, FrameScreen)


@sync
async def test_a_recompile_limit_hit_shows_as_a_limit_hit_not_a_failure() -> None:
    """The compile id refused at the recompile limit (a report captured on Python 3.12): its
    row and its frame header say "limit hit", as the terminal, HTML and graph do, and the
    header's count of failed frames stays 0 (the headline's)."""
    report = Path(__file__).parents[2] / "tests" / "data" / "py312" / "recompile-limit.inspectc"
    app = RecordingApp(report)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        table = app.screen.query_one("#frames", VirtualTable)
        rows = {cells[0].plain: [c.plain for c in cells] for cells in map(table.cells_for, table.row_keys())}
        assert "limit hit" in rows["0/4"] and "failed" not in rows["0/4"], rows
        assert all("ok" in rows[f"0/{i}"] for i in range(4))
        assert "0 failed" in text_of(app, "#run-header")
        await open_frame(pilot, "0/4")
        assert "limit hit" in text_of(app, "#frame-header")
