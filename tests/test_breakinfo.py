"""analysis.breaks, analysis.trie, render.options: pointing at the fix from what a report
holds (real torch 2.13 texts in tests/data/resume, the golden graph_breaks report)."""

from __future__ import annotations

from pathlib import Path

from inspectc.analysis import breaks, resume
from inspectc.analysis.trie import break_trie
from inspectc.model import CompileBackend, CompileId, Frame, Guard, RunOptions, StackFrame
from inspectc.render import words
from inspectc.render.options import option_rows
from inspectc.render.trie import render_trie
from inspectc.render.words import stack_value
from inspectc.store.open import open_report
from inspectc.trace.payloads.breaks import parse_break

DATA = Path(__file__).parent / "data" / "resume"


def _break(name: str):  # noqa: ANN202
    return parse_break((DATA / f"{name}.txt").read_text())


def test_documentation_page_from_the_text_or_the_id() -> None:
    gb = _break("break_item")
    assert breaks.doc_url(gb) == "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0124.html"
    bare = parse_break("Unsupported Tensor.item() call")
    assert breaks.doc_url(bare) is None
    from dataclasses import replace

    assert breaks.doc_url(replace(bare, gb_id="GB0059")).endswith("/gb/gb0059.html")


def test_user_stack_starts_at_the_users_code() -> None:
    gb = _break("break_item")
    assert any("inspectc" in (f.filename or "") for f in gb.user_stack)  # as recorded
    stack = breaks.user_frames(gb.user_stack)
    assert [(f.filename, f.line) for f in stack] == [("mine.py", 30), ("mine.py", 17)]
    runpy = StackFrame(filename="<frozen runpy>", line=88, function="_run_code")
    user = StackFrame(filename="/home/a/m.py", line=3, function="<module>")
    assert breaks.user_frames((runpy, user)) == (user,)
    assert breaks.user_frames((user,)) == (user,)


def test_caret_columns_from_pythons_traceback() -> None:
    here = breaks.positions(_break("break_item"), "3.11.7")[-1]
    assert here.expression == "h.abs().max().item()"
    assert here.caret() == " " * len("peak = ") + "^" * len("h.abs().max().item()")
    call = breaks.positions(_break("break_item"), "3.11.7")[0]  # no caret printed: the whole line
    assert call.expression == "compiled(torch.randn(8, 64))"
    assert breaks.positions(_break("break_item"), "3.10.4")[0].caret() is None  # not recorded
    assert all(p.start is None for p in breaks.positions(parse_break("Graph break: x"), "3.12"))


def test_a_reason_is_said_once() -> None:
    gb = _break("break_branch")
    title, explanation = breaks.title_and_explanation(gb)
    assert title == "Data-dependent branching" and explanation and explanation.startswith("Detected")
    assert breaks.reason_if_new(gb) is None
    assert breaks.distinct_breaks([gb, gb]) == [(gb, 2)]


def test_which_side_of_a_branch() -> None:
    lines = {
        side: resume.resume_target_line((DATA / f"{side}.bytecode.txt").read_text())
        for side in ("resume_if", "resume_else")
    }
    assert lines == {"resume_if": 7, "resume_else": 9}
    frame = Frame(compile_id=CompileId.parse("1/0"), function="torch_dynamo_resume_in_f_at_6")
    branch = resume.branch_of(
        frame, (DATA / "resume_if.bytecode.txt").read_text(), (DATA / "resume_if.dynamo.txt").read_text()
    )
    assert branch == resume.Branch(7, "y = y + 1")
    # Python 3.13 prints labels, not offsets.
    listing = "  6           RESUME 0\n              JUMP_FORWARD 4 (to L1)\n\n  9   L1:     LOAD_FAST 0\n"
    assert resume.resume_target_line(listing) == 9
    twins = [
        Frame(
            compile_id=CompileId(frame=n, compile=0),
            function="torch_dynamo_resume_in_f_at_6",
        )
        for n in (1, 2)
    ]
    assert resume.ambiguous_resumes([*twins, Frame(compile_id=CompileId.parse("0/0"), function="f")]) == twins
    assert resume.ambiguous_resumes(twins[:1]) == []


def test_stack_names_explained() -> None:
    item = _break("break_item")
    broke = Frame(
        compile_id=CompileId.parse("1/0"),
        function="torch_dynamo_resume_in_forward_at_15",
        filename="mine.py",
        graph_breaks=(item,),
    )
    resumed = Frame(
        compile_id=CompileId.parse("2/0"),
        function="torch_dynamo_resume_in_forward_at_17",
        filename="mine.py",
        guards=(Guard(kind="EQUALS_MATCH", source="L['___stack0']", code="L['___stack0'] == 0.86"),),
    )
    (value,) = breaks.stack_values("___stack0 == 0.86", resumed, [broke, resumed], "3.11.7")
    assert (
        stack_value(value, "mine.py:17")
        == "___stack0 is the value of `h.abs().max().item()` at mine.py:17 (`peak`)"
    )
    assert breaks.stack_values("x == 1", resumed, [broke, resumed]) == []
    site = breaks.recompile_site(
        "2/0: ___stack0 == 0.86            # if h.mean() > 0:  # mine.py:18 in torch_dynamo_resume_in_forward_at_17"
    )
    assert site is not None and (site.filename, site.line, site.code) == ("mine.py", 18, "if h.mean() > 0:")
    # torch keeps a path's last characters in a guard's comment (a held-out run: "mp/heldout/...")
    cut = "3/1: n == 0.0  # return x + n  # mp/heldout/s02_dynamic.py:21 in k"
    whole = breaks.recompile_site(cut, "/tmp/heldout/s02_dynamic.py")
    assert whole is not None and (whole.filename, whole.line) == ("/tmp/heldout/s02_dynamic.py", 21)
    other = breaks.recompile_site(cut, "/tmp/elsewhere/model.py")  # not its frame's file: as written
    assert other is not None and other.filename == "mp/heldout/s02_dynamic.py"


def test_why_a_frame_has_no_graph() -> None:
    empty = Frame(compile_id=CompileId.parse("4/0"), status="empty_graph")
    assert "found no tensor operations" in words.no_graph_reason(empty, None)
    gb = _break("break_item")
    text = words.no_graph_reason(
        Frame(compile_id=CompileId.parse("4/0"), status="graph_break", graph_breaks=(gb,)), "mine.py:17"
    )
    assert "before any tensor operation" in text and "mine.py:17" in text


def test_the_break_trie_of_a_real_run(golden: Path) -> None:
    with open_report(golden / "graph_breaks.inspectc") as report:
        root = break_trie(report.frames)
        assert root.count == sum(len(f.graph_breaks) for f in report.frames)
        lines = render_trie(root, lambda f, n: f"{f}:{n}")
    assert lines[0].startswith("└─ samples/graph_breaks.py:58 in <module>  main()")
    leaf = next(line for line in lines if "GB0124" in line and "2/1" in line)
    assert leaf.endswith(
        "└─ ● 1× Unsupported Tensor.item() call with capture_scalar_outputs=False [GB0124]  (2/1)"
    )
    assert not any("inspectc/" in line or "runpy" in line for line in lines)


def test_every_option_is_listed() -> None:
    rows = dict(option_rows(RunOptions()))
    assert rows["fresh (Inductor caches off)"] == "not recorded"
    rows = option_rows(
        RunOptions(
            fresh=True,
            profile_window=(1, 10),
            compile_backends=(CompileBackend(name="inductor", dynamic=True),),
        )
    )
    assert ("profile window (skip, time)", "skip 1 calls, then time 10") in rows
    assert ("torch.compile calls", "inductor (dynamic=True)") in rows
    assert ("fresh (Inductor caches off)", "on") in rows
