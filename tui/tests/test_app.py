"""The TUI driven with Textual's Pilot on golden reports (real capture) and made ones."""

from __future__ import annotations

import sqlite3
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from conftest import settle, sync
from inspectc_tui.app import InspectcApp
from inspectc_tui.dialogs.help import HelpScreen
from inspectc_tui.dialogs.search import SearchScreen
from inspectc_tui.dialogs.source import SourceDialog
from inspectc_tui.frame.kernels import KernelsPane, KernelTable
from inspectc_tui.frame.screen import FrameScreen
from inspectc_tui.messages import OpenFrame
from inspectc_tui.overview.screen import OverviewScreen
from inspectc_tui.widgets.code_view import CodeView
from inspectc_tui.widgets.table import VirtualTable
from reports import ELSEWHERE, write_empty_report
from textual.pilot import Pilot
from textual.widgets import OptionList, Static, Tree

SIZE = (160, 48)


class RecordingApp(InspectcApp):
    """The app, with notifications and editor commands recorded for assertions."""

    def __init__(self, path: Path, **kwargs: Any) -> None:
        self.editor_calls: list[list[str]] = []
        super().__init__(path, editor=self.editor_calls.append, **kwargs)
        self.notes: list[str] = []

    def notify(self, message: str, **kwargs: Any) -> None:  # type: ignore[override]
        self.notes.append(message)
        super().notify(message, **kwargs)


async def loaded(pilot: Pilot[None]) -> RecordingApp:
    app = pilot.app
    assert isinstance(app, RecordingApp)
    for _ in range(400):
        if app.data is not None:
            break
        await pilot.pause(0.025)
    assert app.data is not None, "report did not load"
    await pilot.pause()
    return app


def text_of(app: InspectcApp, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).visual)


def first_cell(table: VirtualTable) -> str:
    return table.cells_for(table.row_keys()[0])[0].plain


def screen_text(app: InspectcApp) -> str:
    return app.export_screenshot().replace("&#160;", " ")


async def open_frame(pilot: Pilot[None], cid: str, **kwargs: Any) -> FrameScreen:
    pilot.app.post_message(OpenFrame((None, cid), **kwargs))
    await pilot.pause()
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, FrameScreen) and screen.frame.compile_id == cid
    return screen


# -- overview ------------------------------------------------------------------------------


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
        assert f"torch {data.run.torch_version}" in header and "exit 0" in header
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
        slowest = max(app.data.frames, key=lambda f: f.metrics.entire_frame_s or 0.0).compile_id
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


# -- frame screen --------------------------------------------------------------------------


@sync
async def test_enter_opens_a_frame_and_every_tab_loads(graph_breaks_report: Path) -> None:
    app = RecordingApp(graph_breaks_report)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, FrameScreen) and screen.frame.compile_id == "0/0"
        assert screen.active_tab == "breaks"
        assert "Failed to trace builtin operator" in text_of(app, "#break-info")
        source = screen.query_one("#break-source", CodeView)
        assert source.display and source.marks
        marked = source.line(next(iter(source.marks)))
        assert "print(" in marked  # samples/graph_breaks.py:18, read from the checkout
        for number, key in enumerate(("breaks", "guards", "graphs", "kernels", "metrics", "events"), 1):
            await pilot.press(str(number))
            await settle(pilot)
            assert screen.active_tab == key and screen.pane(key).loaded
        assert screen.query_one("#event-table", VirtualTable).row_count > 5
        await pilot.press("escape")
        assert isinstance(app.screen, OverviewScreen)


@sync
async def test_break_group_opens_its_frame_at_the_break(graph_breaks_report: Path) -> None:
    app = RecordingApp(graph_breaks_report)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("b", "enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, FrameScreen) and screen.frame.compile_id == "2/0"
        assert "Unsupported Tensor.item()" in text_of(app, "#break-info")


@sync
async def test_recompile_names_the_failed_guard(graph_breaks_report: Path) -> None:
    app = RecordingApp(graph_breaks_report)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        screen = await open_frame(pilot, "2/1")
        await pilot.press("2")
        await settle(pilot)
        info = text_of(app, "#recompile-info")
        assert "a guard of frame 2/0 failed" in info and "size mismatch" in info
        await pilot.press("escape")
        screen = await open_frame(pilot, "2/0")
        await pilot.press("2")
        await settle(pilot)
        assert "recompiling as 2/1" in text_of(app, "#recompile-info")
        tree = screen.query_one("#guard-tree", Tree)
        labels = [str(n.label) for n in _walk(tree.root)]
        assert any("failed later" in label and "L['x']" in label for label in labels)


@sync
async def test_guard_filter_keeps_matches_and_their_parents(graph_breaks_report: Path) -> None:
    app = RecordingApp(graph_breaks_report)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        screen = await open_frame(pilot, "0/0", tab="guards", kernel_id=None)
        await pilot.press("2")
        tree = screen.query_one("#guard-tree", Tree)
        everything = len(list(_walk(tree.root)))
        await pilot.click("#guard-filter")
        await pilot.press(*"L['x']")
        await pilot.pause()
        shown = [n for n in _walk(tree.root) if n.data is not None]
        assert shown and len(shown) < everything
        assert all("L['x']" in f"{n.data.source}{n.data.code}" or n.children for n in shown)
        await pilot.press(*"zzz")
        await pilot.pause()
        assert "no guard matches" in str(list(_walk(tree.root))[-1].label)


@sync
async def test_fx_graphs_and_kernels_of_a_training_step(mlp_report: Path) -> None:
    app = RecordingApp(mlp_report)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, FrameScreen)
        assert screen.active_tab == "kernels"  # no breaks: kernels first
        table = screen.query_one(KernelTable)
        assert table.row_count == len(screen.data.frame_kernels(screen.frame)) > 5
        await settle(pilot)
        assert screen.query_one("#kernel-source", CodeView).line_count > 3
        await pilot.press("s")
        assert table.sorted_by is not None
        await pilot.press("3")
        await settle(pilot)
        kinds = screen.query_one("#graph-kinds", OptionList)
        ids = [kinds.get_option_at_index(i).id for i in range(kinds.option_count)]
        assert ids[:2] == ["dynamo", "pre_grad"] and "aot_backward" in ids and "post_grad_backward" in ids
        kinds.highlighted = ids.index("aot_backward")
        await settle(pilot)
        code = screen.query_one("#graph-code", CodeView)
        assert code.line_count > 10 and "def forward" in "\n".join(code.lines)
        await pilot.press("down", "down", "pagedown", "end", "home")


# -- fusion navigation ---------------------------------------------------------------------


@sync
async def test_fusion_navigation_node_kernel_source(fusion_report: Path) -> None:
    app = RecordingApp(fusion_report)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        screen = await open_frame(pilot, "0/0")
        assert screen.active_tab == "kernels"
        table = screen.query_one(KernelTable)
        assert table.current_object.name == "cpp_fused_sin_0"  # slowest first
        links = screen.query_one("#kernel-links", OptionList)
        assert links.option_count == 4  # two origins, then two nodes
        # kernel -> FX node
        links.focus()
        links.highlighted = 3
        await pilot.press("enter")
        await settle(pilot)
        assert screen.active_tab == "graphs"
        code = screen.query_one("#graph-code", CodeView)
        assert code.cursor is not None and code.line(code.cursor).lstrip().startswith("sin_1:")
        # FX node -> kernel
        assert app.focused is code
        index = next(i for i, line in enumerate(code.lines) if line.lstrip().startswith("mul:"))
        code.cursor = index
        await pilot.press("enter")
        await settle(pilot)
        assert screen.active_tab == "kernels"
        assert table.current_object.name == "cpp_fused_mul_1"
        # kernel -> user source of an origin
        links.focus()
        links.highlighted = 0  # the origin of cpp_fused_mul_1
        await pilot.press("enter")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, SourceDialog)
        view = dialog.query_one(CodeView)
        assert view.line(next(iter(view.marks))) == "return_value = z * 2"
        await pilot.press("e")
        assert app.editor_calls[-1][-2:] == ["+4", str(fusion_report.parent / "user_model.py")]
        await pilot.press("escape")
        # an origin on another machine is said so
        table.select_key(
            str(
                table.object_for(
                    next(k for k in table._objects if table.object_for(k).name == "cpp_fused_sin_0")
                ).id
            )
        )
        await settle(pilot)
        links.focus()
        links.highlighted = 1
        await pilot.press("enter")
        await pilot.pause()
        assert "source not available on this machine" in text_of(app, "#source-title")
        assert ELSEWHERE in text_of(app, "#source-title")


@sync
async def test_fusion_navigation_on_a_real_training_step(mlp_report: Path) -> None:
    app = RecordingApp(mlp_report)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        screen = await open_frame(pilot, "0/0")
        table = screen.query_one(KernelTable)
        kernel = table.current_object
        assert kernel.time is not None and kernel.fused_nodes and kernel.origins  # the slowest
        links = screen.query_one("#kernel-links", OptionList)
        links.focus()
        links.highlighted = len(kernel.origins)  # its first fused node
        await pilot.press("enter")
        await settle(pilot)
        assert screen.active_tab == "graphs"
        code = screen.query_one("#graph-code", CodeView)
        assert code.cursor is not None
        assert code.line(code.cursor).lstrip().startswith(f"{kernel.fused_nodes[0]}:")
        await pilot.press("enter")  # and back from the node to its kernel
        await settle(pilot)
        assert screen.active_tab == "kernels" and table.current_object is kernel
        links.focus()
        links.highlighted = 0  # its first origin: the user's line
        await pilot.press("enter")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, SourceDialog)
        view = dialog.query_one(CodeView)
        origin = kernel.origins[0]
        assert view.marks and view.first_line + next(iter(view.marks)) == origin.line


@sync
async def test_node_without_a_kernel_says_so(fusion_report: Path) -> None:
    app = RecordingApp(fusion_report)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        screen = await open_frame(pilot, "0/0")
        screen.post_message(KernelsPane.NodeChosen("sin", "post_grad"))
        await settle(pilot)
        code = screen.query_one("#graph-code", CodeView)
        code.cursor = 0
        code.focus()
        await pilot.press("enter")  # `class <lambda>`: not a node, nothing happens
        assert screen.active_tab == "graphs"


# -- report text is data; other machines; empty frames ---------------------------------


@sync
async def test_hostile_text_is_shown_literally(fusion_report: Path) -> None:
    app = RecordingApp(fusion_report)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        overview = screen_text(app)
        assert "[bold red]not markup[/]" in overview
        assert "\x1b" not in overview and "\\x1b[31mred" in overview
        screen = await open_frame(pilot, "1/0")
        assert "Unsupported [bold red]not markup[/] \\x1b[31mred\\x1b[0m\\x07bell" in text_of(
            app, "#break-more"
        )
        assert "source not available on this machine" in text_of(app, "#source-note")
        for key in "23456":
            await pilot.press(key)
            await settle(pilot)
        text = screen_text(app)  # the events tab: names and payloads of hostile events
        assert "\x1b" not in text and "[bold red]not markup[/]" in text
        assert screen.pane("events").loaded


@sync
async def test_empty_frame_every_tab_says_so(fusion_report: Path) -> None:
    app = RecordingApp(fusion_report)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        screen = await open_frame(pilot, "2/0")
        assert screen.active_tab == "graphs"
        await pilot.press("1")
        assert "No graph breaks in this frame." in text_of(app, "#break-info")
        for key in "23456":
            await pilot.press(key)
            await settle(pilot)
        assert "No guards recorded" in str(screen.query_one("#guard-tree", Tree).root.label)
        assert "No graphs recorded" in text_of(app, "#graph-caption")
        assert "No kernels were generated" in text_of(app, "#kernel-info")
        assert "no events recorded" in text_of(app, "#event-caption")


@sync
async def test_corrupt_report_shows_the_error(tmp_path: Path, sin_report: Path) -> None:
    bad = tmp_path / "bad.inspectc"
    bad.write_bytes(sin_report.read_bytes())
    with sqlite3.connect(bad) as db:
        db.execute("UPDATE frames SET data = 'not json'")
    app = RecordingApp(bad)
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(200):
            if app.notes:
                break
            await pilot.pause(0.025)
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


# -- global keys ---------------------------------------------------------------------------


@sync
async def test_search_help_and_quit(graph_breaks_report: Path) -> None:
    app = RecordingApp(graph_breaks_report)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("slash")
        assert isinstance(app.screen, SearchScreen)
        await pilot.press(*"relu_sum")
        assert {hit.kind for hit in app.screen.hits} == {"kernel"}
        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, FrameScreen) and screen.active_tab == "kernels"
        assert screen.query_one(KernelTable).current_object.name == "cpp_fused_relu_sum_0"
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        assert isinstance(app.screen, FrameScreen)
        await pilot.press("slash", *"item", "enter")  # typing q or e in search does not quit or edit
        await settle(pilot)
        assert isinstance(app.screen, FrameScreen) and app.screen.frame.compile_id == "2/0"
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0


@sync
async def test_e_opens_the_editor_at_the_break(
    graph_breaks_report: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VISUAL", "myeditor --flag")
    app = RecordingApp(graph_breaks_report)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("e")
        command = app.editor_calls[-1]
        assert command[:3] == ["myeditor", "--flag", "+18"]
        assert command[3].endswith("samples/graph_breaks.py") and Path(command[3]).is_file()


@sync
async def test_e_on_another_machines_path_says_so(fusion_report: Path) -> None:
    app = RecordingApp(fusion_report)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await open_frame(pilot, "1/0")
        await pilot.press("e")
        assert not app.editor_calls
        assert any("source not available on this machine" in note for note in app.notes)


@sync
async def test_x_without_the_exporter(graph_breaks_report: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "inspectc.readers.graph.fusion", None)
    app = RecordingApp(graph_breaks_report)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("x")
        assert app.notes[-1] == "graph export not available"


@sync
async def test_x_writes_the_frames_dot(
    graph_breaks_report: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []

    def fusion_dot(report: Any, compile_id: str) -> str:
        calls.append(compile_id)
        return 'digraph "g" { a -> b }\n'

    fake = types.ModuleType("inspectc.readers.graph.fusion")
    fake.fusion_dot = fusion_dot  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "inspectc.readers.graph.fusion", fake)
    monkeypatch.setenv("PATH", str(tmp_path / "nobin"))  # no `dot`: the .dot only
    app = RecordingApp(graph_breaks_report, export_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("down", "down", "enter")
        await settle(pilot)
        await pilot.press("x")
        await settle(pilot)
    assert calls == ["2/0"]
    assert (tmp_path / "graph_breaks-2_0.dot").read_text().startswith("digraph")
    assert "wrote graph_breaks-2_0.dot" in app.notes


@sync
async def test_x_with_the_real_exporter(mlp_report: Path, tmp_path: Path) -> None:
    pytest.importorskip("inspectc.readers.graph.fusion")
    app = RecordingApp(mlp_report, export_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("x")  # on the overview: the frame under the cursor
        await settle(pilot)
    dot = (tmp_path / "mlp_train-0_0.dot").read_text()
    assert dot.startswith("digraph") and "0/0" in dot
    assert app.notes[-1].startswith("wrote mlp_train-0_0.dot")


def _walk(node: Any) -> Any:
    for child in node.children:
        yield child
        yield from _walk(child)


@sync
async def test_a_share_bundle_and_a_rank_directory_open(sin_report: Path, tmp_path: Path) -> None:
    import shutil
    import subprocess

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
