"""Pointing at the fix, driven with Pilot on a report of real torch outputs (daily.py):
each break once, its documentation page, the caret under the expression, the user stack
from the user's code on, the two sides of a branch, ___stack0 explained, empty frames."""

from __future__ import annotations

from pathlib import Path

from inspectc_tui.frame.breaks import BreaksPane
from inspectc_tui.frame.screen import FrameScreen
from inspectc_tui.overview.stacks import BreakStacksScreen
from inspectc_tui.widgets.code_view import CodeView
from inspectc_tui.widgets.table import VirtualTable
from pilots import RecordingApp, loaded, open_frame, screen_text, settle, sync, text_of, walk
from textual.widgets import OptionList, Tree

SIZE = (160, 48)


@sync
async def test_a_break_links_its_page_and_points_at_the_expression(daily: Path) -> None:
    app = RecordingApp(daily)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await open_frame(pilot, "1/0")
        head = text_of(app, "#break-info")
        assert "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0124.html" in head
        lines = head.split("\n")
        code = next(i for i, line in enumerate(lines) if "peak = h.abs().max().item()" in line)
        caret = lines[code + 1]
        start = lines[code].index("h.abs()")
        assert caret.index("^") == start and caret.rstrip().endswith("^")
        assert len(caret.strip()) == len("h.abs().max().item()")
        view = app.screen.query_one("#break-source", CodeView)
        marked = next(iter(view.marks))
        assert view.line(marked).strip() == "peak = h.abs().max().item()"
        assert view.underline is not None and view.underline[0] == marked
        index, first, last = view.underline
        assert view.line(index)[first:last] == "h.abs().max().item()"


@sync
async def test_the_user_stack_starts_at_the_users_code(daily: Path) -> None:
    app = RecordingApp(daily)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await open_frame(pilot, "1/0")
        more = text_of(app, "#break-more")
        stack = more.split("User stack (most recent call last)\n", 1)[1]
        assert stack.lstrip().startswith("mine.py:30 in <module>")
        for own in ("sys.exit(entry())", "inspectc/cli", "runner.py", "torch/nn/modules"):
            assert own not in more


@sync
async def test_one_break_is_listed_once_and_its_reason_said_once(daily: Path) -> None:
    app = RecordingApp(daily)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        screen = await open_frame(pilot, "2/0")
        breaks = screen.query_one("#break-list", OptionList)
        assert breaks.option_count == 1  # recorded twice (a restarted analysis), shown once
        assert "×2" in str(breaks.get_option_at_index(0).prompt)
        explanation = "Detected data-dependent branching"
        assert screen_text(app).count(explanation) == 1
        assert "Recorded 2× in this frame" in text_of(app, "#break-more")


@sync
async def test_the_two_sides_of_a_branch_say_where_they_go(daily: Path) -> None:
    app = RecordingApp(daily)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        table = app.screen.query_one("#frames", VirtualTable)
        functions = {
            str(table.object_for(k).compile_id): table.cells_for(k)[1].plain for k in table.row_keys()
        }
        assert functions["3/0"] == "↳ f_at_6 → line 7"
        assert functions["4/0"] == "↳ f_at_6 → line 9"
        assert functions["1/0"] == "↳ forward_at_15"  # one code object of that name: nothing to tell apart
        await open_frame(pilot, "4/0")
        assert "continuing at line 9: y = y - 1" in text_of(app, "#frame-header")


@sync
async def test_stack_names_are_explained(daily: Path) -> None:
    app = RecordingApp(daily)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        screen = await open_frame(pilot, "2/1", tab="guards", exact_tab=True)
        said = "___stack0 is the value of `h.abs().max().item()` at mine.py:17 (`peak`)"
        assert said in text_of(app, "#recompile-info")
        assert said in text_of(app, "#frame-header")
        tree = screen.query_one("#guard-tree", Tree)
        assert any(said in str(node.label) for node in walk(tree.root))


@sync
async def test_an_empty_frame_says_why(daily: Path) -> None:
    app = RecordingApp(daily)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await open_frame(pilot, "5/0")
        assert isinstance(app.screen, FrameScreen) and app.screen.active_tab == "graphs"
        note = text_of(app, "#graph-note")
        assert note.startswith("No FX graph.") and "found no tensor operations" in note
        await pilot.press("4")
        await settle(pilot)
        assert "compiled no graph" in text_of(app, "#kernel-info")


@sync
async def test_break_stacks_of_the_run(daily: Path) -> None:
    app = RecordingApp(daily)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("t")
        screen = app.screen
        assert isinstance(screen, BreakStacksScreen)
        tree = screen.query_one("#stack-tree", Tree)
        labels = [str(n.label) for n in walk(tree.root)]
        assert labels[0].startswith("mine.py:30 in <module>  compiled(torch.randn(8, 64))")
        assert any("● 2× Data-dependent branching [GB0170]  (2/0, 2/1)" in label for label in labels)
        assert not any("inspectc" in label or "runner" in label for label in labels)
        leaf = next(n for n in walk(tree.root) if "Tensor.item()" in str(n.label))
        tree.move_cursor(leaf)
        await pilot.press("enter")
        await settle(pilot)
        frame = app.screen
        assert isinstance(frame, FrameScreen) and str(frame.frame.compile_id) == "1/0"
        assert isinstance(frame.pane("breaks"), BreaksPane) and frame.active_tab == "breaks"


@sync
async def test_a_break_shows_its_fix_and_the_resume_function_it_made(daily: Path) -> None:
    app = RecordingApp(daily)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await open_frame(pilot, "1/0")  # the .item() break at mine.py:17
        more = text_of(app, "#break-more")
        fix = more.index("Fix")
        assert "torch._dynamo.config.capture_scalar_outputs = True" in more[fix:]
        assert "inspectc suggest" in more[fix:]
        resume = more.index("Resume function torch_dynamo_resume_in_forward_at_17")
        assert "(frame 2/0)" in more[resume:]
        # the daily report holds no bytecode record for it: said, not left blank
        assert "not recorded: the trace holds no *_ORIGINAL_BYTECODE" in more[resume:]
