"""Measured times in the report model: a kernel's time per call, how a frame was timed.

Stdlib only; re-exported by ``inspectc.model``. The noise rule is in ``stats.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

WARMUP_FACTOR = 5.0  # a leading call this many times the steady median is a warm-up call


@dataclass(frozen=True, kw_only=True, slots=True)
class KernelTime:
    """A kernel's measured time per graph call (every launch in the call summed), in µs.

    calls/total/mean/min/max are exact over every measured call; median, p90 and cv (stdev /
    mean) come from ``samples``, the kept samples (all of them up to ``report.stats.SAMPLE_CAP``).
    None: not recorded (a schema-2 report kept no samples).
    """

    calls: int
    total_us: float
    mean_us: float
    min_us: float
    max_us: float
    median_us: float | None = None
    p90_us: float | None = None
    cv: float | None = None
    launches: int | None = None  # launches per call (a kernel may run several times per call)
    samples: tuple[float, ...] = ()
    share: float | None = None  # of the frame's measured kernel time

    @property
    def typical_us(self) -> float:
        """The figure to show and rank by: the median, else (old reports) the mean."""
        return self.median_us if self.median_us is not None else self.mean_us

    @property
    def noise(self) -> str | None:
        """Why this figure is noisy (``report.stats.noise_reason``), None when it is not."""
        from inspectc.model.stats import noise_reason

        return noise_reason(self.calls, self.cv)

    @property
    def warmup_calls(self) -> int:
        """The first calls after a compile that ran far slower than the steady state (caches,
        lazy initialisation: 15 ms where a call takes 30 us): leading samples over
        ``WARMUP_FACTOR`` times the median of the later half. 0 when the samples are not every
        call in order (a reservoir) or too few to tell."""
        kept = self.samples
        if len(kept) < 4 or len(kept) != self.calls:
            return 0
        later = sorted(kept[len(kept) // 2 :])
        steady = later[len(later) // 2]
        n = 0
        while n < len(kept) // 2 and kept[n] > WARMUP_FACTOR * steady:
            n += 1
        return n

    @property
    def steady_total_us(self) -> float:
        """The total without the warm-up calls: what ranks kernels."""
        n = self.warmup_calls
        return max(0.0, self.total_us - sum(self.samples[:n])) if n else self.total_us


@dataclass(frozen=True, kw_only=True, slots=True)
class FrameTiming:
    """How a frame was timed, and what may have disturbed it (capture's profiler windows)."""

    time_base: str | None = None  # "cpu" (host ranges) | "device" (CUDA kernel time)
    threads: int | None = None  # torch.get_num_threads() during the window
    interop_threads: int | None = None
    cpus: int | None = None  # os.cpu_count()
    load_avg: tuple[float, ...] = ()  # os.getloadavg()[0] at each window's start and end
    graph_calls: int | None = None  # measured calls of the frame's FX graphs
    graph_us: float | None = None  # their total time (the profiler's graph-call ranges)
    kernels_us: float | None = None  # the total of every range measured inside those calls
    attributed_us: float | None = None  # the part that reached a kernel of the report
    unattributed: dict[str, float] = field(default_factory=dict)  # the rest, by profiler name
    replay_us: float | None = None  # CUDA graphs: device time of the graph replays, in all
    replay_calls: int | None = None
    absent: str | None = None  # why kernels have no time though timings were on
