"""`inspectc suggest` and `inspectc run --config`, on real runs of the suggest_* samples.

Each candidate fix is proven by re-running the user's own script under capture with it: the
tests check what the re-run's report holds (opened independently), not what suggest printed.
The samples use backend="eager": Dynamo's breaks and recompiles are the point, not Inductor.
"""

from __future__ import annotations

import ast
import json
import textwrap
from pathlib import Path

import pytest
from conftest import Captures, run_cli

from inspectc.analysis.resume import bytecode, created_by
from inspectc.store.open import open_report

pytestmark = [pytest.mark.usefixtures("captures"), pytest.mark.capture]  # every test runs capture


def torch_minor() -> tuple[int, int]:
    import torch

    major, minor = torch.__version__.split(".")[:2]
    return int(major), int(minor)


def _counts(report: Path) -> tuple[int, int, int]:
    """(frames, graph breaks, recompiles) read from the report file itself."""
    with open_report(report) as r:
        frames = list(r.frames)
    return len(frames), sum(len(f.graph_breaks) for f in frames), sum(len(f.recompiles) for f in frames)


def _trial_reports(base: Path, word: str) -> list[Path]:
    stem = base.name.removesuffix(".inspectc")
    return sorted(base.parent.glob(f"{stem}.{word}-*.inspectc"))


def test_item_break_disappears_with_capture_scalar_outputs(captures: Captures) -> None:
    run = captures.get("suggest_item.py", label="suggest")
    assert run.proc.returncode == 0, run.proc.stderr
    frames, breaks, _ = _counts(run.report)
    assert breaks == 1 and frames >= 2

    summary = run_cli("summary", str(run.report), check=True).stdout
    assert "Suggestions (1" in summary
    assert "torch._dynamo.config.capture_scalar_outputs = True" in summary
    data = json.loads(run_cli("export", str(run.report), check=True).stdout)
    assert [s["config"] for s in data["suggestions"]] == ["dynamo.capture_scalar_outputs=True"]

    proc = run_cli("suggest", str(run.report), check=True, cwd=run.report.parent)
    out = proc.stdout
    assert "--config dynamo.capture_scalar_outputs=True" in out
    assert "break gone: suggest_item.py:7" in out
    assert "output: same as without the change" in out
    assert "verdict: helps" in out and "torch._dynamo.config.capture_scalar_outputs = True" in out
    (trial,) = _trial_reports(run.report, "suggest")
    (base,) = _trial_reports(run.report, "baseline")
    assert _counts(base)[1] == 1
    assert _counts(trial) == (1, 0, 0)  # one frame, no break, no recompile
    with open_report(trial) as r:
        config = [(c.key, c.value, c.origin) for c in r.run.options.config]
    assert ("dynamo.capture_scalar_outputs", "True", "--config") in config
    # the resume function the break made, with the bytecode torch 2.12+ logs for it
    with open_report(run.report) as r:
        frames = list(r.frames)
        (gb,) = [b for f in frames for b in f.graph_breaks]
        made = created_by(frames, gb.filename, gb.line)
        assert made and made[0].function == "torch_dynamo_resume_in_scale_at_7"
        code = bytecode(r, made[0])
    if torch_minor() >= (2, 12):
        assert code.original is not None and "RESUME" in code.original
        assert code.modified is not None and "__compiled_fn" in code.modified
    # the pair diffs as any two reports do
    diff = run_cli("diff", str(base), str(trial))
    assert diff.returncode in (0, 1) and "Traceback" not in diff.stderr


def test_recompile_storm_stops_when_the_size_is_marked_dynamic(captures: Captures) -> None:
    run = captures.get("suggest_storm.py", label="suggest")
    assert run.proc.returncode == 0, run.proc.stderr
    frames, _, recompiles = _counts(run.report)
    assert frames >= 5 and recompiles >= 4  # a new specialisation for each length

    out = run_cli("suggest", str(run.report), "--only", "compiler.dynamic_sources", check=True).stdout
    assert "--config compiler.dynamic_sources=" in out
    assert "verdict: helps" in out
    (trial,) = _trial_reports(run.report, "suggest")
    t_frames, _, t_recompiles = _counts(trial)
    assert t_recompiles == 0 and t_frames == 1
    assert "output: same as without the change" in out  # the script prints its total


def test_break_without_config_remedy_says_so_and_exits_0(captures: Captures) -> None:
    run = captures.get("suggest_nofix.py", label="suggest")
    proc = run_cli("suggest", str(run.report))
    assert proc.returncode == 0, proc.stderr
    assert "0 config remedies to try, 1 code change" in proc.stdout
    assert "remove the torch._dynamo.graph_break() call" in proc.stdout
    assert "torch_dynamo_resume_in_two_halves_at_8" in proc.stdout  # the resume function it made
    assert not _trial_reports(run.report, "suggest")  # nothing was re-run
    summary = run_cli("summary", str(run.report), check=True).stdout
    assert "no config change is known to remove these" in summary


def test_run_records_config_it_set_and_what_the_script_changed(tmp_path: Path) -> None:
    script = tmp_path / "tweak.py"
    script.write_text(
        textwrap.dedent(
            """
            import torch
            torch._dynamo.config.recompile_limit = 3
            f = torch.compile(lambda x: x / x.abs().max().item(), backend="eager")
            print(f(torch.ones(2)).sum().item())
            """
        )
    )
    report = tmp_path / "tweak.inspectc"
    proc = run_cli(
        "run",
        "-q",
        "-o",
        str(report),
        "--config",
        "dynamo.capture_scalar_outputs=True",
        str(script),
        cwd=tmp_path,
        check=True,
    )
    assert proc.returncode == 0
    assert "Warning" not in proc.stderr  # reading torch's options says nothing (deprecated ones)
    with open_report(report) as r:
        config = {(c.key, c.value, c.origin) for c in r.run.options.config}
        breaks = sum(len(f.graph_breaks) for f in r.frames)
    assert ("dynamo.capture_scalar_outputs", "True", "--config") in config
    assert ("dynamo.recompile_limit", "3", "run") in config  # the script's own change
    assert not any(key.startswith("inductor.trace.provenance") for key, _, _ in config)  # ours, put back
    assert breaks == 0  # the setting took effect: .item() was captured


@pytest.mark.parametrize(
    ("item", "words"),
    [
        ("nonsense", "--config wants KEY=VALUE"),
        ("torch.x=1", "--config wants KEY=VALUE"),
        ("dynamo.no_such_option_here=1", "this torch has no torch._dynamo.config.no_such_option_here"),
    ],
)
def test_bad_config_is_one_line(tmp_path: Path, item: str, words: str) -> None:
    script = tmp_path / "s.py"
    script.write_text("print('ran')\n")
    proc = run_cli(
        "run", "-q", "-o", str(tmp_path / "s.inspectc"), "--config", item, str(script), cwd=tmp_path
    )
    assert "Traceback" not in proc.stderr
    assert words in proc.stderr


def test_remedies_for_a_hit_recompile_limit_and_a_fatal_fullgraph_break(tmp_path: Path) -> None:
    """torch 2.13 words the limit "Dynamo recompile limit exceeded" (no option in parentheses),
    and a break fullgraph=True made fatal is a failure, not a break: both still get their remedy."""
    script = tmp_path / "limits.py"
    script.write_text(
        textwrap.dedent(
            """
            import torch
            torch._dynamo.config.recompile_limit = 2
            f = torch.compile(lambda x: (x * x).sum(), backend="eager", dynamic=False)
            for n in range(2, 6):
                f(torch.ones(n))

            def strict(x):
                print("here")
                return x + 1

            try:
                torch.compile(strict, backend="eager", fullgraph=True)(torch.ones(2))
            except Exception as exc:
                print("fullgraph failed:", type(exc).__name__)
            """
        )
    )
    report = tmp_path / "limits.inspectc"
    run_cli("run", "-q", "-o", str(report), str(script), cwd=tmp_path, check=True)
    out = run_cli("suggest", "--list", str(report), check=True).stdout
    assert "--config dynamo.recompile_limit=64  (recompile limit hit)" in out, out
    assert "--config dynamo.reorderable_logging_functions+=print" in out, out
    assert "at failure " in out and "limits.py:9" in out, out


def test_dynamic_sources_remedy_names_a_source_torch_matches() -> None:
    """A recompile of DDP's forward names ``tensor 'args[0]'``: the remedy said
    dynamic_sources='args[0]', which torch matches from the start of ``L['args'][0]``: never."""
    pytest.importorskip("torch")
    from torch._dynamo.variables.builder import is_dynamic_source

    from inspectc.analysis.remedies import remedies
    from inspectc.model import CompileId, Frame, Recompile

    changes = []
    for local in ("args[0]", "x"):
        text = f"tensor '{local}' size mismatch at index 0. expected 4, actual 6"
        frame = Frame(compile_id=CompileId.parse("0/1"), recompiles=(Recompile(text=text),))
        (change,) = [r.change for r in remedies([frame]) if r.change is not None]
        assert change.key == "compiler.dynamic_sources"
        changes.append(ast.literal_eval(change.value))  # the value is a Python literal
    import torch

    for value, source in zip(changes, ("L['args'][0]", "L['x']"), strict=True):
        with torch.compiler.config.patch(dynamic_sources=value):
            assert is_dynamic_source(source), (value, source)


def test_a_size_mismatch_behind_a_grad_mode_change_is_still_remedied() -> None:
    """Real torch 2.13 reasons (``tests/data/reasons``, make_samples.py's ``global_state``): the
    newest cache entry failed on grad mode (compiled under no_grad), an older one on the call's
    size. The remedy reads every entry's failed guard, not only the newest."""
    from inspectc.analysis.remedies import remedies
    from inspectc.model import CompileId, Frame
    from inspectc.trace.payloads.breaks import parse_recompile_reasons

    payload = (Path(__file__).parent / "data" / "reasons" / "2.13.0-cpu-global_state-0_3.txt").read_text()
    rec = parse_recompile_reasons(payload)
    assert rec is not None and rec.text.startswith("0/2: GLOBAL_STATE changed")  # torch's newest
    assert any("size mismatch" in f.text for f in rec.failed[1:])
    frame = Frame(compile_id=CompileId.parse("0/3"), recompiles=(rec,))
    changes = [r.change for r in remedies([frame]) if r.change is not None]
    assert [(c.key, ast.literal_eval(c.value)) for c in changes] == [("compiler.dynamic_sources", "L['x']")]


def test_a_change_that_helps_but_changes_the_output_says_so() -> None:
    """Fewer breaks with the same exit is "helps"; when the script then prints something else
    (and does not vary by itself) the verdict says to check the output before keeping it."""
    from inspectc.cli.suggest import Trial, _verdict

    def trial(stdout: str, *, noisy: bool = False, exit_code: int = 0) -> Trial:
        return Trial("t", Path("r.inspectc"), exit_code, stdout, 1.0, noisy=noisy)

    python = "torch._dynamo.config.capture_scalar_outputs = True"
    same = _verdict(trial("loss 1.0\n"), trial("loss 1.0\n"), True, python)
    assert same.startswith("helps; to keep it") and python in same
    changed = _verdict(trial("loss 1.0\n"), trial("loss 2.0\n"), True, python)
    assert changed.startswith("helps, but the script's output changed") and python in changed
    noisy = _verdict(trial("t=1\n", noisy=True), trial("t=2\n"), True, python)  # varies by itself
    assert noisy.startswith("helps; to keep it")
    assert _verdict(trial(""), trial(""), False, python).startswith("does not help here")
    assert _verdict(trial(""), trial("", exit_code=1), True, python).startswith("does not help here")
