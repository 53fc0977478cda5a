"""``inspectc bench``: re-run a report's saved output code in isolation with Inductor's harness.

For each output code module of the chosen frames (forward and backward), in this process:
load it as Inductor does (``PyCodeCache.load``: its kernels compile here), build inputs with
its ``get_args()``, then time

  * the whole module with its own ``benchmark_compiled_module`` (method ``benchmark_compiled_module``);
  * every kernel per module call under torch.profiler over isolated ``call(get_args())``
    (``module_profiler``: C++ kernels by their ``cpp.enable_kernel_profile`` ranges, Triton
    and library kernels by device time on CUDA, every launch counted). On CUDA the L2 cache is
    overwritten before each Triton launch (``module_profiler_l2_flushed``), as
    ``triton.testing.do_bench`` and Nsight Compute do: the kernel reads its inputs from DRAM,
    which is what the roofline's DRAM model assumes;
  * on CUDA, each Triton kernel whose source carries Inductor's ``config.benchmark_kernel``
    harness, by ``triton.testing.do_bench`` of its ``call(get_args())`` (``kernel_harness``).

Each loop repeats until stable (see ``bench_measure``). On CUDA the device bandwidth is
measured once per run (a device-to-device copy) for the roofline. This runs the report's
code: bench only reports you would run as a script.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from inspectc.capture import bench_measure as measure
from inspectc.capture import torch_api
from inspectc.model import CompileId, Kernel
from inspectc.store.bench import L2_FLUSHED, MODULE, BenchRun, Isolated, Key
from inspectc.store.reader import Report

Progress = Callable[[str], None]


@dataclass(slots=True)
class BenchResult:
    run: BenchRun
    rows: list[tuple[Key, Isolated]] = field(default_factory=list)


def bench_report(
    report: Report,
    *,
    frame: CompileId | None = None,
    kernel: str | None = None,
    settings: measure.Settings | None = None,
    progress: Progress | None = None,
) -> BenchResult:
    """Measure the report's output code modules; errors are recorded per module, not raised."""
    import torch

    settings = settings or measure.Settings()
    say = progress or (lambda _line: None)
    restore = torch_api.single_compile_thread()
    errors: list[str] = []
    rows: list[tuple[Key, Isolated]] = []
    targets = _targets(report.kernels, frame, kernel)
    cuda = False
    try:
        for (rank, cid, graph_kind), kernels in targets.items():
            where = f"{cid} {graph_kind}" + (f" rank {rank}" if rank is not None else "")
            code = report.graph(kernels[0].compile_id, graph_kind)
            if not code or "def get_args" not in code or "def call" not in code:
                errors.append(f"{where}: no output code with Inductor's benchmark harness (get_args/call)")
                continue
            say(f"bench {where}: {len(kernels)} kernels")
            try:
                got, on_cuda = _bench_module(code, kernels, kernel, settings)
            except Exception as exc:  # noqa: BLE001 - the report's code may fail to load or run here: recorded
                errors.append(
                    f"{where}: {type(exc).__name__}: {str(exc).splitlines()[0][:300] if str(exc) else ''}"
                )
                continue
            cuda = cuda or on_cuda
            rows += [((rank, str(cid), graph_kind, name), fig) for name, fig in got]  # the store keys by text
        bandwidth = method = None
        if cuda:
            bandwidth, method = measure.bandwidth_probe()
    finally:
        if callable(restore):
            restore()
    run = BenchRun(
        started=time.time(),
        torch_version=torch_api.torch_version(),
        device=torch.cuda.get_device_name() if cuda else "cpu",
        bandwidth_gbps=bandwidth,
        bandwidth_method=method,
        settings={
            "budget_s": settings.budget_s,
            "cv_limit": settings.cv_limit,
            "window": settings.window,
            "min_rounds": settings.min_rounds,
            "threads": torch.get_num_threads(),
        },
        errors=tuple(errors),
    )
    return BenchResult(run=run, rows=rows)


def _targets(
    kernels: list[Kernel], frame: CompileId | None, name: str | None
) -> dict[tuple[int | None, CompileId, str], list[Kernel]]:
    out: dict[tuple[int | None, CompileId, str], list[Kernel]] = {}
    for k in kernels:
        if frame is not None and not k.compile_id.same_compile(frame):
            continue
        out.setdefault((k.rank, k.compile_id, k.graph_kind), []).append(k)
    if name is not None:
        out = {key: ks for key, ks in out.items() if any(k.name == name for k in ks)}
    return out


def _bench_module(
    code: str, kernels: list[Kernel], only: str | None, settings: measure.Settings
) -> tuple[list[tuple[str, Isolated]], bool]:
    import torch

    mod = torch_api.load_output_code(code)
    args = mod.get_args()
    cuda = any(isinstance(a, torch.Tensor) and a.is_cuda for a in args)
    sync: Callable[[], None] = torch.cuda.synchronize if cuda else (lambda: None)

    def call() -> None:
        mod.call(list(args))

    with torch.no_grad():
        for _ in range(3):  # first calls autotune and allocate
            call()
        sync()
        per_round = measure.calls_per_round(call, sync, settings)
        out: list[tuple[str, Isolated]] = []
        whole = measure.module_benchmark(mod, args, "cuda" if cuda else "cpu", settings, per_round)
        out += [(MODULE, f) for f in whole.figures("benchmark_compiled_module").values()]
        names = [k.name for k in kernels]
        flushed = [k.name for k in kernels if k.language == "triton"] if cuda else []
        with measure.l2_flushed(mod, flushed):  # on CUDA: L2 cold before each Triton launch
            prof = measure.module_profiler(call, names, cuda, settings, min(per_round, 50))
        for name, fig in prof.figures(L2_FLUSHED if flushed else "module_profiler").items():
            if name != MODULE and (only is None or name == only):
                out.append((name, fig))
        if cuda:
            out += _harness_figures(mod, kernels, only, settings)
    return out, cuda


def _harness_figures(
    mod: Any, kernels: list[Kernel], only: str | None, settings: measure.Settings
) -> list[tuple[str, Isolated]]:
    out = []
    for k in kernels:
        if k.language != "triton" or (only is not None and k.name != only):
            continue
        harness = measure.kernel_harness(getattr(mod, k.name, None))
        if harness is None:
            continue  # captured without --kernel-harness: no per-kernel figure
        outcome = measure.do_bench_rounds(harness, settings)
        fig = outcome.figures("kernel_harness", per="launch").get(MODULE)
        if fig is not None:
            out.append((k.name, fig))
    return out
