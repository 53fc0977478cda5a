"""% of limit in words: a table cell, the methods' legend, ``ir``'s line, the share's bench
cells. The figures themselves: :mod:`inspectc.analysis.roofline`. No torch."""

from __future__ import annotations

from inspectc.analysis.roofline import (
    DRAM_MODEL,
    FALLBACK,
    FALLBACK_MARK,
    METHODS,
    NOT_MEASURED,
    PEAKS,
    Roofline,
    roofline,
)
from inspectc.model import Kernel
from inspectc.store.bench import BenchResults

OVER_LIMIT = (
    "*: over 100%: the bytes counted are more than the kernel moves from memory in the time (reuse, caching)"
)


def limit_text(r: Roofline | None) -> str:
    """``"83%"`` of the limit (``"~83%"`` on the fallback method), or why not; ``"-"`` for
    kernels that are not Triton. Over 100% gets a ``*`` (:data:`OVER_LIMIT`)."""
    if r is None:
        return "-"
    fraction = r.fraction
    if fraction is None:
        return r.status
    mark = FALLBACK_MARK if r.method == FALLBACK else ""
    return f"{mark}{fraction * 100:.0f}%" + ("*" if fraction > 1.0 else "")


def method_lines(rooflines: list[Roofline | None]) -> list[str]:
    """The methods behind a column of % of limit, one line each, with their limit and count."""
    out = []
    for method in (DRAM_MODEL, FALLBACK):
        rows = [r for r in rooflines if r is not None and r.method == method and r.fraction is not None]
        if not rows:
            continue
        limits = sorted({f"{r.limit} {r.limit_gbps:,.0f} GB/s" for r in rows if r.limit_gbps})
        mark = f" ({FALLBACK_MARK}N%)" if method == FALLBACK else ""
        n = f"{len(rows)} kernel" + "s" * (len(rows) != 1)
        out.append(f"% limit, {method}{mark} for {n}: {METHODS[method]}; limit {', '.join(limits)}")
    return out


def detail_text(r: Roofline | None) -> str:
    """One line: the figure, its bytes, time and limit, and its method (``ir``, the TUI)."""
    if r is None:
        return "% of limit: - (not a Triton kernel)"
    head = f"% of limit ({r.method}): "
    if r.fraction is None:
        return head + r.status + (f" ({METHODS[r.method]})" if r.status == NOT_MEASURED else "")
    extra = f"; of it written back past the L2 {r.written_gb * 1e3:,.2f} MB" if r.written_gb else ""
    if r.method == DRAM_MODEL and r.inductor_gb:
        extra += f"; Inductor's estimate {r.inductor_gb * 1e3:,.2f} MB"
    return (
        head + f"{limit_text(r)} of the {r.limit} {r.limit_gbps:,.0f} GB/s: {(r.gb or 0) * 1e3:,.2f} MB"
        f" per launch in {r.launch_us:.2f} µs ({r.basis}) = {r.gbps:,.0f} GB/s{extra} [{METHODS[r.method]}]"
    )


def bench_cells(
    kernels: list[Kernel], bench: BenchResults, reads: dict[int, int] | None = None
) -> dict[int, tuple[str, str]]:
    """Kernel id -> (isolated median per call with n, % of limit) for tables of the share."""
    reads = reads or {}
    cells = {}
    for k in kernels:
        fig = bench.primary(k.compile_id, k.graph_kind, k.name)
        iso = f"{fig.median_us:,.1f} (n={fig.n})" if fig else NOT_MEASURED
        cells[k.id] = (iso, limit_text(roofline(k, bench, reads.get(k.id))))
    return cells


def peaks_text(device: str | None) -> str:
    """One line: the device's ceilings as the roofline uses them, or that they are not known."""
    p = PEAKS.get(device or "")
    if p is None:
        return f"device peaks: not known for {device or 'this device'} (the copy bandwidth is the limit)"
    tensor = ", ".join(f"{k} {v:,.0f}" for k, v in p.tensor_tflops.items())
    return (
        f"device peaks ({device}): DRAM {p.dram_gbps:,.0f} GB/s, L2 {p.l2_bytes >> 20} MiB;"
        f" tensor TFLOP/s (dense, not sparse) {tensor}; FP32 {p.fp32_tflops:g} [{p.source}]"
    )
