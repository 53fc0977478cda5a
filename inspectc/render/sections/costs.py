"""What to fix first: every graph break ranked by what it measured to cost per call (with n,
spread and its share of the call; cheap ones said to be cheap; intended ones named as torch's),
then every recompile by the compile time it caused; each with its remedy."""

from __future__ import annotations

from collections.abc import Sequence

from inspectc.analysis.costs import BreakCost, RecompileCost
from inspectc.analysis.remedies import Remedy
from inspectc.analysis.text import location as short_location
from inspectc.model import KernelTime, Run
from inspectc.render.sections import CODE, STRONG, WARNING, Item, Line, Section, Span, line, plural
from inspectc.render.sections.anchors import break_anchor, frame_anchor
from inspectc.render.sections.breaks import frame_name
from inspectc.render.words import cost_line, eager_line, time_text

SHOWN = 12


def _fix(remedies: Sequence[Remedy]) -> Line:
    for r in remedies:
        if r.change is not None:
            return line(" → try ", Span(r.change.python, CODE))
    for r in remedies:
        if r.code:
            return line(" → ", r.code)
    return ()


def costs(
    breaks: Sequence[BreakCost],
    recompiles: Sequence[RecompileCost],
    fixes: dict[tuple[str | None, int | None], list[Remedy]],
    run: Run,
    *,
    gaps_recorded: bool = True,
) -> Section | None:
    measured = [c for c in breaks if c.measured]
    if not measured and not recompiles:
        return None
    items = []
    for c in measured[:SHOWN]:
        g = c.group
        where = Span(short_location(g.filename, g.line, run, 40), CODE, full=g.filename)
        head = line(
            Span(f"{time_text(c.cost_us or 0.0):>9}", STRONG),
            "  break at ",
            where,
            f"  {g.gb_type or g.reason.splitlines()[0] if g.reason else '?'}"[:120],
            *_fix(fixes.get((g.filename, g.line), [])) if not c.intended else (),
        )
        notes = [line(cost_line(c))]
        if c.intended:
            notes.append(line(f"intended: {c.intended}; compile the whole step with it, or leave it"))
        items.append(
            Item(
                head,
                tuple(notes),
                anchor=break_anchor(g.filename, g.line, g.reason) + "-cost",
                severity="" if c.cheap or c.intended else WARNING,
            )
        )
    for r in recompiles[:SHOWN]:
        f = r.frame
        took = (
            time_text((r.compile_s or 0.0) * 1e6) if r.compile_s is not None else "compile time not recorded"
        )
        if r.eager is not None and r.eager.calls:
            took = f"{r.eager.calls}× eager"
        head = line(
            Span(f"{took:>9}", STRONG),
            "  recompile limit hit at " if r.limit_hit else "  recompile ",
            Span(str(f.compile_id), link="#" + frame_anchor(f.compile_id)),
            f" {frame_name(f)}: ",
            (r.recompile.guard or r.recompile.text).splitlines()[0][:120]
            if (r.recompile.guard or r.recompile.text).strip()
            else "?",
        )
        note = (
            line(eager_line(r.eager))
            if r.limit_hit
            else line("compile time of the recompile (once, not per call)")
        )
        items.append(Item(head, (note,), severity=WARNING if r.limit_hit else ""))
    unmeasured = len(breaks) - len(measured)
    why = (
        "outside the timing window"
        if gaps_recorded
        else "this report records no gaps: captured with --no-timings, imported from a log, or by an older inspectc"
    )
    notes = [line(f"{unmeasured} break(s) not measured ({why})")] if unmeasured else []
    return Section(
        key="costs",
        title=f"What to fix first (measured: {plural(len(measured), 'break')} per call, {plural(len(recompiles), 'recompile')})",
        severity=WARNING
        if any(not c.cheap and not c.intended for c in measured) or any(r.limit_hit for r in recompiles)
        else "",
        items=tuple(items),
        notes=tuple(notes),
        counts={"breaks_measured": len(measured), "recompiles": len(recompiles)},
    )


def _time_plain(t: KernelTime | None) -> dict[str, object] | None:
    if t is None:
        return None
    return {"median_us": t.typical_us, "calls": t.calls, "cv": t.cv, "min_us": t.min_us, "max_us": t.max_us}


def plain(breaks: Sequence[BreakCost], recompiles: Sequence[RecompileCost]) -> dict[str, object]:
    """The JSON export's ``costs``: every break's measured cost (dearest first) and every
    recompile's compile time."""
    return {
        "breaks": [
            {
                "filename": c.group.filename,
                "line": c.group.line,
                "reason": c.group.reason,
                "gb_id": c.group.gb_id,
                "count": c.group.count,
                "measured": c.measured,
                "cost_us": c.cost_us,
                "share_of_call": c.share,
                "cheap": c.cheap if c.measured else None,
                "waits_on": c.waits_on,
                "intended": c.intended,
                "host_gap": _time_plain(c.gap),
                "device_idle": _time_plain(c.device),
                "call": _time_plain(c.call),
            }
            for c in breaks
        ],
        "recompiles": [
            {
                "compile_id": str(r.frame.compile_id),
                "rank": r.frame.rank,
                "function": r.frame.function,
                "reason": r.recompile.guard or r.recompile.text,
                "compile_s": r.compile_s,
                "limit_hit": r.limit_hit,
                "eager_calls": r.eager.calls if r.eager is not None else None,
                "eager_call": _time_plain(r.eager.time) if r.eager is not None else None,
                "eager_not_recorded": r.eager.why_not if r.eager is not None else None,
            }
            for r in recompiles
        ],
    }
