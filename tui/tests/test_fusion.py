"""Fusion navigation driven with Pilot: FX node -> kernel -> user source, and back."""

from __future__ import annotations

from pathlib import Path

from inspectc_tui.dialogs.node_kernels import NodeKernelsDialog
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


@sync
async def test_dynamo_node_lists_the_kernels_that_computed_it(mlp_report: Path) -> None:
    """Item 11: Enter on a Dynamo graph node of a real training capture lists its kernels:
    the forward kernel Inductor's provenance maps to the node first, then the backward
    kernels of the same user line; choosing one shows it in the Kernels tab."""
    app = RecordingApp(mlp_report)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        screen = await open_frame(pilot, "0/0")
        screen.post_message(KernelsPane.NodeChosen("gelu", "dynamo"))
        await settle(pilot)
        code = screen.query_one("#graph-code", CodeView)
        assert code.cursor is not None and code.line(code.cursor).lstrip().startswith("gelu:")
        await pilot.press("enter")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, NodeKernelsDialog)
        names = [(f.kernel.name, f.how) for f in dialog.found]
        assert names[0] == ("cpp_fused_gelu_native_layer_norm_0", "provenance")
        assert all(how == "same line" for _, how in names[1:])  # the backward of line 21
        assert "cpp_fused_gelu_gelu_backward_native_layer_norm_native_layer_norm_backward_sum_2" in {
            n for n, _ in names
        }
        await pilot.press("enter")  # the first: the forward kernel
        await settle(pilot)
        assert screen.active_tab == "kernels"
        table = screen.query_one(KernelTable)
        assert table.current_object.name == "cpp_fused_gelu_native_layer_norm_0"
        # a node of the head's line (33): its addmm, not a layer's
        screen.post_message(KernelsPane.NodeChosen("linear_4", "dynamo"))
        await settle(pilot)
        await pilot.press("enter")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, NodeKernelsDialog)
        assert [f.kernel.name for f in dialog.found if f.how == "provenance"] == ["extern_kernels.addmm:5"]
        assert {f.kernel.graph_kind for f in dialog.found if f.how == "same line"} == {"output_code_backward"}
        await pilot.press("escape")
        # a node no kernel computed (a placeholder alias) says so instead of a wrong kernel
        app.notes.clear()
        screen.post_message(KernelsPane.NodeChosen("l_x_", "dynamo"))
        await settle(pilot)
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is screen
        assert app.notes and "no kernel computed the node l_x_" in app.notes[-1]


@sync
async def test_post_grad_forward_node_skips_backward_recomputes(mlp_report: Path) -> None:
    """A forward graph's `mul` goes to the forward kernel, not the backward one that
    recomputes a node of the same name."""
    app = RecordingApp(mlp_report)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        screen = await open_frame(pilot, "0/0")
        screen.post_message(KernelsPane.NodeChosen("mul", "post_grad"))
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert screen.active_tab == "kernels"
        assert screen.query_one(KernelTable).current_object.name == "cpp_fused_gelu_native_layer_norm_0"
