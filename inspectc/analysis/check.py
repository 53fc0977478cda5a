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
from dataclasses import dataclass, field

from inspectc.analysis.breaks import flat
from inspectc.analysis.rank_records import KINDS as RECORD_KINDS
from inspectc.analysis.ranks import RankDifference
from inspectc.analysis.views import break_groups, one_line
from inspectc.analysis.views import printable as _clean
from inspectc.errors import UsageError
from inspectc.model import STATUS_FAILED, Frame, Run
from inspectc.model.accuracy import CORRUPT as CORRUPT_ACCURACY
from inspectc.model.accuracy import AccuracyRun


@dataclass(frozen=True, slots=True)
class Limits:
    max_graph_breaks: int | None = None
    max_recompiles: int | None = None
    max_frames: int | None = None
    fail_on_error: bool = False


@dataclass(frozen=True, slots=True)
class Violation:
    what: str  # graph_breaks | recompiles | frames | errors
    count: int
    limit: int | None
    rank: int | None
    details: tuple[str, ...] = ()

    def headline(self) -> str:
        where = f" on rank {self.rank}" if self.rank is not None else ""
        if self.limit is None:
            return f"{self.what.replace('_', ' ')}: {self.count}{where}"
        return f"{self.what.replace('_', ' ')}: {self.count}{where} > {self.limit} allowed"


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


def check_frames(frames: Sequence[Frame], run: Run, limits: Limits) -> CheckResult:
    by_rank: dict[int | None, list[Frame]] = {}
    for f in frames:
        by_rank.setdefault(f.rank, []).append(f)
    if not by_rank:
        by_rank[None] = []
    result = CheckResult()
    worst: dict[str, tuple[int, int | None, list[Frame]]] = {}
    for rank, own in by_rank.items():
        counts = {
            "graph_breaks": sum(len(f.graph_breaks) for f in own),
            "recompiles": sum(len(f.recompiles) for f in own),
            "frames": len(own),
            "failed": sum(1 for f in own if f.status == STATUS_FAILED),
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
            result.violations.append(
                Violation(name, n, limit, rank if ranked else None, tuple(_details(name, own)))
            )
    if limits.fail_on_error:
        errors = _errors(frames, run)
        if errors:
            result.violations.append(Violation("errors", len(errors), None, None, tuple(errors)))
    return result


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
        details = tuple(
            f"{d.kind}: {one_line(d.what, 80)} (ranks {', '.join(map(str, d.ranks_with))} differ)"
            for d in found[:10]
        )
        result.violations.append(Violation("rank_differences", len(found), None, None, details))


def _details(name: str, frames: list[Frame], limit: int = 10) -> list[str]:
    if name == "graph_breaks":
        return [f"{g.count}× {g.location}: {one_line(g.reason, 90)}" for g in break_groups(frames)[:limit]]
    if name == "recompiles":
        out = []
        for f in frames:
            for r in f.recompiles[:1]:
                out.append(
                    f"{f.compile_id} {f.function or '?'}() {f.location}: {one_line(r.guard or r.text, 80)}"
                )
        return out[:limit]
    return [f"{f.compile_id} {f.function or '?'}() {f.location}" for f in frames[:limit]]


def _errors(frames: Sequence[Frame], run: Run) -> list[str]:
    out = []
    for f in frames:
        if f.failure is not None:
            rank = f"rank {f.rank} " if f.rank is not None else ""
            out.append(
                f"{rank}{f.compile_id} {f.function or '?'}() failed to compile: "
                f"{f.failure.fail_type or '?'}: {one_line(flat(f.failure.reason), 160)}"
            )
    if run.end_reason == "running":
        # the report never got its end: killed (SIGKILL, os._exit, a crash) or still running
        out.append("the run did not finish: its report has no end (killed, or still running?)")
    if run.exception:
        out.append(f"the run ended with {one_line(run.exception, 100)}")
    elif run.exit_code not in (None, 0):
        out.append(f"the run exited {run.exit_code}")
    return out


def render_check(result: CheckResult, limits: Limits, report_label: str) -> str:
    c = result.counts
    if result.ok:
        parts = [
            _count("graph breaks", c.get("graph_breaks", 0), limits.max_graph_breaks),
            _count("recompiles", c.get("recompiles", 0), limits.max_recompiles),
            _count("frames", c.get("frames", 0), limits.max_frames),
        ]
        if result.per_rank:  # the counts are the worst rank's: say which, and the sums
            on = ", ".join(
                f"{k.replace('_', ' ')} rank {r}" for k, r in result.worst_rank.items() if r is not None
            )
            t = result.total
            parts.append(
                f"per rank, worst: {on}; in total over {len(result.per_rank)} ranks: "
                f"{t.get('graph_breaks', 0)} graph breaks, {t.get('recompiles', 0)} recompiles, "
                f"{t.get('frames', 0)} frames"
            )
        return f"inspectc check: ok: {report_label}: {', '.join(parts)}"
    lines = [f"inspectc check: FAILED: {report_label}: {len(result.violations)} limit(s) exceeded"]
    for v in result.violations:
        lines.append(f"  {v.headline()}")
        for d in v.details:
            lines.append(f"    {_clean(d)}")
    return "\n".join(lines)


def _count(name: str, n: int, limit: int | None) -> str:
    return f"{n} {name}" + (f" (max {limit})" if limit is not None else "")


def check_accuracy(result: CheckResult, accuracy: AccuracyRun | None, max_rel_error: float) -> None:
    """``--max-rel-error X``: fail when an output's error against fp64 is above X, or when the
    report holds no accuracy result (``inspectc accuracy`` did not write it)."""
    if accuracy is None:
        result.violations.append(
            Violation(
                "rel_error", 0, None, None, ("accuracy not checked: run inspectc accuracy to write it",)
            )
        )
        return
    corrupt = [e for e in accuracy.errors if e.startswith(CORRUPT_ACCURACY)]
    if corrupt:  # a gate that cannot read the figures does not pass
        result.violations.append(Violation("rel_error", 0, None, None, (f"accuracy not read: {corrupt[0]}",)))
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
        details = tuple(
            f"graph {g.compile_id} ({g.graph}) {o.name}: rel. error {o.max_rel_error:.3g} > {max_rel_error:g}"
            f" (eager {o.eager_rel_error if o.eager_rel_error is None else format(o.eager_rel_error, '.3g')}, {o.verdict})"
            for g, o in over[:10]
        )
        result.violations.append(Violation("rel_error", len(over), None, None, details))
