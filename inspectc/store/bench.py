"""Isolated re-measurement figures (``inspectc bench``): model, statistics, the ``bench`` table.

``inspectc bench`` re-runs a report's saved output code outside the user's program and stores
what it measured here, beside (never instead of) the in-run times of ``Kernel.time``. Stdlib
only: readers open these figures without torch.

Table ``bench(rank, compile_id, graph_kind, kernel, method, data)`` (``schema.BENCH_SQL``;
written by ``edit.ReportEdit.put_bench``): one row per figure.
``kernel`` is a kernel name of that output code, or ``""`` for the whole compiled module.
``method`` says how the figure was taken:

  ``benchmark_compiled_module``  the output code's own ``benchmark_compiled_module`` (whole call)
  ``module_profiler``            torch.profiler over isolated ``call(get_args())``: per call
                                 of the module, every launch of the kernel summed
  ``module_profiler_l2_flushed``  the same on CUDA, the L2 cache overwritten before each Triton
                                 launch (inputs read from DRAM, as ncu and do_bench measure)
  ``kernel_harness``             the kernel's own ``get_args()``/``call()`` (Inductor writes them
                                 under ``config.benchmark_kernel``) timed by
                                 ``triton.testing.do_bench``: per launch

The meta key ``bench`` holds the last run's :class:`BenchRun` (device, measured bandwidth).
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from inspectc.errors import ReportError
from inspectc.model import CompileId
from inspectc.model.stats import MIN_SAMPLES, quantile  # fewer samples: the figure says so
from inspectc.store.schema import NO_RANK
from inspectc.store.validate import load_checked, parse_checked

MODULE = ""  # the ``kernel`` of a whole-module figure
L2_FLUSHED = "module_profiler_l2_flushed"
PER_CALL = (L2_FLUSHED, "module_profiler", "benchmark_compiled_module")


@dataclass(frozen=True, kw_only=True, slots=True)
class Isolated:
    """One isolated figure: statistics of its samples, in microseconds."""

    method: str
    n: int
    median_us: float
    min_us: float
    p90_us: float
    cv: float  # standard deviation / mean of the samples
    rounds: int = 0  # measurement rounds until stable (or the budget ended)
    stable: bool = False  # the last rounds' medians agreed within the threshold
    launches: float | None = None  # launches per module call (module_profiler)
    per: str = "call"  # "call" of the module, or "launch" of the kernel

    @property
    def few(self) -> bool:
        return self.n < MIN_SAMPLES


@dataclass(frozen=True, kw_only=True, slots=True)
class BenchRun:
    started: float
    torch_version: str | None = None
    device: str | None = None  # "cpu" or the GPU's name
    bandwidth_gbps: float | None = None  # device-to-device copy, measured once per run
    bandwidth_method: str | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    errors: tuple[str, ...] = ()  # per output code that could not be measured, one line each


Key = tuple[int | None, str, str, str]  # rank, compile id, graph kind, kernel ("" = module)


@dataclass(slots=True)
class BenchResults:
    """What a report holds from ``inspectc bench`` (empty when it was never run)."""

    run: BenchRun | None = None
    figures: dict[Key, dict[str, Isolated]] = field(default_factory=dict)

    def kernel(self, cid: CompileId, graph_kind: str, name: str) -> dict[str, Isolated]:
        """The figures of kernel *name* of compile *cid* (its rank: ``cid.rank``), by method."""
        return self.figures.get((cid.rank, str(cid), graph_kind, name), {})  # the table's column text

    def primary(self, cid: CompileId, graph_kind: str, name: str) -> Isolated | None:
        """The per-call figure to set beside the in-run mean (the module profile first)."""
        found = self.kernel(cid, graph_kind, name)
        return next((found[m] for m in PER_CALL if m in found), None)

    def module(self, cid: CompileId, graph_kind: str) -> Isolated | None:
        return self.primary(cid, graph_kind, MODULE)

    def __bool__(self) -> bool:
        return bool(self.figures) or self.run is not None


def summarize(
    samples: Sequence[float], method: str, *, rounds: int = 0, stable: bool = False, **extra: Any
) -> Isolated | None:
    """n, median, min, p90 and CV of *samples* (µs); None for no samples."""
    values = sorted(v for v in samples if math.isfinite(v))
    if not values:
        return None
    mean = statistics.fmean(values)
    sd = statistics.pstdev(values) if len(values) > 1 else 0.0
    return Isolated(
        method=method,
        n=len(values),
        median_us=statistics.median(values),
        min_us=values[0],
        p90_us=quantile(values, 0.9),
        cv=sd / mean if mean > 0 else 0.0,
        rounds=rounds,
        stable=stable,
        **extra,
    )


def cv_of(values: Sequence[float]) -> float:
    if len(values) < 2:
        return math.inf
    mean = statistics.fmean(values)
    return statistics.pstdev(values) / mean if mean > 0 else 0.0


# ------------------------------------------------------------------------------ reading


Query = Callable[[str], list[tuple[Any, ...]]]


def load(query: Query, meta: dict[str, str], has_table: bool) -> BenchResults:
    """The bench figures of a report (every field's type checked: a report is untrusted); rows
    that do not read as figures are left out, and a run entry that does not read is a run with
    that one error."""
    results = BenchResults()
    text = meta.get("bench")
    if text:
        what = "corrupt 'bench' entry in the report"
        try:
            results.run = load_checked(BenchRun, json.loads(text), what)
        except ReportError as exc:
            results.run = BenchRun(started=0.0, errors=(str(exc),))
        except (ValueError, RecursionError):
            results.run = BenchRun(started=0.0, errors=(what,))
    if not has_table:
        return results
    for rank, cid, kind, name, _method, data in query(
        "SELECT rank, compile_id, graph_kind, kernel, method, data FROM bench"
    ):
        fig = parse_checked(Isolated, data if isinstance(data, str) else None)
        if fig is None:
            continue
        key = (None if rank == NO_RANK else rank, str(cid), str(kind), str(name))
        results.figures.setdefault(key, {})[fig.method] = fig
    return results
