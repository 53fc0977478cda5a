"""Timing statistics: bounded sample keeping, summaries, the noise rule. Stdlib only.

Capture keeps every timed sample of a kernel up to ``SAMPLE_CAP`` (then a uniform reservoir of
that many, seeded, so a run is reproducible) and the exact count, sum, min and max of all of
them. The median, p90 and coefficient of variation are computed from the kept samples.

The noise rule, used wherever a time is shown: a figure is *noisy* when it has fewer than
``MIN_SAMPLES`` samples or a coefficient of variation (stdev / mean) above ``NOISY_CV``.
Why 0.25: the median of n samples has a standard error of about 1.25 * CV / sqrt(n); at the
default window (10 calls) and CV 0.25 that is ~10% of the value, so two such figures cannot be
told apart below ~20%: a ranking or a "slowdown" built on them would be noise.
"""

from __future__ import annotations

import math
import random
import statistics
from dataclasses import dataclass, field
from typing import Any

SAMPLE_CAP = 4096
MIN_SAMPLES = 5
NOISY_CV = 0.25


@dataclass(slots=True)
class Samples:
    """Durations in microseconds: exact n/sum/min/max, at most ``cap`` samples kept."""

    cap: int = SAMPLE_CAP
    n: int = 0
    total: float = 0.0
    low: float = math.inf
    high: float = -math.inf
    kept: list[float] = field(default_factory=list)
    _rng: random.Random = field(default_factory=lambda: random.Random(0))

    def add(self, us: float) -> None:
        self.n += 1
        self.total += us
        self.low = min(self.low, us)
        self.high = max(self.high, us)
        if len(self.kept) < self.cap:
            self.kept.append(us)
        else:  # reservoir sampling: every sample kept with probability cap / n
            j = self._rng.randrange(self.n)
            if j < self.cap:
                self.kept[j] = us

    def as_dict(self, *, with_samples: bool = True) -> dict[str, Any]:
        out = summary(self.kept, n=self.n, total=self.total, low=self.low, high=self.high)
        if with_samples:
            out["samples"] = [round(v, 3) for v in self.kept]
        return out


def summary(
    kept: list[float],
    *,
    n: int | None = None,
    total: float | None = None,
    low: float | None = None,
    high: float | None = None,
) -> dict[str, Any]:
    """calls, total/mean/min/max (exact), median/p90/cv (of the kept samples)."""
    n = len(kept) if n is None else n
    if not n or not kept:
        return {"calls": 0, "total_us": 0.0, "mean_us": 0.0, "min_us": 0.0, "max_us": 0.0}
    total = math.fsum(kept) if total is None else total
    mean = total / n
    ordered = sorted(kept)
    cv = statistics.pstdev(ordered) / mean if len(ordered) > 1 and mean > 0 else None
    return {
        "calls": n,
        "total_us": round(total, 3),
        "mean_us": round(mean, 3),
        "min_us": round(min(ordered) if low is None else low, 3),
        "max_us": round(max(ordered) if high is None else high, 3),
        "median_us": round(statistics.median(ordered), 3),
        "p90_us": round(quantile(ordered, 0.9), 3),
        "cv": round(cv, 4) if cv is not None else None,
        "kept": len(ordered),
    }


def quantile(ordered: list[float], q: float) -> float:
    """Linear-interpolated quantile of sorted values (numpy's default method)."""
    if not ordered:
        return 0.0
    pos = (len(ordered) - 1) * q
    lo = math.floor(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def noise_reason(calls: int, cv: float | None) -> str | None:
    """Why a figure is noisy (None: it is not)."""
    if calls < MIN_SAMPLES:
        return f"n={calls} < {MIN_SAMPLES}"
    if cv is None:
        return "spread not recorded"
    if cv > NOISY_CV:
        return f"CV {cv:.0%} > {NOISY_CV:.0%}"
    return None


def mann_whitney_p(a: list[float], b: list[float]) -> float:
    """Two-sided p-value that *a* and *b* come from one distribution (normal approximation,
    tie-corrected). Used by ``diff`` so that a change within noise is never a slowdown."""
    n1, n2 = len(a), len(b)
    if n1 == 0 or n2 == 0:
        return 1.0
    pooled = sorted([(v, 0) for v in a] + [(v, 1) for v in b])
    ranks = [0.0] * len(pooled)
    ties = 0.0
    i = 0
    while i < len(pooled):
        j = i
        while j + 1 < len(pooled) and pooled[j + 1][0] == pooled[i][0]:
            j += 1
        for k in range(i, j + 1):
            ranks[k] = (i + j) / 2 + 1
        t = j - i + 1
        ties += t**3 - t
        i = j + 1
    r1 = sum(r for r, (_, side) in zip(ranks, pooled) if side == 0)
    u = r1 - n1 * (n1 + 1) / 2
    mu = n1 * n2 / 2
    n = n1 + n2
    var = n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1)))
    if var <= 0:
        return 1.0
    z = (abs(u - mu) - 0.5) / math.sqrt(var)
    return max(0.0, min(1.0, math.erfc(max(z, 0.0) / math.sqrt(2))))
