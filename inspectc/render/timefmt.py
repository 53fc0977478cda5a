"""How every reader shows a measured time: one unit per column, median and n, the noise flag.

The unit rule: a column of times takes ONE unit, picked from the column's largest value
(s from 1 s, ms from 1 ms, else µs), named in the header; cells are bare numbers in that unit,
so "21.8" never stands beside "8234.3" in another unit. A kernel's figure is its median per
call (the mean for schema-2 reports, which kept no samples), with its sample count n; a figure
with n < 5 or a coefficient of variation above 25% is flagged noisy (``report.stats``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from inspectc.analysis.text import counted
from inspectc.model import FrameTiming, Kernel, KernelTime
from inspectc.model.stats import MIN_SAMPLES, NOISY_CV

NOISY = "noisy"
NOISE_LEGEND = f"fewer than {MIN_SAMPLES} samples or CV (stdev/mean) above {NOISY_CV:.0%}"


@dataclass(frozen=True, slots=True)
class Unit:
    name: str  # "µs" | "ms" | "s"
    scale: float  # microseconds per unit

    def fmt(self, us: float | None) -> str:
        if us is None:
            return "-"
        value = us / self.scale
        if self.name == "µs":
            return f"{value:,.1f}"
        return f"{value:,.3f}" if value < 10 else f"{value:,.2f}"


MICRO, MILLI, SECOND = Unit("µs", 1.0), Unit("ms", 1e3), Unit("s", 1e6)


def column_unit(values: Iterable[float | None]) -> Unit:
    """The one unit of a column, from its largest value."""
    top = max((v for v in values if v is not None), default=0.0)
    if top >= 1e6:
        return SECOND
    if top >= 1e3:
        return MILLI
    return MICRO


def typical(t: KernelTime | None) -> float | None:
    return t.typical_us if t is not None else None


def noise_text(t: KernelTime | None) -> str:
    """'' when the figure is trustworthy, else 'noisy (why)'."""
    if t is None:
        return ""
    why = t.noise
    return f"{NOISY} ({why})" if why else ""


def cv_text(t: KernelTime | None) -> str:
    return f"{t.cv:.0%}" if t is not None and t.cv is not None else "-"


def noisy_count(kernels: Iterable[Kernel]) -> int:
    return sum(1 for k in kernels if k.time is not None and k.time.noise)


def environment_line(timings: Iterable[FrameTiming | None]) -> str | None:
    """What may have disturbed the times: threads, CPUs, load average during the windows."""
    got = [t for t in timings if t is not None]
    if not got:
        return None
    bases = sorted({t.time_base for t in got if t.time_base})
    threads = sorted({t.threads for t in got if t.threads is not None})
    cpus = next((t.cpus for t in got if t.cpus is not None), None)
    loads = [v for t in got for v in t.load_avg]
    parts = [f"timed on {'/'.join(bases) or 'not recorded'}"]
    if threads:
        parts.append(f"torch threads {'/'.join(map(str, threads))}" + (f" of {cpus} CPUs" if cpus else ""))
    if loads:
        lo, hi = min(loads), max(loads)
        busy = cpus is not None and hi > cpus * 0.75
        parts.append(
            f"load average {lo:.2f}-{hi:.2f} during the windows"
            + (" (busy machine: CPU times inflated)" if busy else "")
        )
    return ", ".join(parts)


def shown_vs_measured(timing: FrameTiming) -> str | None:
    """What reached a kernel against what the profiler measured inside the graph calls."""
    if not timing.kernels_us:
        return None
    unit = column_unit([timing.kernels_us, timing.graph_us])
    share = (timing.attributed_us or 0.0) / timing.kernels_us
    graph = (
        f" (host wall time of the compiled calls: {unit.fmt(timing.graph_us)} {unit.name})"
        if timing.graph_us
        else ""
    )
    return (
        f"kernels {unit.fmt(timing.attributed_us)} of {unit.fmt(timing.kernels_us)} {unit.name} measured "
        f"inside {counted(timing.graph_calls or 0, 'graph call')} ({share:.0%}){graph}"
    )
