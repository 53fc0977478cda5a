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
from inspectc.report.kernel_detail import KernelDetail
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


# --- DRAM share on Nsight Compute's basis --------------------------------------------------------
# ncu's dram__throughput.avg.pct_of_peak_sustained_elapsed is the DRAM bytes of the launch over its
# time against the DRAM peak (bytes per DRAM cycle x DRAM clock). Measured on an H200
# (benchmarks/ncu_h200.md): a Triton kernel's DRAM reads are the bytes of its input tensors and its
# writes stay in L2 (write-back, 0 DRAM bytes during the launch for outputs under the L2 size), so
# Inductor's byte count (inputs + outputs) over the copy bandwidth overstated ncu's figure 2-3x
# for write-heavy kernels.
DRAM_PEAK_GBPS = {  # ncu's peak: dram__bytes.sum.peak_sustained x dram__cycles_elapsed.avg.per_second
    "NVIDIA H200": 1504 * 3.193,  # 1504 B/cycle x 3.193 GHz = 4802 GB/s, read on the device
}
_ITEMSIZE = {"float64": 8, "int64": 8, "complex64": 8, "float32": 4, "int32": 4, "uint32": 4,
             "float16": 2, "bfloat16": 2, "int16": 2, "int8": 1, "uint8": 1, "bool": 1,
             "float8_e4m3fn": 1, "float8_e5m2": 1}  # fmt: skip


@dataclass(frozen=True, slots=True, kw_only=True)
class DramShare:
    read_bytes: int
    launch_us: float | None = None
    basis: str | None = None  # which time
    peak_gbps: float | None = None

    @property
    def fraction(self) -> float | None:
        if not self.launch_us or not self.peak_gbps:
            return None
        return self.read_bytes / (self.launch_us * 1e-6) / (self.peak_gbps * 1e9)


def read_bytes(detail: KernelDetail | None) -> int | None:
    """Bytes of the input tensors (``in_ptr*``, ``in_out_ptr*``) of the kernel's first recorded
    launch: what it reads from memory once; None without a recorded launch."""
    if detail is None or not detail.launches:
        return None
    total, seen = 0, False
    for a in detail.launches[0].args:
        if a.kind != "tensor" or not (a.name or "").startswith(("in_ptr", "in_out_ptr")):
            continue
        seen = True
        numel = 1
        for n in a.shape or ():
            numel *= n
        total += numel * _ITEMSIZE.get(a.dtype or "", 4)
    return total if seen else None


def dram_share(kernel: Kernel, detail: KernelDetail | None, bench: BenchResults) -> DramShare | None:
    """The kernel's DRAM share on ncu's basis: input bytes over the isolated time per launch (as
    the roofline column; else the in-run median per launch) against the device's DRAM peak."""
    reads = read_bytes(detail)
    if kernel.language != "triton" or reads is None:
        return None
    found = bench.kernel(kernel.rank, kernel.compile_id, kernel.graph_kind, kernel.name)
    launch_us: float | None = None
    basis = None
    if "module_profiler" in found and found["module_profiler"].launches:
        fig = found["module_profiler"]
        launch_us, basis = fig.median_us / (fig.launches or 1.0), "isolated module call / launches (profiler)"
    elif kernel.time is not None:
        t = kernel.time
        typical = t.median_us if t.median_us is not None else t.mean_us
        launch_us, basis = typical / (t.launches or 1), "in-run median per launch (profiler)"
    device = bench.run.device if bench.run else None
    peak = DRAM_PEAK_GBPS.get(device) if device else None
    return DramShare(read_bytes=reads, launch_us=launch_us, basis=basis, peak_gbps=peak)


def dram_text(share: DramShare | None) -> str:
    """One line for ``inspectc ir``."""
    if share is None:
        return "DRAM share: not recorded (no launch with named input tensors)"
    head = f"DRAM share (ncu's basis): reads {share.read_bytes / 1e6:,.2f} MB (the inputs of the recorded launch)"
    if share.launch_us is None:
        return head + "; no time per launch"
    fraction = share.fraction
    if fraction is None:
        return (
            head
            + f" in {share.launch_us:.2f} µs; DRAM peak not known for this device (inspectc bench on an H200 names it)"
        )
    return (
        head + f" in {share.launch_us:.2f} µs ({share.basis}) = {fraction * 100:.0f}% of the DRAM peak"
        f" {share.peak_gbps:,.0f} GB/s; outputs stay in L2 during the launch"
    )
