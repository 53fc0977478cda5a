"""Fusion groups and kernel timings on CPU, cold and warm Inductor cache (issue 3).

Real torch.compile through the installed CLI. The sin(sin(x)) example must give one kernel
fusing exactly `sin` and `sin_1`; the MLP one kernel fusing GELU and LayerNorm plus extern
addmm kernels; every kernel timed with no more calls than the program made.
"""

from __future__ import annotations

import pytest
from conftest import SAMPLES, CapturedRun, Captures, run_cli

from inspectc.store.open import open_report

pytestmark = pytest.mark.capture

SIN_CALLS = 12
MLP_STEPS = 12


@pytest.fixture(scope="module", params=["cold", "warm"])
def sin_run(request: pytest.FixtureRequest, captures: Captures) -> CapturedRun:
    args = ("--device", "cpu", "--calls", str(SIN_CALLS))
    cold = captures.get("sin_sin.py", *args, cache="fusion-sin")
    if request.param == "cold":
        return cold
    return captures.get("sin_sin.py", *args, cache="fusion-sin", label="warm")


@pytest.fixture(scope="module", params=["cold", "warm"])
def mlp_run(request: pytest.FixtureRequest, captures: Captures) -> CapturedRun:
    args = ("--steps", str(MLP_STEPS))
    cold = captures.get("mlp_train.py", *args, cache="fusion-mlp")
    if request.param == "cold":
        return cold
    return captures.get("mlp_train.py", *args, cache="fusion-mlp", label="warm")


def test_sin_sin_is_one_kernel_fusing_both_sins(sin_run: CapturedRun) -> None:
    assert sin_run.proc.returncode == 0, sin_run.proc.stderr
    with open_report(sin_run.report) as report:
        (frame,) = report.frames
        expected = "hit" if "warm" in sin_run.report.name else "miss"
        assert frame.cache.get("fx_graph") == expected
        (kernel,) = report.frame_kernels(frame.compile_id)
        assert kernel.language == "cpp" and kernel.kind == "pointwise"
        assert kernel.fused_nodes == ("sin", "sin_1")
        # origins are the user's ops (Dynamo names them after the variables) and lines
        source = (SAMPLES / "sin_sin.py").read_text().splitlines()
        sin_lines = {n for n, text in enumerate(source, 1) if "torch.sin(" in text}
        assert len(kernel.origins) == 2
        assert {o.line for o in kernel.origins} == sin_lines
        assert all(o.filename and o.filename.endswith("sin_sin.py") for o in kernel.origins)
        assert kernel.time is not None
        assert 1 <= kernel.time.calls <= SIN_CALLS - 1  # the compiling call is never measured
        assert kernel.time.min_us <= kernel.time.mean_us <= kernel.time.max_us
        assert kernel.time.share == pytest.approx(1.0)
        assert frame.region_calls and frame.region_time_us and frame.region_time_us >= kernel.time.total_us


def test_mlp_fuses_gelu_and_layernorm_and_times_every_kernel(mlp_run: CapturedRun) -> None:
    assert mlp_run.proc.returncode == 0, mlp_run.proc.stderr
    with open_report(mlp_run.report) as report:
        (frame,) = report.frames
        kernels = report.frame_kernels(frame.compile_id)
        forward = [k for k in kernels if k.graph_kind == "output_code"]
        fused = [k for k in forward if {"gelu", "layer_norm"} <= {o.op for o in k.origins}]
        assert len(fused) == 1, [(k.name, k.origins) for k in forward]
        (gelu_ln,) = fused
        assert gelu_ln.language == "cpp" and "erf" in gelu_ln.fused_nodes
        assert "var_mean" in gelu_ln.fused_nodes
        modules = {o.module for o in gelu_ln.origins if o.module}
        assert {"layers.0.norm", "layers.1.norm"} <= modules
        addmms = [k for k in forward if k.language == "extern" and "addmm" in k.name]
        assert len(addmms) == 5  # 2 blocks x 2 Linear + the head
        assert all(len(k.fused_nodes) == 1 and k.fused_nodes[0].startswith("addmm") for k in addmms)
        assert len({k.fused_nodes for k in addmms}) == 5  # each call site its own group
        for k in kernels:
            assert k.time is not None, k.name
            assert 1 <= k.time.calls <= MLP_STEPS - 1, (k.name, k.time)
        shares = sum(k.time.share or 0 for k in forward if k.time)
        assert shares == pytest.approx(1.0, abs=1e-6) or shares < 1.0


def test_no_timings_and_no_provenance_turn_them_off(captures: Captures) -> None:
    run = captures.get(
        "sin_sin.py",
        "--device",
        "cpu",
        "--calls",
        "3",
        cache="fusion-off",
        run_opts=("--no-timings", "--no-provenance"),
    )
    assert run.proc.returncode == 0, run.proc.stderr
    with open_report(run.report) as report:
        (kernel,) = report.kernels
        assert kernel.time is None and kernel.fused_nodes == ()
        assert report.run.options.timings is False and report.run.options.provenance is False


def test_training_step_times_shown_add_up_to_what_the_profiler_measured(mlp_run: CapturedRun) -> None:
    """A real CPU training step (MLP forward + backward, Inductor): every measured range inside
    the frame's graph calls reaches a kernel or is listed as not one, and the kernels shown add
    up to the profiler's graph-call time."""
    assert mlp_run.proc.returncode == 0, mlp_run.proc.stderr
    with open_report(mlp_run.report) as report:
        (frame,) = report.frames
        timing = frame.timing
        assert timing is not None and timing.time_base == "cpu"
        assert timing.threads and timing.cpus and timing.load_avg
        kernels = report.frame_kernels(frame.compile_id)
        shown = sum(k.time.total_us for k in kernels if k.time)
        assert {k.graph_kind for k in kernels if k.time} == {"output_code", "output_code_backward"}
        # shown == what reached a kernel (each stored to 1 ns: 0.001 µs per kernel)
        assert shown == pytest.approx(timing.attributed_us, abs=0.001 * len(kernels) + 1e-6)
        assert timing.attributed_us is not None and timing.kernels_us is not None
        assert timing.attributed_us + sum(timing.unattributed.values()) == pytest.approx(
            timing.kernels_us, abs=0.01
        )
        # Against the profiler's own measurement of the frame (its graph-call ranges): the
        # ranges are nested in the calls, so the sum cannot exceed them. What lies between is
        # the wrapper's Python between launches, which on this small MLP is as long as the
        # kernels themselves on a quiet machine (49% kernels seen) and far less on a busy one,
        # so no lower bound holds here; that nothing measured was dropped is proven above
        # (attributed + unattributed == measured), below (every kernel of both graphs timed)
        # and by the second launch of the fused kernel being counted.
        assert timing.graph_us is not None
        assert 0 < shown <= timing.graph_us
        fused = [k for k in kernels if k.time and k.time.launches and k.time.launches > 1]
        assert fused, "the GELU/LayerNorm kernel runs once per block: two launches per call"
        for k in kernels:
            t = k.time
            assert t is not None and t.median_us is not None and t.p90_us is not None
            assert len(t.samples) == t.calls and sum(t.samples) == pytest.approx(t.total_us, abs=0.01)
            assert t.min_us <= t.median_us <= t.p90_us <= t.max_us


def test_kernels_says_why_nothing_was_timed_when_timings_were_on(captures: Captures) -> None:
    # one call only: the compiling call is never timed
    run = captures.get("sin_sin.py", "--device", "cpu", "--calls", "1", cache="fusion-sin", label="once")
    assert run.proc.returncode == 0, run.proc.stderr
    proc = run_cli("kernels", str(run.report), check=True)
    assert "run without --no-timings" not in proc.stdout
    assert "timings were on, but no kernel was timed" in proc.stdout
    assert "never timed" in proc.stdout
