"""Kernel time changes between two runs, and when a change is only noise. No torch.

A time change compares the medians per call (the means of schema-2 reports). It is *within
noise*, and never a slowdown, when either side has fewer than ``stats.MIN_SAMPLES`` samples,
or when a Mann-Whitney U test on the two sides' samples cannot tell them apart (p >= 0.01);
a report without samples (schema 2) only counts a change whose ranges do not overlap. The total
ratio behind ``--fail-on-slowdown`` counts a kernel within noise as unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from inspectc.model import KernelTime
from inspectc.model.stats import MIN_SAMPLES, mann_whitney_p

TIME_SHOWN = 0.05  # kernel time changes shown in text when at least this (5 %)
TIME_SHARE_GATED = 0.05  # single kernels this share of the time or more gate --fail-on-slowdown
SIGNIFICANCE = 0.01


@dataclass(frozen=True, slots=True)
class TimeChange:
    what: str  # frame and kernel
    before_us: float  # median per call
    after_us: float
    share: float  # of run A's time per call of the matched kernels
    noise: str | None = None  # why the change is within noise; None: a real change
    rank: int | None = None  # the kernel's rank (None: one process)

    @property
    def ratio(self) -> float:
        return self.after_us / self.before_us if self.before_us > 0 else float("inf")

    @property
    def counted_after_us(self) -> float:
        """After, for totals: a change within noise counts as none."""
        return self.before_us if self.noise else self.after_us


def time_noise(x: KernelTime, y: KernelTime) -> str | None:
    """Why the change from *x* to *y* is within noise, None when it is a real change."""
    if min(x.calls, y.calls) < MIN_SAMPLES:
        return f"n={min(x.calls, y.calls)} < {MIN_SAMPLES}"
    if len(x.samples) >= MIN_SAMPLES and len(y.samples) >= MIN_SAMPLES:
        p = mann_whitney_p(list(x.samples), list(y.samples))
        return f"samples indistinguishable, p={p:.2f}" if p >= SIGNIFICANCE else None
    if y.min_us <= x.max_us and x.min_us <= y.max_us:  # no samples: only disjoint ranges count
        return "ranges overlap (no samples recorded)"
    return None


def time_change(what: str, x: KernelTime, y: KernelTime) -> TimeChange:
    return TimeChange(what, x.typical_us, y.typical_us, 0.0, time_noise(x, y))


def total_ratio(times: Sequence[TimeChange]) -> float | None:
    before = sum(t.before_us for t in times)
    after = sum(t.counted_after_us for t in times)
    return after / before if before > 0 else None


def per_rank_ratios(times: Sequence[TimeChange]) -> dict[int, float | None]:
    """:func:`total_ratio` of each rank's matched kernels ({} for one process)."""
    ranks = sorted({t.rank for t in times if t.rank is not None})
    if len(ranks) < 2:
        return {}
    return {r: total_ratio([t for t in times if t.rank == r]) for r in ranks}


@dataclass(frozen=True, slots=True)
class Slowdown:
    """Slower than asked, beyond noise: the matched kernels' total, or one big kernel."""

    ratio: float
    kernels: int | None = None  # the total over this many matched kernels
    change: TimeChange | None = None  # one kernel of at least TIME_SHARE_GATED of the time


def slowdowns(times: Sequence[TimeChange], pct: float) -> list[Slowdown]:
    """What got slower than *pct* percent beyond noise: the matched total, or a big kernel."""
    limit = 1 + pct / 100
    out = []
    total = total_ratio(times)
    if total is not None and total > limit:
        out.append(Slowdown(total, kernels=len(times)))
    for t in times:
        if t.share >= TIME_SHARE_GATED and t.ratio > limit and not t.noise:
            out.append(Slowdown(t.ratio, change=t))
    return out
