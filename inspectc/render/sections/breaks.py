"""Graph breaks, recompiles and failed frames: what stopped or repeated compiling.

A break group's place is the user's own line (with the library line it broke inside, when
it did), its name and id, the frames it happened in, what it means and its documentation
page. Paths are relative to the run's folder in every output; the absolute path rides along
(:attr:`Span.full`) for the JSON and HTML titles.
"""

from __future__ import annotations

from collections.abc import Sequence

from inspectc.analysis import breaks
from inspectc.analysis.costs import BreakCost
from inspectc.analysis.paths import comparable_path
from inspectc.analysis.resume import short_function
from inspectc.analysis.text import Base, cwd_of
from inspectc.analysis.text import location as short_location
from inspectc.analysis.trie import break_trie
from inspectc.analysis.views import BreakGroup, break_groups
from inspectc.model import KIND_RECOMPILE_LIMIT, Failure, Frame, GraphBreak, Recompile, Run, StackFrame
from inspectc.render.sections import (
    CODE,
    ERROR,
    STRONG,
    WARNING,
    Fold,
    Item,
    Line,
    Section,
    Span,
    line,
    plural,
    ranges,
)
from inspectc.render.sections.anchors import break_anchor, frame_anchor
from inspectc.render.trie import render_trie
from inspectc.render.words import consequence, cost_line, stack_value

MAX_ITEMS = 1_000  # break groups and recompiles the section holds (the JSON export has them all)
BRIEF_BREAKS = 20  # break groups the terminal summary shows
BRIEF_RECOMPILES = 40  # recompiles the terminal summary shows (3 at most per frame)
MAX_FAILED = 8  # cache entries listed under one recompile
STACK_CAP = 12  # innermost user-stack frames in a break's fold
WHERE_WIDTH = 40


def place(filename: str | None, line_no: int | None, base: Base, width: int | None = WHERE_WIDTH) -> Span:
    """``train.py:41`` (relative to the run's folder, shortened to *width*) as code, the full path
    behind it."""
    return Span(short_location(filename, line_no, base, width), CODE, full=filename)


def frame_id(frame: Frame, ranked: bool) -> str:
    """A frame's id in a section: ``r2 0/1`` in a multi-rank report (ids repeat per rank)."""
    return frame.compile_id.label if ranked else str(frame.compile_id)


def _ranked(frames: Sequence[Frame]) -> bool:
    return len({f.rank for f in frames}) > 1


# -- graph breaks --------------------------------------------------------------------------------


def graph_breaks(
    frames: Sequence[Frame], run: Run, *, limit: int = MAX_ITEMS, costs: Sequence[BreakCost] = ()
) -> Section | None:
    groups = break_groups(frames)
    cost_of = {(c.group.filename, c.group.line, c.group.reason): c for c in costs}
    if not groups:
        return None
    ranks = sorted({f.rank for f in frames if f.rank is not None})
    total = sum(g.count for g in groups)
    on_ranks = f"; ranks {ranges(ranks)} together" if len(ranks) > 1 else ""
    items = tuple(
        _break_item(g, run, ranked=len(ranks) > 1, cost=cost_of.get((g.filename, g.line, g.reason)))
        for g in groups[:limit]
    )
    more = len(groups) - len(items)
    return Section(
        key="breaks",
        title=f"Graph breaks ({len(groups)} unique, {total} total{on_ranks})",
        severity=WARNING,
        items=items,
        notes=(line(f"… {more} more (inspectc export --json: graph_breaks)"),) if more > 0 else (),
        counts={"unique": len(groups), "total": total},
        brief_items=BRIEF_BREAKS,
        total=len(groups),
    )


def _break_item(g: BreakGroup, base: Base, *, ranked: bool, cost: BreakCost | None = None) -> Item:
    """A break group: count, place, name and id, the frames; then, whole, what it means and
    its documentation page (never cut: they are what the reader acts on)."""
    title, explanation = breaks.title_and_explanation(g.example)
    ids = [c.label if ranked else str(c) for c in g.compile_ids]
    where = place(g.filename, g.line, base)
    site = breaks.user_site(g.example)
    notes: list[Line] = []
    if site is not None:  # inside a library: the user's own line first, where it broke under it
        inside = f"{comparable_path(g.filename, cwd_of(base))}:{g.line}"  # torch/optim/optimizer.py:79
        where = place(site.filename, site.line, base)
        notes.append(line("broke inside library code: ", Span(inside, CODE, full=g.filename)))
    for said in (breaks.reason_if_new(g.example), explanation, _skipped(g, ranked)):
        if said:
            notes.append(line(" ".join(said.split())))  # whole, every line
    url = breaks.doc_url(g.example)
    if url:
        notes.append(line(Span(url, link=url)))
    if cost is not None and cost.measured:
        notes.append(line(cost_line(cost)))
    if cost is not None and cost.intended:
        notes.append(line(f"intended: {cost.intended}"))
    gid = f" [{g.gb_id}]" if g.gb_id else ""
    first = line(
        Span(f"{g.count:>3}×", STRONG),
        "  ",
        where,
        "  ",
        _one_line(title, 200),
        gid,
        "  (",
        *_frame_links(g.compile_ids[:4], ids[:4]),
        ", …)" if g.count > 4 else ")",
    )
    return Item(
        first,
        tuple(notes),
        folds=(Fold(f"details of {where.text}", break_details(g, base)),),
        anchor=break_anchor(g.filename, g.line, g.reason),
        severity=WARNING,
    )


def _frame_links(cids: Sequence[object], texts: Sequence[str]) -> list[Span | str]:
    out: list[Span | str] = []
    for n, (cid, text) in enumerate(zip(cids, texts)):
        if n:
            out.append(", ")
        out.append(Span(text, link="#" + frame_anchor(cid)))  # type: ignore[arg-type]
    return out


def _skipped(g: BreakGroup, ranked: bool) -> str | None:
    """What the break did beyond itself (Dynamo skipped the frame), in which of its frames."""
    said = consequence(g.skip_example) if g.skip_example is not None else None
    if said is None or len(g.skipped) == g.count:
        return said
    ids = ", ".join(c.label if ranked else str(c) for c in g.skipped[:4])
    return f"in {ids}{', …' if len(g.skipped) > 4 else ''}: {said}"


def break_details(g: BreakGroup, base: Base) -> str:
    """The bulky part of a break group (type, explanation, hints, stack, whole reason)."""
    ex = g.example
    out = []
    if g.gb_type or g.gb_id:
        out.append(f"type: {g.gb_type or '?'}" + (f"  [{g.gb_id}]" if g.gb_id else ""))
    if ex.explanation:
        out.append(f"explanation: {ex.explanation}")
    if ex.hints:
        out.append("hints:")
        out += [f"  - {h}" for h in ex.hints]
    out += stack_lines(ex, base)
    if len(g.reason) > 300 or "\n" in g.reason.strip():
        out.append(f"reason: {g.reason}")
    out.append("frames: " + ", ".join(str(c) for c in g.compile_ids))
    return "\n".join(out)


def stack_lines(gb: GraphBreak, base: Base) -> list[str]:
    if not gb.user_stack:
        return []
    out = ["user stack (most recent call last):"]
    hidden = len(gb.user_stack) - STACK_CAP
    if hidden > 0:
        out.append(f"  … {plural(hidden, 'earlier frame')}")
    for s in gb.user_stack[-STACK_CAP:]:
        out.append(f"  {short_location(s.filename, s.line, base)} in {s.function or '?'}")
        if s.code:
            out.append(f"      {s.code.strip()}")
    return out


def _one_line(text: str | None, width: int = 100) -> str:
    if not text or not text.strip():
        return ""
    first = text.strip().splitlines()[0]
    return first if len(first) <= width else first[: max(width - 1, 0)] + "…"


# -- recompiles ----------------------------------------------------------------------------------


def recompiles(frames: Sequence[Frame], run: Run, *, limit: int = MAX_ITEMS) -> Section | None:
    """Every recompile (one per ``recompile_reasons`` record; 3 at most per frame shown)."""
    recompiled = [f for f in frames if f.recompiles]
    if not recompiled:
        return None
    count = sum(len(f.recompiles) for f in recompiled)
    ranks = sorted({f.rank for f in frames if f.rank is not None})
    on_ranks = f"; ranks {ranges(ranks)} together" if len(ranks) > 1 else ""
    items = [_recompile_item(f, r, frames, run) for f in recompiled for r in f.recompiles[:3]]
    shown = items[:limit]
    more = count - len(shown)
    return Section(
        key="recompiles",
        title=f"Recompiles ({count}{on_ranks})",
        severity=WARNING,
        items=tuple(shown),
        notes=(line(f"… {more} more (inspectc export --json: recompiles)"),) if more > 0 else (),
        counts={"total": count, "frames": len(recompiled)},
        brief_items=BRIEF_RECOMPILES,
        total=count,
    )


def frame_name(f: Frame) -> str:
    """``BertModel.forward (wrapper)`` or ``fn()``: a frame as the frame table names it."""
    short = short_function(f.function)
    return f"{f.callable_name} ({short})" if f.callable_name else f"{short}()"


def _recompile_item(f: Frame, r: Recompile, frames: Sequence[Frame], run: Run) -> Item:
    """A recompile: the frame, the user line torch's message names, the failed guard, and
    what a ``___stackN`` in it holds."""
    guard = r.guard or r.text
    site = breaks.recompile_site(r.text, f.filename)
    at = site or StackFrame(filename=f.filename, line=f.line, function=f.function)
    fid = frame_id(f, _ranked(frames))
    first = line(
        Span(f"{fid:<6}", CODE, link="#" + frame_anchor(f.compile_id)),
        " ",
        frame_name(f),
        *((" at ", place(at.filename, at.line, run)) if at.filename else ()),
        *((" `", site.code, "`") if site and site.code else ()),
        ": ",
        _one_line(guard, 120),
        f" (guard of {r.earlier_compile_id} failed)" if r.earlier_compile_id else None,
    )
    notes = [
        line(stack_value(value, short_location(value.filename, value.line, run, WHERE_WIDTH)))
        for value in breaks.stack_values(guard, f, frames, run.python_version)
    ]
    failed = r.failed_guards
    if len(failed) > 1:  # one failed guard per earlier cache entry, newest first
        notes.append(line(f"{len(failed)} cache entries failed their guards:"))
        for g in failed[:MAX_FAILED]:
            of = f"{g.earlier_compile_id}: " if g.earlier_compile_id else ""
            notes.append(line(f"  {of}{_one_line(g.guard or g.text, 110)}"))
        if len(failed) > MAX_FAILED:
            notes.append(line(f"  … {len(failed) - MAX_FAILED} more"))
    full = r.text if len(r.text) > 120 or "\n" in r.text.strip() else ""
    return Item(
        first,
        tuple(notes),
        folds=(Fold(f"whole reason of {fid}", full),) if full else (),
        severity=WARNING,
        note_indent=9,
    )


# -- failed frames -------------------------------------------------------------------------------


def failure_text(failure: Failure) -> str:
    """A failed frame's reason on one line, every line of it kept (joined by `` ⏎ ``); a
    graph break that ``fullgraph=True`` made fatal is named, the user's message first."""
    if failure.graph_break is not None:
        gid = f" [{failure.graph_break.gb_id}]" if failure.graph_break.gb_id else ""
        said = breaks.user_message(failure.graph_break)
        first = f'"{said}" ' if said else ""
        after = consequence(failure.graph_break)
        then = f" ⏎ {after}" if after else ""
        return f"{first}not compiled: graph break{gid}: {breaks.flat(failure.graph_break.reason)}{then}"
    return f"{failure.fail_type or '?'}: {breaks.flat(failure.reason)}"


def failed_frames(frames: Sequence[Frame], run: Run) -> Section | None:
    # a compile id refused at the recompile limit is counted on its own line, and remedied
    failed = [f for f in frames if f.failure is not None and f.kind != KIND_RECOMPILE_LIMIT]
    if not failed:
        return None
    ranks = sorted({f.rank for f in frames if f.rank is not None})
    on_ranks = f"; ranks {ranges(ranks)} together" if len(ranks) > 1 else ""
    items = []
    for f in failed:
        fail = f.failure
        assert fail is not None
        fid = frame_id(f, len(ranks) > 1)
        reason = fail.reason or ""
        whole = reason if len(reason) > 240 or "\n" in reason.strip() else ""
        items.append(
            Item(
                line(
                    Span(f"{fid:<6}", CODE, link="#" + frame_anchor(f.compile_id)),
                    " ",
                    place(fail.filename or f.filename, fail.line or f.line, run),
                    "  ",
                    _one_line(failure_text(fail), 240),
                ),
                folds=(Fold(f"full error of {fid}", whole),) if whole else (),
                severity=ERROR,
            )
        )
    return Section(
        key="failed",
        title=f"Failed frames ({len(failed)}{on_ranks})",
        severity=ERROR,
        items=tuple(items),
        counts={"total": len(failed)},
    )


def break_stacks(frames: Sequence[Frame], run: Run) -> Section | None:
    """Every graph break under the user frames that led to it (one stack trie, folded)."""
    root = break_trie(frames)
    if not root.children and not root.breaks:
        return None
    lines = render_trie(root, lambda filename, line_no: short_location(filename, line_no, run))
    return Section(
        key="stacks",
        title="Break stacks",
        items=(
            Item(
                line(
                    f"every graph break under the user frames that led to it ({plural(len(lines), 'line')})"
                ),
                folds=(Fold("the stack trie", "\n".join(lines)),),
            ),
        ),
        brief=False,
    )
