"""On the Hugging Face workloads (tiny configs, no download), frames are named as the user knows
them (issue 28): in the summary, the TUI and the share page every frame's name is the model's
class and method, never the wrapper Dynamo compiled (transformers' ``wrapper``, torch's
``inner``...), a wrapper's location is the user's call, and every stack (a frame's, a break's)
starts in the user's script. The captures are the session's (tests/test_workloads.py and
tests/test_capture.py make the same ones), so this file adds readers' time only.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from conftest import CapturedRun, Captures, run_cli

from inspectc.analysis.resume import shown_function
from inspectc.cli.share import share
from inspectc.render.export import export_report
from inspectc.store.open import open_report

pytestmark = pytest.mark.capture

# (sample, its arguments as the other tests capture it, the model class its frames run)
WORKLOADS = [
    ("hf_bert.py", ("--device", "cpu", "--layers", "1"), "BertModel"),
    ("hf_generate.py", ("--device", "cpu", "--layers", "1", "--new-tokens", "4"), "GPTNeoXForCausalLM"),
    ("hf_pipeline.py", ("--device", "cpu", "--new-tokens", "2"), "GPTNeoXForCausalLM"),
    ("gpt2_tiny.py", ("--steps", "2"), "GPT2LMHeadModel"),
]
WRAPPERS = {"wrapper", "wrapped_func", "inner", "_fn", "decorate_context", "_call_impl", "_wrapped_call_impl"}


@pytest.fixture(params=WORKLOADS, ids=[w[0].removesuffix(".py") for w in WORKLOADS])
def hf(request: pytest.FixtureRequest, captures: Captures) -> tuple[CapturedRun, str, str]:
    sample, args, model = request.param
    pytest.importorskip("transformers")
    if sample == "hf_pipeline.py":
        pytest.importorskip("tokenizers")
    run = captures.get(sample, *args)
    assert run.proc.returncode == 0, run.proc.stderr[-3000:]
    return run, sample, model


def head(name: str) -> str:
    """``GPT2LMHeadModel.forward (wrapper)`` -> ``GPT2LMHeadModel.forward`` (the wrapper is a detail)."""
    return name.split(" (", 1)[0]


def test_frames_are_named_after_the_model_in_every_view(
    hf: tuple[CapturedRun, str, str], tmp_path: Path
) -> None:
    run, sample, model = hf
    with open_report(run.report) as report:
        frames = report.frames
        breaks = [gb for f in frames for gb in f.graph_breaks]
        exported = json.loads(json.dumps(export_report(report, sources=False)))
    assert frames
    names = {head(shown_function(f)) for f in frames}
    assert names == {f"{model}.forward"}, names
    # every stack starts at the user's script: the frames' and the breaks'
    for stack in [f.user_stack for f in frames] + [gb.user_stack for gb in breaks]:
        assert stack and Path(stack[0].filename or "").name == sample, stack[:2]
    for f in exported["frames"]:
        assert Path(f["user_stack"][0]["filename"]).name == sample
        assert f["callable_name"] == f"{model}.forward"
        for gb in f["graph_breaks"]:
            assert Path(gb["user_stack"][0]["filename"]).name == sample

    # summary: the frames table names the model and the user's call
    summary = run_cli("summary", str(run.report)).stdout
    lines = summary.splitlines()
    top = next(i for i, line in enumerate(lines) if line.split()[:2] == ["frame", "function"])
    rows = lines[top + 1 : top + 1 + len(frames)]
    for row in rows:
        assert row.split()[1] == f"{model}.forward", row
        assert f"called at {sample}:" in row or f"/{sample}:" in row, row
    # share: Markdown and HTML frames tables
    shared = share(run.report, output_dir=tmp_path / "share", html=True)
    markdown = shared.markdown.read_text(encoding="utf-8")
    cells = [c.strip() for line in markdown.splitlines() if line.startswith("|") for c in line.split("|")]
    assert f"{model}.forward (wrapper)" in cells or f"{model}.forward" in cells
    assert not WRAPPERS & set(cells)
    assert shared.html is not None and f"{model}.forward" in shared.html.read_text(encoding="utf-8")

    # TUI: the overview's frames table (Textual's test driver)
    functions, locations = asyncio.run(_tui_frames(run.report))
    assert len(functions) == len(frames)
    assert {head(f) for f in functions} == {f"{model}.forward"}, functions
    assert all(loc.startswith("called at ") and f"{sample}:" in loc for loc in locations), locations


async def _tui_frames(path: Path) -> tuple[list[str], list[str]]:
    pytest.importorskip("textual")
    from inspectc_tui.app import InspectcApp
    from inspectc_tui.messages import LoadFailed, ReportLoaded
    from inspectc_tui.overview.tables import FramesTable
    from textual.message import Message

    loaded = asyncio.Event()

    def hook(message: Message) -> None:
        if isinstance(message, ReportLoaded | LoadFailed):
            loaded.set()

    app = InspectcApp(path)
    async with app.run_test(size=(160, 40), message_hook=hook) as pilot:
        await asyncio.wait_for(loaded.wait(), 60)  # the frames load in a worker after the first paint
        await pilot.pause()
        await pilot.pause()
        table = app.query_one(FramesTable)
        keys = table.row_keys()
        cells = [table.cells_for(k) for k in keys]
        return [c[1].plain for c in cells], [c[-1].plain for c in cells]
