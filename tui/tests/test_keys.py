"""Global keys driven with Pilot: search, help, quit, the editor (`e`) and graphviz export (`x`)."""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

import pytest
from inspectc_tui.dialogs.help import HelpScreen
from inspectc_tui.dialogs.search import SearchScreen
from inspectc_tui.frame.kernels import KernelTable
from inspectc_tui.frame.screen import FrameScreen
from pilots import RecordingApp, loaded, open_frame, settle, sync

SIZE = (160, 48)


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
        assert isinstance(app.screen, FrameScreen) and str(app.screen.frame.compile_id) == "2/0"
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
    monkeypatch.setitem(sys.modules, "inspectc.render.graph.fusion", None)
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

    def fusion_dot(report: Any, cid: Any, rank: int | None = None) -> str:
        calls.append(str(cid))  # the frame's typed id
        return 'digraph "g" { a -> b }\n'

    fake = types.ModuleType("inspectc.render.graph.fusion")
    fake.fusion_dot = fusion_dot  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "inspectc.render.graph.fusion", fake)
    monkeypatch.setenv("PATH", str(tmp_path / "nobin"))  # no `dot`: the .dot only
    app = RecordingApp(graph_breaks_report, export_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("down", "down", "enter")
        await settle(pilot)
        await pilot.press("x", "enter")  # the dialog says where; Enter writes there
        await settle(pilot)
    assert calls == ["2/0"]
    assert (tmp_path / "graph_breaks-2_0.dot").read_text().startswith("digraph")
    assert f"wrote {tmp_path / 'graph_breaks-2_0.dot'}" in app.notes


@sync
async def test_x_with_the_real_exporter(mlp_report: Path, tmp_path: Path) -> None:
    pytest.importorskip("inspectc.render.graph.fusion")
    app = RecordingApp(mlp_report, export_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("x", "enter")  # on the overview: the frame under the cursor
        await settle(pilot)
    dot = (tmp_path / "mlp_train-0_0.dot").read_text()
    assert dot.startswith("digraph") and "0/0" in dot
    assert app.notes[-1].startswith(f"wrote {tmp_path / 'mlp_train-0_0.dot'}")
