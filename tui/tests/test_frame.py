"""The frame screen driven with Pilot: its tabs on golden reports (real capture) and made ones."""

from __future__ import annotations

from pathlib import Path

from inspectc_tui.frame.kernels import KernelTable
from inspectc_tui.frame.screen import FrameScreen
from inspectc_tui.overview.screen import OverviewScreen
from inspectc_tui.widgets.code_view import CodeView
from inspectc_tui.widgets.table import VirtualTable
from pilots import RecordingApp, loaded, open_frame, screen_text, settle, sync, text_of, walk
from textual.widgets import OptionList, Tree

SIZE = (160, 48)


@sync
async def test_enter_opens_a_frame_and_every_tab_loads(graph_breaks_report: Path) -> None:
    app = RecordingApp(graph_breaks_report)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, FrameScreen) and str(screen.frame.compile_id) == "0/0"
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
        labels = [str(n.label) for n in walk(tree.root)]
        assert any("failed later" in label and "L['x']" in label for label in labels)


@sync
async def test_guard_filter_keeps_matches_and_their_parents(graph_breaks_report: Path) -> None:
    app = RecordingApp(graph_breaks_report)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        screen = await open_frame(pilot, "0/0", tab="guards", kernel_id=None)
        await pilot.press("2")
        tree = screen.query_one("#guard-tree", Tree)
        everything = len(list(walk(tree.root)))
        await pilot.click("#guard-filter")
        await pilot.press(*"L['x']")
        await pilot.pause()
        shown = [n for n in walk(tree.root) if n.data is not None]
        assert shown and len(shown) < everything
        assert all("L['x']" in f"{n.data.source}{n.data.code}" or n.children for n in shown)
        await pilot.press(*"zzz")
        await pilot.pause()
        assert "no guard matches" in str(list(walk(tree.root))[-1].label)


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


@sync
async def test_hostile_text_is_shown_literally(fusion_report: Path) -> None:
    app = RecordingApp(fusion_report)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        overview = screen_text(app)
        assert "[bold red]not markup[/]" in overview
        assert "\x1b" not in overview and "\\x1b[31mred" in overview  # shown, never sent
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
async def test_kernels_show_isolated_figures_and_roofline_of_a_benched_report() -> None:
    report = Path(__file__).parents[2] / "tests" / "data" / "bench" / "resnet18-h200.inspectc"
    app = RecordingApp(report)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        screen = await open_frame(pilot, "0/0", tab="kernels", kernel_id=None)
        table = screen.query_one(KernelTable)
        rows = [(table.object_for(key), [c.plain for c in table.cells_for(key)]) for key in table.row_keys()]
        triton = [cells for kernel, cells in rows if kernel.language == "triton"]
        assert triton and all(cells[3].rstrip("*").endswith("%") for cells in triton)  # % limit
        assert all(cells[3].startswith("~") for cells in triton)  # the fallback, marked
        # isolated: bare numbers in the one unit its header names (render.timefmt's unit rule)
        assert all(cells[2].replace(",", "").replace(".", "").isdigit() for _, cells in rows)
        kernel = next(k for k, _ in rows if k.language == "triton")
        await screen.show_kernel(kernel.id)
        await settle(pilot)
        info = text_of(app, "#kernel-info")
        assert "isolated (kernel_harness): median" in info and "GB/s" in info
        # no launch record in this report: the named fallback, as `kernels` shows it (~N%)
        assert "roofline (fallback): ~" in info and "no launch record: Inductor's bytes" in info


@sync
async def test_kernels_of_an_unbenched_training_report_show_their_pass_not_empty_bench_columns(
    mlp_report: Path,
) -> None:
    app = RecordingApp(mlp_report)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        screen = await open_frame(pilot, "0/0", tab="kernels", kernel_id=None)
        table = screen.query_one(KernelTable)
        rows = [(table.object_for(key), [c.plain for c in table.cells_for(key)]) for key in table.row_keys()]
        passes = {cells[3] for _, cells in rows}  # total, share, kernel, pass: no isolated or % limit
        assert passes == {"fwd", "bwd"}, passes
        assert all(cells[2] == kernel.name for kernel, cells in rows)
        assert all("not measured" not in cell for _, cells in rows for cell in cells)


@sync
async def test_an_untimed_kernel_says_why(graph_breaks_report: Path) -> None:
    from inspectc.store.open import open_report

    with open_report(graph_breaks_report) as report:
        untimed = next(k for k in report.kernels if str(k.compile_id) == "2/1" and k.time is None)
    app = RecordingApp(graph_breaks_report)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await open_frame(pilot, "2/1", tab="kernels", kernel_id=untimed.id)
        await settle(pilot)
        info = text_of(app, "#kernel-info")
        assert "not timed: its frame's graph did not run during calls 2-11" in info, info
