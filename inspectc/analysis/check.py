"""``inspectc check``: a CI gate on a report's graph breaks, recompiles, frames and errors. No torch.

Each limit is compared with the report's count; in a multi-rank report, with the worst rank's
count (every rank runs the same program, so a limit means "per process"). Graph breaks are
every break that happened (not unique locations); DDPOptimizer's splits are not breaks.
``--fail-on-rank-differences [KINDS]`` fails when the ranks of a multi-rank report differ
(``rank_render.report_differences``: frames, caches, collectives, execution order...).
Recompiles are frames compiled again because a guard failed. ``--fail-on-error`` fails on
frames whose compile failed, on a run that ended with an exception or a non-zero exit, and on
a run whose report has no end (``end_reason: "running"``: killed, or still running).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from inspectc.analysis.costs import BreakCost, intended
from inspectc.analysis.rank_records import KINDS as RECORD_KINDS
from inspectc.analysis.ranks import RankDifference
from inspectc.analysis.views import BreakGroup, break_groups, totals
from inspectc.errors import UsageError
from inspectc.model import KIND_RECOMPILE_LIMIT, Frame, Run
from inspectc.model.accuracy import CORRUPT as CORRUPT_ACCURACY
from inspectc.model.accuracy import AccuracyRun, GraphAccuracy, OutputCheck


@dataclass(frozen=True, slots=True)
class Limits:
    max_graph_breaks: int | None = None
    max_recompiles: int | None = None
    max_frames: int | None = None
    fail_on_error: bool = False
    max_break_cost_ms: float | None = None  # a measured break above this per call fails
    ignore_intended: bool = False  # breaks torch places on purpose count for no gate


@dataclass(frozen=True, slots=True)
class RunProblem:
    """Why ``--fail-on-error`` fails: a frame that failed to compile, or how the run ended."""

    kind: str  # failed | unfinished | exception | exit
    frame: Frame | None = None
    exception: str | None = None
    exit_code: int | None = None


@dataclass(frozen=True, slots=True)
class Violation:
    """A limit a report exceeds, with what exceeds it (typed: :mod:`inspectc.render.check`
    says it in words)."""

    what: str  # graph_breaks | recompiles | frames | errors | rank_differences | rel_error
    count: int
    limit: int | None
    rank: int | None
    groups: tuple[BreakGroup, ...] = ()  # graph_breaks
    frames: tuple[Frame, ...] = ()  # recompiles, frames
    problems: tuple[RunProblem, ...] = ()  # errors
    differences: tuple[RankDifference, ...] = ()  # rank_differences
    outputs: tuple[tuple[GraphAccuracy, OutputCheck], ...] = ()  # rel_error
    costs: tuple[BreakCost, ...] = ()  # break_cost
    max_cost_ms: float | None = None
    max_rel_error: float | None = None
    unread: str | None = None  # rel_error: why the accuracy entry could not be judged


@dataclass(slots=True)
class CheckResult:
    violations: list[Violation] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)  # worst rank's counts
    # multi-rank reports only: which rank each count is from, every rank's, and the sums
    worst_rank: dict[str, int | None] = field(default_factory=dict)
    per_rank: dict[int, dict[str, int]] = field(default_factory=dict)
    total: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.violations


def check_frames(
    frames: Sequence[Frame], run: Run, limits: Limits, costs: Sequence[BreakCost] = ()
) -> CheckResult:
    """The report's counts against *limits* (*costs*: its breaks' measured costs, for
    ``max_break_cost_ms``)."""
    if limits.ignore_intended:
        frames = [
            replace(f, graph_breaks=tuple(gb for gb in f.graph_breaks if intended(gb) is None))
            for f in frames
        ]
        costs = [c for c in costs if c.intended is None]
    by_rank: dict[int | None, list[Frame]] = {}
    for f in frames:
        by_rank.setdefault(f.rank, []).append(f)
    if not by_rank:
        by_rank[None] = []
    result = CheckResult()
    worst: dict[str, tuple[int, int | None, list[Frame]]] = {}
    for rank, own in by_rank.items():
        t = totals(own)  # the headline's counts, by the one definition
        counts = {
            "graph_breaks": t.graph_breaks,
            "recompiles": t.recompiles,
            "frames": t.frames,
            "failed": t.failed,
            "limit_hits": t.limit_hits,  # compile ids refused at the recompile limit: not failed
        }
        if rank is not None and len(by_rank) > 1:
            result.per_rank[rank] = counts
            for name, n in counts.items():
                result.total[name] = result.total.get(name, 0) + n
        for name, n in counts.items():
            if name not in worst or n > worst[name][0]:
                worst[name] = (n, rank, own)
    result.counts = {name: n for name, (n, _, _) in worst.items()}
    ranked = len(by_rank) > 1
    if ranked:
        result.worst_rank = {name: rank for name, (_, rank, _) in worst.items()}
    for name, limit in (
        ("graph_breaks", limits.max_graph_breaks),
        ("recompiles", limits.max_recompiles),
        ("frames", limits.max_frames),
    ):
        n, rank, own = worst[name]
        if limit is not None and n > limit:
            result.violations.append(_over(name, n, limit, rank if ranked else None, own))
    if limits.max_break_cost_ms is not None:
        over = [c for c in costs if (c.cost_us or 0.0) > limits.max_break_cost_ms * 1000.0]
        result.counts["break_cost_over"] = len(over)
        if over:
            result.violations.append(
                Violation(
                    "break_cost",
                    len(over),
                    None,
                    None,
                    costs=tuple(over),
                    max_cost_ms=limits.max_break_cost_ms,
                )
            )
    if limits.fail_on_error:
        problems = run_problems(frames, run)
        if problems:
            result.violations.append(Violation("errors", len(problems), None, None, problems=tuple(problems)))
    return result


def _over(name: str, n: int, limit: int, rank: int | None, frames: list[Frame]) -> Violation:
    if name == "graph_breaks":
        return Violation(name, n, limit, rank, groups=tuple(break_groups(frames)))
    if name == "recompiles":
        return Violation(name, n, limit, rank, frames=tuple(f for f in frames if f.recompiles))
    return Violation(name, n, limit, rank, frames=tuple(frames))


RANK_KINDS = (
    "frame",
    "recompile",
    "graph_break",
    "recompile_reason",
    "status",
    "kernels",
    "ddp_split",
    *RECORD_KINDS,  # cache, collectives, execution order, tensor meta, runtime estimates
)


def rank_kinds(option: str | None) -> frozenset[str] | None:
    """``--fail-on-rank-differences [KINDS]``: the kinds that fail the gate (None: off)."""
    if option is None:
        return None
    if option == "all":
        return frozenset(RANK_KINDS)
    kinds = frozenset(k.strip() for k in option.split(",") if k.strip())
    unknown = sorted(kinds - set(RANK_KINDS))
    if unknown or not kinds:
        raise UsageError(
            f"--fail-on-rank-differences: unknown kind {', '.join(unknown) or '(none given)'}"
            f" (kinds: {', '.join(RANK_KINDS)})"
        )
    return kinds


def check_rank_differences(
    result: CheckResult, diffs: Sequence[RankDifference], kinds: frozenset[str]
) -> None:
    """Add a ``rank_differences`` violation for the differences of *kinds* (multi-rank runs)."""
    found = [d for d in diffs if d.kind in kinds]
    result.counts["rank_differences"] = len(found)
    if found:
        result.violations.append(
            Violation("rank_differences", len(found), None, None, differences=tuple(found))
        )


def run_problems(frames: Sequence[Frame], run: Run) -> list[RunProblem]:
    """Frames that failed to compile, and a run that did not end well. A compile id refused at
    the recompile limit did not fail (its calls ran eagerly; ``--max-recompiles`` gates it)."""
    out = [
        RunProblem("failed", frame=f)
        for f in frames
        if f.failure is not None and f.kind != KIND_RECOMPILE_LIMIT
    ]
    if run.end_reason == "running":
        # the report never got its end: killed (SIGKILL, os._exit, a crash) or still running
        out.append(RunProblem("unfinished"))
    if run.exception:
        out.append(RunProblem("exception", exception=run.exception))
    elif run.exit_code not in (None, 0):
        out.append(RunProblem("exit", exit_code=run.exit_code))
    return out


def check_accuracy(result: CheckResult, accuracy: AccuracyRun | None, max_rel_error: float) -> None:
    """``--max-rel-error X``: fail when an output's error against fp64 is above X, or when the
    report holds no accuracy result (``inspectc accuracy`` did not write it)."""
    if accuracy is None:
        result.violations.append(Violation("rel_error", 0, None, None, unread="not checked"))
        return
    corrupt = [e for e in accuracy.errors if e.startswith(CORRUPT_ACCURACY)]
    if corrupt:  # a gate that cannot read the figures does not pass
        result.violations.append(Violation("rel_error", 0, None, None, unread=corrupt[0]))
        return
    over = [
        (g, o)
        for g in accuracy.graphs
        for o in g.outputs
        if o.max_rel_error is not None and o.max_rel_error > max_rel_error
    ]
    result.counts["rel_error_over"] = len(over)
    if over:
        over.sort(key=lambda go: -(go[1].max_rel_error or 0.0))
        result.violations.append(
            Violation("rel_error", len(over), None, None, outputs=tuple(over), max_rel_error=max_rel_error)
        )
