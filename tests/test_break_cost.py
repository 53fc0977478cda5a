"""What each graph break costs, measured on a real run and checked against the script's own
clock: ``samples/break_cost.py`` has a ``torch._dynamo.disable``d call doing ~20 ms of eager
work per call (it times itself with ``time.perf_counter``) and a ``print`` (cheap). inspectc
must rank the expensive one first, within 25% of the script's own median, and call the print
cheap (under 1 ms). Every output says so from the one section model; ``check`` gates on it;
``suggest`` reports the time a fix saves per call."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import rawcount
from conftest import CapturedRun, Captures, run_cli

pytestmark = pytest.mark.capture


@pytest.fixture(scope="module")
def measured(captures: Captures) -> CapturedRun:
    run = captures.get("break_cost.py", "--ms", "20", "--steps", "14")
    assert run.proc.returncode == 0, run.proc.stderr[-2000:]
    return run


def _own_ms(run: CapturedRun) -> float:
    found = re.search(r"expensive\(\) median ([\d.]+) ms", run.proc.stdout)
    assert found, run.proc.stdout[-500:]
    return float(found.group(1))


def test_the_expensive_break_ranks_first_within_a_quarter_of_the_scripts_own_clock(
    measured: CapturedRun,
) -> None:
    data = json.loads(run_cli("export", str(measured.report), check=True).stdout)
    costs = data["costs"]["breaks"]
    assert [c["line"] for c in costs] == [32, 33], costs  # expensive(...) first, then print
    dear, cheap = costs
    own = _own_ms(measured)
    assert dear["measured"] and dear["cost_us"] == pytest.approx(own * 1000, rel=0.25), (dear, own)
    assert dear["host_gap"]["calls"] >= 5 and not dear["cheap"]
    assert cheap["measured"] and cheap["cost_us"] < 1000 and cheap["cheap"]
    assert dear["share_of_call"] > cheap["share_of_call"]
    # the frame and the two resumes its breaks made, counted off the raw log by the independent counter
    logs = sorted(measured.trace_dir.glob("*.log"))
    assert (
        logs and sum(rawcount.summary(p)["frames"] for p in logs) == 3 == data["summary"]["counts"]["frames"]
    )


def test_every_output_ranks_it_first(measured: CapturedRun) -> None:
    summary = run_cli("summary", str(measured.report), check=True).stdout
    section = summary.split("What to fix first", 1)[1]
    first, second = [line for line in section.splitlines() if "break at" in line][:2]
    assert "break_cost.py:32" in first and "break_cost.py:33" in second
    assert "cheap" in section.split("break_cost.py:33", 1)[1].split("\n\n", 1)[0]
    assert "move it out of the compiled function" in first  # the disabled call's remedy
    data = json.loads(run_cli("export", str(measured.report), check=True).stdout)
    (costs,) = [s for s in data["summary"]["sections"] if s["key"] == "costs"]
    assert "break_cost.py:32" in costs["items"][0]["text"]


def test_check_gates_on_a_breaks_cost(measured: CapturedRun) -> None:
    over = run_cli("check", str(measured.report), "--max-break-cost-ms", "5")
    assert over.returncode == 1 and "break cost: 1" in over.stdout and "break_cost.py:32" in over.stdout
    under = run_cli("check", str(measured.report), "--max-break-cost-ms", "1000")
    assert under.returncode == 0, under.stdout
    gated = json.loads(run_cli("check", str(measured.report), "--max-break-cost-ms", "5", "--json").stdout)
    assert gated["counts"]["break_cost_over"] == 1


@pytest.mark.timeout(900)
def test_suggest_says_the_time_a_fix_saves_per_call(measured: CapturedRun) -> None:
    proc = run_cli("suggest", str(measured.report), "--yes", cwd=measured.report.parent)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "--config dynamo.reorderable_logging_functions+=print" in out
    found = re.search(
        r"time per call of break_cost\.py:step\(\): ([\d.]+) ms -> ([\d.]+) ms \(n=(\d+)/(\d+)\)", out
    )
    assert found, out
    before, after = float(found.group(1)), float(found.group(2))
    own = _own_ms(measured)
    assert before > own and after > own  # the expensive call stays; only the print's break went
    assert "within noise" in out or "saves" in out or "costs" in out


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_transformers_model_with_a_real_break(captures: Captures) -> None:
    """A tiny GPT-2 decoding step whose sampling helper runs eagerly: its break measured as the
    helper's own clock says, and ranked first."""
    run = captures.get("hf_break_cost.py", "--steps", "12")
    assert run.proc.returncode == 0, run.proc.stderr[-2000:]
    found = re.search(r"sample_next\(\) median ([\d.]+) ms", run.proc.stdout)
    assert found, run.proc.stdout[-500:]
    data = json.loads(run_cli("export", str(run.report), check=True).stdout)
    first = data["costs"]["breaks"][0]
    assert first["measured"] and "hf_break_cost.py" in first["filename"]
    assert first["cost_us"] == pytest.approx(float(found.group(1)) * 1000, rel=0.25), first


GPU = Path(__file__).parent / "data" / "gpu"


@pytest.mark.parametrize(
    ("name", "waits_on"),
    [("h100-break-cost.inspectc", "host"), ("h100-break-cost-hidden.inspectc", "device")],
)
def test_on_cuda_a_host_gap_costs_only_what_the_device_waits_for(name: str, waits_on: str) -> None:
    """Captured on an H100 (tests/data/gpu/README.md): the same 20 ms host gap (the script's own
    median, 20.06 ms) costs the call its length when the compiled kernels wait for it, and
    nothing when the GPU had queued work over it; the line says which."""
    data = json.loads(run_cli("export", str(GPU / name), check=True).stdout)
    dear = next(c for c in data["costs"]["breaks"] if c["line"] == 32)
    assert dear["host_gap"]["median_us"] == pytest.approx(20_060, rel=0.05), dear
    assert dear["waits_on"] == waits_on
    summary = run_cli("summary", str(GPU / name), check=True).stdout
    if waits_on == "host":
        assert dear["cost_us"] == pytest.approx(20_060, rel=0.05) and not dear["cheap"]
        assert "(the call waits on it)" in summary
    else:
        assert dear["cost_us"] < 200 and dear["cheap"]  # under 1% of the gap
        assert "hidden: the device had queued work" in summary
        assert data["costs"]["breaks"][0]["line"] == 33  # the print now costs more than it


@pytest.mark.parametrize("hide", [False, True])
def test_live_on_cuda(captures: Captures, hide: bool) -> None:
    """The same on a GPU, captured now (skips without CUDA; benchmarks/gpu_break_cost.sh)."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA GPU (benchmarks/gpu_break_cost.sh runs it on the GPU machine)")
    run = captures.get("break_cost.py", "--device", "cuda", "--steps", "16", *(["--hide"] if hide else []))
    assert run.proc.returncode == 0, run.proc.stderr[-2000:]
    data = json.loads(run_cli("export", str(run.report), check=True).stdout)
    dear = next(c for c in data["costs"]["breaks"] if c["line"] == 32)
    own = _own_ms(run) * 1000
    assert dear["host_gap"]["median_us"] == pytest.approx(own, rel=0.25)
    assert dear["waits_on"] == ("device" if hide else "host")
    assert (dear["cost_us"] < own / 10) if hide else (dear["cost_us"] == pytest.approx(own, rel=0.25))
