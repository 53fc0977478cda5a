"""Moving around and reading whole lines, driven with Pilot: the guard filter's own key,
next/previous frame, keyboard sorting, headers and names that fit, sideways scrolling,
the run's options, and an export that says where it writes before it writes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from inspectc_tui.dialogs.export import ExportScreen
from inspectc_tui.dialogs.run import RunScreen
from inspectc_tui.frame.screen import FrameScreen
from inspectc_tui.widgets.code_view import CodeView
from inspectc_tui.widgets.table import VirtualTable
from pilots import RecordingApp, loaded, open_frame, screen_text, settle, sync, text_of
from textual.widgets import Input, Tree

SIZE = (160, 48)


@sync
async def test_the_failed_shape_is_on_screen_at_100_columns(daily: Path) -> None:
    app = RecordingApp(daily)
    async with app.run_test(size=(100, 34)) as pilot:
        await loaded(pilot)
        assert "mine.py:15" in screen_text(app)  # the breaks panel keeps the line number
        screen = await open_frame(pilot, "0/0", tab="guards", exact_tab=True)
        assert "torch.float32, size=[8, 64], stride=[64, 1]" in screen_text(app)  # on screen, not cut
        tree = screen.query_one("#guard-tree", Tree)
        node = next(n for n in _leaves(tree) if "TENSOR_MATCH" in str(n.label))
        tree.move_cursor(node)
        await pilot.pause()
        detail = text_of(app, "#guard-detail")
        assert "DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU)" in detail  # all of it


@sync
async def test_the_guard_filter_has_its_own_key_and_keeps_the_keys_it_is_typed(daily: Path) -> None:
    app = RecordingApp(daily)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        screen = await open_frame(pilot, "0/0", tab="guards", exact_tab=True)
        await pilot.press("f")
        field = screen.query_one("#guard-filter", Input)
        assert app.focused is field
        await pilot.press(*"[x]")  # `[` changes tab and `x` exports elsewhere: not here
        assert field.value == "[x]" and screen.active_tab == "guards"
        assert not isinstance(app.screen, ExportScreen)
        await pilot.press("escape")  # clears the filter; the screen stays
        assert field.value == "" and app.screen is screen
        assert app.focused is screen.query_one("#guard-tree")


@sync
async def test_next_and_previous_frame_keep_the_tab(daily: Path) -> None:
    app = RecordingApp(daily)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await open_frame(pilot, "0/0", tab="guards", exact_tab=True)
        await pilot.press("n")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, FrameScreen) and str(screen.frame.compile_id) == "1/0"
        assert screen.active_tab == "guards"
        await pilot.press("p", "p")
        await settle(pilot)
        assert isinstance(app.screen, FrameScreen) and str(app.screen.frame.compile_id) == "0/0"
        assert app.notes[-1] == "no previous frame"
        await pilot.press("escape")
        table = app.screen.query_one("#frames", VirtualTable)
        assert str(table.current_object.compile_id) == "0/0"  # the overview followed


@sync
async def test_keyboard_sorting_and_headers_that_fit(daily: Path) -> None:
    app = RecordingApp(daily)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        table = app.screen.query_one("#frames", VirtualTable)
        await pilot.press("s")
        assert table.sorted_by == ("frame", False)
        await pilot.press("s", "s", "s", "s", "s")
        assert table.sorted_by == ("kernels", False)
        assert table.object_for(table.row_keys()[0]).kernel_count == 1
        assert "Kernels ▼" in screen_text(app)
        await pilot.press("S")
        assert table.sorted_by == ("kernels", True) and "Kernels ▲" in screen_text(app)


@sync
async def test_kernel_names_are_cut_at_their_end(daily: Path) -> None:
    app = RecordingApp(daily)
    async with app.run_test(size=(100, 34)) as pilot:
        await loaded(pilot)
        text = screen_text(app)
        # a name reads from its start; a cut one ends in "…", never loses its middle
        assert "cpp_fused" in text and "…rame_0_0" not in text
        assert all(not re.search(r"…\w", line) for line in text.splitlines() if "cpp_fused" in line)


@sync
async def test_long_lines_scroll_sideways(daily: Path) -> None:
    app = RecordingApp(daily)
    async with app.run_test(size=(60, 30)) as pilot:
        await loaded(pilot)
        screen = await open_frame(pilot, "0/0", tab="guards", exact_tab=True)
        tree = screen.query_one("#guard-tree", Tree)
        tree.focus()
        await pilot.press("right", "right")
        assert tree.scroll_offset.x > 0
        await pilot.press("3")
        await settle(pilot)
        view = screen.query_one("#graph-code", CodeView)
        view.focus()
        await pilot.press("right")
        assert view.scroll_offset.x == 8


@sync
async def test_the_run_shows_its_options(daily: Path) -> None:
    app = RecordingApp(daily)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("i")
        assert isinstance(app.screen, RunScreen)
        text = screen_text(app)
        assert "skip 1 calls, then time 10" in text
        assert "inductor (mode=default)" in text
        assert "exited 0" in text and "python" in text and "3.11.7" in text
        await pilot.press("escape")
        assert not isinstance(app.screen, RunScreen)


@sync
async def test_x_says_where_it_writes_and_asks(fusion_report: Path, tmp_path: Path) -> None:
    pytest.importorskip("inspectc.render.graph.fusion")
    app = RecordingApp(fusion_report, export_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("x")
        dialog = app.screen
        assert isinstance(dialog, ExportScreen)
        assert "fusion-0_0.dot" in text_of(app, "#export-what")
        assert dialog.query_one("#export-folder", Input).value == str(tmp_path)
        await pilot.press("escape")
        assert not list(tmp_path.iterdir())  # cancelled: nothing written
        await pilot.press("x")
        field = app.screen.query_one("#export-folder", Input)
        field.value = str(tmp_path / "missing")
        await pilot.press("enter")
        assert "not a folder" in text_of(app, "#export-error")
        field.value = str(tmp_path)
        await pilot.press("enter")
        await pilot.pause()  # the dialog's answer starts the export worker
        await app.workers.wait_for_complete()
        await pilot.pause()
    assert (tmp_path / "fusion-0_0.dot").is_file(), app.notes
    assert any(note.startswith(f"wrote {tmp_path / 'fusion-0_0.dot'}") for note in app.notes)


def _leaves(tree: Tree) -> list:  # type: ignore[type-arg]
    out = []
    stack = list(tree.root.children)
    while stack:
        node = stack.pop(0)
        out.append(node)
        stack[:0] = list(node.children)
    return out
