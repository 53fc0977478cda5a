"""The user's view (issue 28): what a new user reads renders as intended.

Share's Markdown is parsed as GitHub does (CommonMark + GFM tables, markdown-it-py): every table's
rows have the header's column count and no HTML escape from the report leaks into the text.
"""

from __future__ import annotations

import dataclasses
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from inspectc.model import CompileId
from inspectc.render.html.document import render_document
from inspectc.render.share.info import share_page
from inspectc.render.share.markdown import render_markdown
from inspectc.store.open import open_report

SAMPLES = sorted((Path(__file__).resolve().parent.parent / "samples" / "reports").glob("*.inspectc"))
_ESCAPE = re.compile(r"&(?:[a-zA-Z]+|#\d+|#x[0-9a-fA-F]+);")


def _md_tables(text: str) -> list[list[int]]:
    """Cells per row of each table, header row first, as markdown-it-py (GFM tables) parses it."""
    markdown_it = pytest.importorskip("markdown_it")
    tokens = markdown_it.MarkdownIt("commonmark").enable("table").parse(text)
    tables: list[list[int]] = []
    for t in tokens:
        if t.type == "table_open":
            tables.append([])
        elif t.type == "tr_open":
            tables[-1].append(0)
        elif t.type in ("th_open", "td_open"):
            tables[-1][-1] += 1
    return tables


def _md_texts(text: str) -> list[str]:
    markdown_it = pytest.importorskip("markdown_it")
    tokens = markdown_it.MarkdownIt("commonmark").enable("table").parse(text)
    return [
        c.content
        for t in tokens
        if t.type == "inline"
        for c in t.children or []
        if c.type in ("text", "code_inline")
    ]


class _Rows(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tables: list[list[int]] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append(0)
        elif tag in ("th", "td"):
            self.tables[-1][-1] += 1


def _html_tables(text: str) -> list[list[int]]:
    parser = _Rows()
    parser.feed(text)
    return parser.tables


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.stem)
def test_share_tables_have_the_headers_column_count(sample: Path) -> None:
    with open_report(sample) as report:
        page = share_page(report)
        html_page = render_document(report, page)
    markdown = render_markdown(page)
    tables = _md_tables(markdown)
    assert tables, "no table parsed from the share's Markdown"
    for rows in tables:
        assert len(rows) >= 2 and set(rows) == {rows[0]}, rows
    leaked = [t for t in _md_texts(markdown) if _ESCAPE.search(t)]
    assert not leaked, leaked[:3]
    for rows in _html_tables(html_page):
        assert set(rows) == {rows[0]}, rows


# ---------------------------------------------------------------------------
# Item 2: an unresumable break's reason is whole, its hints kept, one break one group

_BREAKS = Path(__file__).resolve().parent / "data" / "breaks"


def test_unresumable_fail_reason_is_whole_with_hints_and_groups_with_its_artifact() -> None:
    from inspectc.analysis.views import break_groups
    from inspectc.model import Frame
    from inspectc.trace.payloads.breaks import parse_break

    artifact = (_BREAKS / "2.13.0-cpu-breaks-7_0.txt").read_text(encoding="utf-8")
    # compilation_metrics' fail/restart reason of the same skipped frame: the preamble, a blank
    # line and the gb block, without the artifact's "Graph Break Reason: " prefix.
    block = artifact.split("Graph break encountered:\n", 1)[1].split("User code traceback:", 1)[0]
    preamble = artifact.splitlines()[1].removeprefix("Graph Break Reason: ")
    fail = parse_break(f"{preamble}\n{block}")
    whole = parse_break(artifact)
    assert fail.reason == whole.reason
    assert fail.reason.startswith("Unsupported context manager: Dynamo does not know how to enter")
    assert "Graph break encountered" not in fail.reason
    assert fail.hints == whole.hints and len(fail.hints) == 3
    assert fail.gb_id == "GB0142" and fail.frame_skipped
    located = dataclasses.replace(fail, filename=whole.filename, line=whole.line)
    frames = [
        Frame(compile_id=CompileId.parse("0/0"), graph_breaks=(whole,)),
        Frame(compile_id=CompileId.parse("1/0"), graph_breaks=(located,)),
    ]
    groups = break_groups(frames)
    assert len(groups) == 1 and groups[0].count == 2


def test_a_break_in_a_loop_says_dynamo_skipped_the_frame_and_the_second_break() -> None:
    """torch 2.13: a graph_break() under a for loop: "While handling this graph break, another
    graph break occurred: graph break in loop ... frame skipped". The second block was lost (a
    held-out script): the user saw only the first break, not that the whole forward ran eagerly."""
    from inspectc.model import Failure
    from inspectc.render.sections.breaks import failure_text
    from inspectc.render.words import consequence
    from inspectc.trace.payloads.breaks import parse_break

    artifact = parse_break((_BREAKS / "2.13.0-cpu-loop-skip-artifact.txt").read_text(encoding="utf-8"))
    fail = parse_break((_BREAKS / "2.13.0-cpu-loop-skip-fail.txt").read_text(encoding="utf-8"))
    for gb in (artifact, fail):
        assert gb.gb_id == "GB0025" and gb.reason.startswith("Call to `torch._dynamo.graph_break()`")
        assert gb.hints == ("Remove the `torch._dynamo.graph_break()` call.",)  # not the loop's hint
        assert gb.debug_context is not None and "frame skipped" not in gb.debug_context
        assert gb.frame_skipped
        assert gb.then is not None and gb.then.startswith("graph break in loop: torch.compile detected")
        said = consequence(gb)
        assert said is not None and "skipped the whole frame" in said and "graph break in loop" in said
    assert (
        artifact.filename is not None and artifact.filename.endswith("s13_breaks.py") and artifact.line == 3
    )
    assert [f.line for f in artifact.user_stack][-1] == 3  # the stack after the second block stays
    text = failure_text(Failure(fail_type="Unsupported", reason=fail.raw, graph_break=fail))
    assert text.startswith("not compiled: graph break [GB0025]") and "graph break in loop" in text
    plain = parse_break((_BREAKS / "2.13.0-cpu-breaks-0_0.txt").read_text(encoding="utf-8"))
    assert plain.then is None and consequence(plain) is None  # one break, nothing more said


# ---------------------------------------------------------------------------
# Items 3 and 5: a logging break gets ignore_logging_functions, proven by suggest


@pytest.mark.capture
def test_logging_break_gets_ignore_logging_functions_proven_by_suggest(captures) -> None:  # noqa: ANN001
    import json

    from conftest import run_cli

    run = captures.get("suggest_logging.py", label="suggest")
    assert run.proc.returncode == 0, run.proc.stderr
    python = "torch._dynamo.config.ignore_logging_functions.add(logging.Logger.warning)"
    summary = run_cli("summary", str(run.report), check=True).stdout
    assert "Suggestions (1" in summary and python in summary
    data = json.loads(run_cli("export", str(run.report), check=True).stdout)
    assert [s["config"] for s in data["suggestions"]] == [
        "dynamo.ignore_logging_functions+=logging.Logger.warning"
    ]
    listed = run_cli("suggest", str(run.report), "--list", check=True).stdout
    assert "would try: --config dynamo.ignore_logging_functions+=logging.Logger.warning" in listed

    out = run_cli("suggest", str(run.report), check=True, cwd=run.report.parent).stdout
    assert "break gone: suggest_logging.py:13" in out and "breaks 1 -> 0" in out
    assert "verdict: helps" in out and python in out
    # item 5: the unseeded script's output changes on its own; suggest says so, not "DIFFERS"
    assert "baseline output varies run to run (first at line 1:" in out
    assert "output: differs, but it varies run to run without the change too" in out and "DIFFERS" not in out


def test_suggest_shows_where_outputs_part() -> None:
    from inspectc.cli.suggest import _first_difference

    assert _first_difference("a\nb\nc\n", "a\nB\nc\n") == "first at line 2: 'b' -> 'B'"
    assert _first_difference("a\n", "a\nextra\n") == "first at line 2: '<no line>' -> 'extra'"


# ---------------------------------------------------------------------------
# Item 6: reorderable_logging_functions only for a print of constants


def _print_break(types: str, classes: str):  # noqa: ANN202 - GraphBreak
    from inspectc.trace.payloads.breaks import parse_break

    text = (_BREAKS / "2.13.0-cpu-breaks-0_0.txt").read_text(encoding="utf-8")
    text = text.replace("['str']", types).replace(
        "[<class 'torch._dynamo.variables.constant.ConstantVariable'>]", classes
    )
    return parse_break(text)


@pytest.mark.parametrize(
    ("types", "classes", "offered"),
    [
        ("['str']", "[<class 'torch._dynamo.variables.constant.ConstantVariable'>]", True),
        (
            "['str', 'Size']",
            "[<class 'torch._dynamo.variables.constant.ConstantVariable'>, "
            "<class 'torch._dynamo.variables.lists.SizeVariable'>]",
            False,
        ),
        (
            "['str', 'Tensor']",
            "[<class 'torch._dynamo.variables.constant.ConstantVariable'>, "
            "<class 'torch._dynamo.variables.tensor.TensorVariable'>]",
            False,
        ),
    ],
)
def test_print_fix_offers_reordering_only_for_constant_arguments(
    types: str, classes: str, offered: bool
) -> None:
    from inspectc.analysis.remedies import remedies
    from inspectc.model import Frame

    found = remedies([Frame(compile_id=CompileId.parse("0/0"), graph_breaks=(_print_break(types, classes),))])
    configs = [r.change.option for r in found if r.change]
    assert (configs == ["dynamo.reorderable_logging_functions+=print"]) is offered, configs
    assert [r.code for r in found if r.change is None] == ["move the print out of the compiled function"]


# ---------------------------------------------------------------------------
# Item 7: a report made with inspectc.capture() does not send the user to `inspectc suggest`


def test_api_report_says_what_to_do_instead_of_suggest(tmp_path: Path) -> None:
    from conftest import run_cli

    from inspectc.model import Frame, Run
    from inspectc.store.factory import ReportFactory
    from inspectc.trace.payloads.breaks import parse_break

    item = parse_break((_BREAKS / "2.13.0-cpu-breaks-2_0.txt").read_text(encoding="utf-8"))
    report = tmp_path / "notebook.inspectc"
    made = ReportFactory(report, Run(argv=("ipykernel",), mode="api", cwd=str(tmp_path), exit_code=0))
    made.frame(
        Frame(compile_id=CompileId.parse("0/0"), function="f", status="graph_break", graph_breaks=(item,))
    )
    made.close()

    summary = run_cli("summary", str(report), check=True).stdout
    assert "torch._dynamo.config.capture_scalar_outputs = True" in summary
    header = next(line for line in summary.splitlines() if line.startswith("Suggestions"))
    assert f"inspectc suggest {report}" not in header and "notebook.inspectc" not in header  # it would refuse
    assert "made with inspectc.capture(): set one before torch.compile runs and capture again" in summary
    listed = run_cli("suggest", str(report), "--list", check=True).stdout  # --list needs no re-run
    assert "would try: --config dynamo.capture_scalar_outputs=True" in listed
    refused = run_cli("suggest", str(report))
    assert refused.returncode != 0 and "Traceback" not in refused.stderr
    assert "made by inspectc.capture()" in refused.stderr and "--list" in refused.stderr


# ---------------------------------------------------------------------------
# Item 4: a break's resume edge goes to its own code's resume function, by code identity


def test_outer_and_inner_forward_resume_in_their_own_functions() -> None:
    from inspectc.model import Frame, GraphBreak, StackFrame
    from inspectc.render.graph.breaks import resume_target

    def stack(*lines: tuple[int, str]) -> tuple[StackFrame, ...]:
        return tuple(StackFrame(filename="m.py", line=n, function=fn) for n, fn in lines)

    # Outer.forward (m.py:10) calls self.inner(x) at 14; Inner.forward (m.py:3) prints at 5.
    gb = GraphBreak(reason="print", filename="m.py", line=5)
    outer_stack = stack((20, "<module>"), (14, "forward"), (5, "forward"))
    resume = "torch_dynamo_resume_in_forward_at_"
    frames = [
        Frame(
            compile_id=CompileId.parse("0/0"),
            ordinal=0,
            function="forward",
            filename="m.py",
            line=10,
            status="graph_break",
            graph_breaks=(dataclasses.replace(gb, user_stack=outer_stack),),
        ),
        Frame(
            compile_id=CompileId.parse("1/0"),
            ordinal=1,
            function="forward",
            filename="m.py",
            line=3,
            status="graph_break",
            graph_breaks=(dataclasses.replace(gb, user_stack=outer_stack),),
        ),
        Frame(compile_id=CompileId.parse("2/0"), ordinal=2, function=f"{resume}5", filename="m.py", line=5),
        Frame(compile_id=CompileId.parse("3/0"), ordinal=3, function=f"{resume}14", filename="m.py", line=14),
        Frame(
            compile_id=CompileId.parse("4/0"), ordinal=4, function=f"{resume}14", filename="other.py", line=14
        ),
    ]
    outer_target = resume_target(frames[0], frames)
    inner_target = resume_target(frames[1], frames)
    assert outer_target is not None and str(outer_target.compile_id) == "3/0"
    assert inner_target is not None and str(inner_target.compile_id) == "2/0"


# ---------------------------------------------------------------------------
# Item 1: frames named as the user knows them (stack and guard as a tiny GPT-2 records them)


def test_wrapper_frame_is_named_by_the_model_method_and_the_users_call(tmp_path: Path) -> None:
    from conftest import run_cli

    from inspectc.model import Frame, Guard, Run, StackFrame
    from inspectc.store.factory import ReportFactory
    from inspectc.trace import names

    site = "/venv/lib/python3.11/site-packages"
    stack = (
        StackFrame(
            filename=str(tmp_path / "gpt2.py"), line=9, function="<module>", code="out = compiled(ids)"
        ),
        StackFrame(filename=f"{site}/torch/_dynamo/eval_frame.py", line=511, function="__call__"),
        StackFrame(filename=f"{site}/torch/nn/modules/module.py", line=1778, function="_wrapped_call_impl"),
        StackFrame(filename=f"{site}/torch/nn/modules/module.py", line=1789, function="_call_impl"),
        StackFrame(filename=f"{site}/torch/_dynamo/eval_frame.py", line=1166, function="compile_wrapper"),
        StackFrame(filename=f"{site}/transformers/utils/generic.py", line=1075, function="wrapper"),
    )
    guard = Guard(
        kind="TYPE_MATCH",
        source="L['self']",
        code="___check_type_id(L['self'], 9463), type=<class 'transformers.models.gpt2.modeling_gpt2.GPT2LMHeadModel'>",
    )
    wrapper = stack[-1]
    name = names.callable_name(wrapper.function, wrapper.filename, stack, (guard,))
    assert name == "GPT2LMHeadModel.forward"
    assert names.call_site(stack) == stack[0]
    assert (
        names.callable_name("f", str(tmp_path / "gpt2.py"), stack[:1], ()) is None
    )  # a function: its own name

    report = tmp_path / "gpt2.inspectc"
    made = ReportFactory(report, Run(argv=("inspectc", "run", "gpt2.py"), cwd=str(tmp_path), exit_code=0))
    made.frame(
        Frame(
            compile_id=CompileId.parse("0/0"),
            function="wrapper",
            filename=wrapper.filename,
            line=wrapper.line,
            status="ok",
            user_stack=stack,
            callable_name=name,
            call_site=stack[0],
        )
    )
    made.close()
    summary = run_cli("summary", str(report), check=True).stdout
    row = next(line for line in summary.splitlines() if line.strip().startswith("0/0"))
    assert "GPT2LMHeadModel.forward (wrapper)" in row and "called at gpt2.py:9" in row
    with open_report(report) as opened:
        page = share_page(opened)
    assert "GPT2LMHeadModel.forward (wrapper)" in render_markdown(page)


def test_decorated_methods_are_named_from_the_guards_dynamo_wrote() -> None:
    """``torch.compile(model.generate)`` on a tiny GPT-2 (transformers 4.5x, torch 2.13):
    Dynamo compiles ``wrapped_func`` (deprecation.py) and, after generate()'s breaks, the
    ``wrapper`` of forward called straight from ``_sample``. Guards as that run recorded them."""
    from inspectc.model import Guard, StackFrame
    from inspectc.trace import names

    site = "/venv/lib/python3.11/site-packages/transformers"
    gpt2 = "type=<class 'transformers.models.gpt2.modeling_gpt2.GPT2LMHeadModel'>"
    deprecated = f"{site}/utils/deprecation.py"
    user = StackFrame(filename="/home/u/gen.py", line=11, function="main")
    wrapped = (
        Guard(kind="TYPE_MATCH", source="L['args'][0]", code=f"___check_type_id(L['args'][0], 9), {gpt2}"),
        Guard(kind="EQUALS_MATCH", source="L['func'].__name__", code="L['func'].__name__ == 'generate'"),
    )
    stack = (user, StackFrame(filename=deprecated, line=126, function="wrapped_func"))
    assert names.callable_name("wrapped_func", deprecated, stack, wrapped) == "GPT2LMHeadModel.generate"
    # a plain function wrapped the same way: its own name, no class from a tensor argument
    plain = (
        Guard(
            kind="TYPE_MATCH",
            source="L['args'][0]",
            code="___check_type_id(L['args'][0], 9), type=<class 'tuple'>",
        ),
        Guard(kind="EQUALS_MATCH", source="L['func'].__name__", code="L['func'].__name__ == 'pad_rows'"),
    )
    assert names.callable_name("wrapped_func", deprecated, stack, plain) == "pad_rows"
    # forward's wrapper called by generate's _sample, no module call in between
    generic = f"{site}/utils/generic.py"
    stack = (
        user,
        StackFrame(filename=f"{site}/generation/utils.py", line=3239, function="_sample"),
        StackFrame(filename=generic, line=1075, function="wrapper"),
    )
    self_guard = Guard(kind="TYPE_MATCH", source="L['self']", code=f"___check_type_id(L['self'], 9), {gpt2}")
    assert names.callable_name("wrapper", generic, stack, (self_guard,)) == "GPT2LMHeadModel.forward"
    assert names.callable_name("wrapper", generic, stack, ()) is None  # nothing to tell it by


def test_a_compiled_sequential_or_ddp_is_named_after_the_module_not_torchs_inner() -> None:
    """torch.compile(nn.Sequential(...)) (and DDP, FSDP) compiles external_utils' ``inner(*args)``,
    which calls ``fn``, the module: a held-out run showed ``inner .../torch/_dynamo/external_utils.py:67``."""
    from inspectc.model import Guard, StackFrame
    from inspectc.trace import names

    inner = "/venv/lib/python3.11/site-packages/torch/_dynamo/external_utils.py"
    seq = "type=<class 'torch.nn.modules.container.Sequential'>"
    guards = (
        Guard(
            kind="TYPE_MATCH", source="L['args']", code="___check_type_id(L['args'], 1), type=<class 'tuple'>"
        ),
        Guard(kind="TYPE_MATCH", source="L['fn']", code=f"___check_type_id(L['fn'], 2), {seq}"),
    )
    stack = (StackFrame(filename="/home/u/m.py", line=6, function="<module>"),)
    assert names.callable_name("inner", inner, stack, guards) == "Sequential.forward"
    function = (
        Guard(
            kind="TYPE_MATCH", source="L['fn']", code="___check_type_id(L['fn'], 3), type=<class 'function'>"
        ),
    )
    assert names.callable_name("inner", inner, stack, function) is None  # a function: nothing to add
