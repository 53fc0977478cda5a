"""Roofline figures per Triton kernel: bytes moved over measured time against the device limit.

Bytes (and FLOPs) are Inductor's own estimates, ``kernel_num_gb`` and ``kernel_flop`` in the
kernel's ``inductor_meta`` (the output code parser keeps them in ``Kernel.meta``); Inductor
writes them only under ``config.benchmark_kernel`` (``inspectc run --kernel-harness``). The
time per launch is the isolated one of ``inspectc bench`` (its kernel harness, else its
per-call profile over launches per call); the limit is the device-to-device copy bandwidth
``inspectc bench`` measured once per run. No torch.
"""

from __future__ import annotations

from dataclasses import dataclass

from inspectc.report.bench import BenchResults
from inspectc.report.model import Kernel

NOT_RECORDED = "not recorded"  # this torch (or capture without --kernel-harness) left no bytes
NOT_MEASURED = "not measured"  # no isolated time or no bandwidth (run inspectc bench on CUDA)


@dataclass(frozen=True, slots=True, kw_only=True)
class Roofline:
    gb: float | None = None  # per launch
    flop: float | None = None
    launch_us: float | None = None
    gbps: float | None = None
    limit_gbps: float | None = None
    basis: str | None = None  # which measured time
    status: str = NOT_MEASURED  # "ok" or why there is no fraction

    @property
    def fraction(self) -> float | None:
        if self.gbps is None or not self.limit_gbps:
            return None
        return self.gbps / self.limit_gbps

    @property
    def tflops(self) -> float | None:
        if self.flop is None or not self.launch_us:
            return None
        return self.flop / (self.launch_us * 1e-6) / 1e12


def _number(value: object) -> float | None:
    return (
        float(value)
        if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0
        else None
    )


def kernel_bytes(kernel: Kernel) -> tuple[float | None, float | None]:
    """(GB, FLOPs) per launch from the kernel's ``inductor_meta``; None where not recorded."""
    meta = kernel.meta.get("inductor_meta")
    if not isinstance(meta, dict):
        return None, None
    return _number(meta.get("kernel_num_gb")), _number(meta.get("kernel_flop"))


def roofline(kernel: Kernel, bench: BenchResults) -> Roofline | None:
    """The kernel's roofline figure; None for kernels that are not Triton."""
    if kernel.language != "triton":
        return None
    gb, flop = kernel_bytes(kernel)
    if gb is None:
        return Roofline(flop=flop, status=NOT_RECORDED)
    found = bench.kernel(kernel.rank, kernel.compile_id, kernel.graph_kind, kernel.name)
    launch_us, basis = None, None
    # One basis: the isolated column's own figure (device time from the profiler, launch
    # overhead excluded) first; the harness's do_bench time carries the launch overhead.
    if "module_profiler" in found and found["module_profiler"].launches:
        fig = found["module_profiler"]
        launch_us, basis = fig.median_us / (fig.launches or 1.0), "isolated module call / launches (profiler)"
    elif "kernel_harness" in found:
        launch_us, basis = found["kernel_harness"].median_us, "kernel harness (do_bench)"
    limit = bench.run.bandwidth_gbps if bench.run else None
    if not launch_us or not limit:
        return Roofline(gb=gb, flop=flop, launch_us=launch_us, limit_gbps=limit, basis=basis)
    return Roofline(
        gb=gb,
        flop=flop,
        launch_us=launch_us,
        gbps=gb / (launch_us * 1e-6),
        limit_gbps=limit,
        basis=basis,
        status="ok",
    )


OVER_LIMIT = (
    "*: over 100%: Inductor's byte estimate is more than the kernel moves from memory (reuse, caching)"
)


def limit_text(r: Roofline | None) -> str:
    """``"83%"`` of the measured bandwidth, or why not; ``"-"`` for kernels that are not Triton.

    Over 100% gets a ``*`` (:data:`OVER_LIMIT`): the bytes are Inductor's estimate, not a count.
    """
    if r is None:
        return "-"
    fraction = r.fraction
    if fraction is None:
        return r.status
    return f"{fraction * 100:.0f}%" + ("*" if fraction > 1.0 else "")


def bench_cells(kernels: list[Kernel], bench: BenchResults) -> dict[int, tuple[str, str]]:
    """Kernel id -> (isolated median per call with n, % of limit) for tables of the share."""
    cells = {}
    for k in kernels:
        fig = bench.primary(k.rank, k.compile_id, k.graph_kind, k.name)
        iso = f"{fig.median_us:,.1f} (n={fig.n})" if fig else NOT_MEASURED
        cells[k.id] = (iso, limit_text(roofline(k, bench)))
    return cells
