"""``inspectc check``'s verdict in words: the counts when it passes, each exceeded limit and what
exceeds it when it fails (the same lines in the text and in ``--json``'s details)."""

from __future__ import annotations

from inspectc.analysis.breaks import flat
from inspectc.analysis.check import CheckResult, Limits, RunProblem, Violation
from inspectc.analysis.text import Base, counted, location, one_line, printable

MAX_DETAILS = 10


def headline(v: Violation) -> str:
    where = f" on rank {v.rank}" if v.rank is not None else ""
    if v.limit is None:
        return f"{v.what.replace('_', ' ')}: {v.count}{where}"
    return f"{v.what.replace('_', ' ')}: {v.count}{where} > {v.limit} allowed"


def _problem(p: RunProblem) -> str:
    failure = p.frame.failure if p.frame is not None else None
    if p.kind == "failed" and p.frame is not None and failure is not None:
        f = p.frame
        rank = f"rank {f.rank} " if f.rank is not None else ""
        return (
            f"{rank}{f.compile_id} {f.function or '?'}() failed to compile: "
            f"{failure.fail_type or '?'}: {one_line(flat(failure.reason), 160)}"
        )
    if p.kind == "unfinished":
        return "the run did not finish: its report has no end (killed, or still running?)"
    if p.kind == "exception":
        return f"the run ended with {one_line(p.exception, 100)}"
    return f"the run exited {p.exit_code}"


def details(v: Violation, base: Base = None) -> list[str]:
    """What exceeds the limit, one line each (at most :data:`MAX_DETAILS`); paths relative to
    *base*, the run's folder, as every other output shows them."""
    if v.groups:
        return [
            f"{g.count}× {location(g.filename, g.line, base)}: {one_line(g.reason, 90)}"
            for g in v.groups[:MAX_DETAILS]
        ]
    if v.what == "recompiles":
        return [
            f"{f.compile_id} {f.function or '?'}() {location(f.filename, f.line, base)}: {one_line(f.recompiles[0].guard or f.recompiles[0].text, 80)}"
            for f in v.frames[:MAX_DETAILS]
        ]
    if v.frames:
        return [
            f"{f.compile_id} {f.function or '?'}() {location(f.filename, f.line, base)}"
            for f in v.frames[:MAX_DETAILS]
        ]
    if v.problems:
        return [_problem(p) for p in v.problems]
    if v.differences:
        return [
            f"{d.kind}: {one_line(d.what, 80)} (ranks {', '.join(map(str, d.ranks_with))} differ)"
            for d in v.differences[:MAX_DETAILS]
        ]
    if v.costs:
        return [
            f"{(c.cost_us or 0.0) / 1000.0:.2f} ms per call > {v.max_cost_ms or 0.0:g} ms: {location(c.group.filename, c.group.line, base)}: {one_line(c.group.reason, 80)}"
            for c in v.costs[:MAX_DETAILS]
        ]
    if v.unread == "not checked":
        return ["accuracy not checked: run inspectc accuracy to write it"]
    if v.unread:
        return [f"accuracy not read: {v.unread}"]
    return [
        f"graph {g.compile_id} ({g.graph}) {o.name}: rel. error {o.max_rel_error:.3g} > {v.max_rel_error:g}"
        f" (eager {o.eager_rel_error if o.eager_rel_error is None else format(o.eager_rel_error, '.3g')}, {o.verdict})"
        for g, o in v.outputs[:MAX_DETAILS]
    ]


def render_check(result: CheckResult, limits: Limits, report_label: str, base: Base = None) -> str:
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
                f"{counted(t.get('graph_breaks', 0), 'graph break')}, "
                f"{counted(t.get('recompiles', 0), 'recompile')}, {counted(t.get('frames', 0), 'frame')}"
            )
        return f"inspectc check: ok: {report_label}: {', '.join(parts)}"
    lines = [f"inspectc check: FAILED: {report_label}: {len(result.violations)} limit(s) exceeded"]
    for v in result.violations:
        lines.append(f"  {headline(v)}")
        lines += [f"    {printable(d)}" for d in details(v, base)]
    return "\n".join(lines)


def _count(name: str, n: int, limit: int | None) -> str:
    return counted(n, name.removesuffix("s")) + (f" (max {limit})" if limit is not None else "")
