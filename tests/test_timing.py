"""KernelTimer on a real torch.compile'd MLP training loop on CPU (no mocks).

One session-scoped run (two compiles: with and without kernel profiling, ~20-40 s on two
cores) feeds every test. The timer is driven exactly as capture drives it: every
`torch.__trace` record goes to `KernelTimer.observe`.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

import pytest

torch = pytest.importorskip("torch")

from inspectc.capture.kineto import kernel_kind  # noqa: E402
from inspectc.capture.timing import KernelTimer  # noqa: E402
from inspectc.trace.kernel_names import op_key, site_number  # noqa: E402

pytestmark = pytest.mark.capture

STEPS = 8
SKIP, COUNT = 1, 3


@dataclass
class TimedRun:
    timer: KernelTimer
    emitted: list[tuple[dict[str, Any], str]]
    baseline: list[Any]
    timed: list[Any]
    losses: tuple[list[float], list[float]]
    hook_after_window: Any = "not read"


class _Feed(logging.Handler):
    def __init__(self, timer: KernelTimer) -> None:
        super().__init__(logging.DEBUG)
        self.timer = timer

    def emit(self, record: logging.LogRecord) -> None:
        self.timer.observe(getattr(record, "metadata", {}) or {}, getattr(record, "payload", None))


def _train(timer: KernelTimer | None) -> tuple[list[Any], list[float]]:
    torch._dynamo.reset()
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(16, 32), torch.nn.GELU(), torch.nn.LayerNorm(32), torch.nn.Linear(32, 4)
    )
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = torch.randn(8, 16), torch.randint(0, 4, (8,))
    compiled = torch.compile(model)
    losses = []
    for _ in range(STEPS):
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(compiled(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return [p.detach().clone() for p in model.parameters()], losses


@pytest.fixture(scope="module")
def run() -> TimedRun:
    # no compile worker pool to start: the two compiles take half the time on two cores
    with torch._inductor.config.patch(compile_threads=1):
        return _run()


def _run() -> TimedRun:
    baseline, base_losses = _train(None)
    emitted: list[tuple[dict[str, Any], str]] = []
    timer = KernelTimer(SKIP, COUNT, lambda md, payload: emitted.append((md, payload)))
    trace_log = logging.getLogger("torch.__trace")
    handler, old_level = _Feed(timer), trace_log.level
    trace_log.addHandler(handler)
    trace_log.setLevel(logging.DEBUG)
    try:
        timer.start()
        timed, timed_losses = _train(timer)
        from torch._C._dynamo.eval_frame import set_guard_complete_hook

        after_window = set_guard_complete_hook(None)  # what runs in the loop after the window
        set_guard_complete_hook(after_window)
        timer.stop()
    finally:
        trace_log.removeHandler(handler)
        trace_log.setLevel(old_level)
        torch._dynamo.reset()
    return TimedRun(timer, emitted, baseline, timed, (base_losses, timed_losses), after_window)


def _payload(run: TimedRun) -> dict[str, Any]:
    # the timing window also emits the host gaps between graphs (inspectc_region_gaps)
    times = [(md, p) for md, p in run.emitted if "inspectc_kernel_times" in md]
    assert [md["inspectc_kernel_times"]["compile_id"] for md, _ in times] == ["0/0"]
    assert {next(iter(md)) for md, _ in run.emitted} <= {"inspectc_kernel_times", "inspectc_region_gaps"}
    md, payload = times[0]
    assert (md["frame_id"], md["frame_compile_id"]) == (0, 0)
    return json.loads(payload)


def test_results_are_bitwise_identical_with_timing(run: TimedRun) -> None:
    assert run.losses[0] == run.losses[1]
    assert all(torch.equal(a, b) for a, b in zip(run.baseline, run.timed, strict=True))


def test_forward_and_backward_graphs_of_the_frame(run: TimedRun) -> None:
    data = _payload(run)
    assert run.timer.errors == [] and data["errors"] == []
    assert data["window"] == {"skip": SKIP, "count": COUNT}
    phases = {g["phase"]: g for g in data["graphs"]}
    assert set(phases) == {"forward", "backward"}
    for graph in phases.values():
        assert graph["fx_graph_key"]  # backward is tied to 0/0 through its FX graph key
        assert graph["time_base"] == "cpu"
        assert graph["graph"]["calls"] == COUNT
        # the compiling call is never observed: at most STEPS - 1 calls seen
        assert COUNT <= graph["calls_seen"] <= STEPS - 1
        assert 0 < graph["kernels_total"]["mean_us"] <= graph["graph"]["mean_us"]
    assert 0 < phases["forward"]["graph"]["mean_us"] <= phases["forward"]["region"]["mean_us"]


def test_kernel_calls_and_kinds(run: TimedRun) -> None:
    data = _payload(run)
    phases = {g["phase"]: g for g in data["graphs"]}
    fwd = [(k["kind"], k["profiler_name"], k["ordinal"]) for k in phases["forward"]["kernels"]]
    assert [(kind, ordinal) for kind, _, ordinal in fwd] == [("extern", 0), ("cpp", 0), ("extern", 1)]
    assert fwd[0][1] == fwd[2][1] == "aten::addmm"
    assert fwd[1][1].startswith("graph_") and "cpp_fused_gelu_native_layer_norm" in fwd[1][1]
    bwd = phases["backward"]["kernels"]
    assert {k["kind"] for k in bwd} == {"extern", "cpp"}
    assert any(k["profiler_name"] == "aten::mm" for k in bwd)
    for kernel in [*phases["forward"]["kernels"], *bwd]:
        assert kernel["calls"] == COUNT <= STEPS - 1  # never more than the calls made
        assert 0 < kernel["min_us"] <= kernel["median_us"] <= kernel["p90_us"] <= kernel["max_us"]
        assert kernel["min_us"] <= kernel["mean_us"] <= kernel["max_us"]
        assert kernel["total_us"] == pytest.approx(kernel["mean_us"] * kernel["calls"], abs=0.01)
        # every sample kept (under the cap): they are the figures' source
        assert len(kernel["samples"]) == kernel["calls"] == kernel["kept"]
        assert sum(kernel["samples"]) == pytest.approx(kernel["total_us"], abs=0.01)
        assert kernel["launches"] >= kernel["calls"]
    env = data["environment"]
    assert env["threads"] == torch.get_num_threads() and env["cpus"]
    assert len(env["load_avg"]) == 2  # one window: its start and its end
    assert data["region"]["calls"] == COUNT


def test_profiler_ran_in_one_short_window_and_timer_cleaned_up(run: TimedRun) -> None:
    from torch._C._dynamo.eval_frame import set_guard_complete_hook

    assert run.timer.windows == 1
    # the window closed after 1 + 3 of 8 steps: from then on nothing of ours ran per frame entry
    assert run.hook_after_window is None
    assert torch._inductor.config.cpp.enable_kernel_profile is False
    previous = set_guard_complete_hook(None)
    assert previous is None  # the timer removed its frame-entry hook
    assert not torch.autograd.profiler._is_profiler_enabled


@pytest.mark.parametrize(
    ("profiler_name", "kind", "name"),
    [
        ("graph_0_cpp_fused_sin_0", "cpp", "cpp_fused_sin_0"),
        ("graph_12_cpp_fused_add_mul_3", "cpp", "cpp_fused_add_mul_3"),
        ("triton_poi_fused_add_0", "triton", "triton_poi_fused_add_0"),
        ("aten::addmm", "extern", "aten::addmm"),
        ("mkldnn::_linear_pointwise", "extern", "mkldnn::_linear_pointwise"),
        ("inductor_wrapper_call", "other", "inductor_wrapper_call"),
    ],
)
def test_kernel_kind(profiler_name: str, kind: str, name: str) -> None:
    assert kernel_kind(profiler_name) == (kind, name)


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("aten::addmm", "aten::addmm"),
        ("extern_kernels.addmm:4", "aten::addmm"),
        ("extern_kernels.mm", "aten::mm"),
        (
            "torch.ops.aten._scaled_dot_product_cudnn_attention.default",
            "aten::_scaled_dot_product_cudnn_attention",
        ),
        ("torch.ops.aten.convolution_backward.default:3", "aten::convolution_backward"),
        ("torch.ops.mkldnn._linear_pointwise.default", "mkldnn::_linear_pointwise"),
        ("aten.mm.default", "aten::mm"),
        ("triton_poi_fused_add_0", None),
        ("cpp_fused_sum_1", None),
    ],
)
def test_one_naming_rule_joins_profiler_and_output_code(name: str, key: str | None) -> None:
    assert op_key(name) == key


def test_site_number() -> None:
    assert site_number("extern_kernels.addmm:4") == 3 and site_number("extern_kernels.mm") == 0


def test_bad_window_is_refused() -> None:
    with pytest.raises(ValueError):
        KernelTimer(1, 0, lambda md, payload: None)
