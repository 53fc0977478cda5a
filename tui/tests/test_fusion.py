"""Fusion navigation driven with Pilot: FX node -> kernel -> user source, and back."""

from __future__ import annotations

from pathlib import Path

from inspectc_tui.dialogs.source import SourceDialog
from inspectc_tui.frame.kernels import KernelsPane, KernelTable
from inspectc_tui.widgets.code_view import CodeView
from pilots import RecordingApp, loaded, open_frame, settle, sync, text_of
from reports import ELSEWHERE
from textual.widgets import OptionList

SIZE = (160, 48)


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
