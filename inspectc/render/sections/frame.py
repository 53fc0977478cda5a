"""One frame in full, as sections: what the TUI's frame screen shows in its tabs (graph breaks
with their stack, fixes and resume functions; recompiles; guards; FX graphs; kernels;
metrics; autotuning and shapes). The HTML page renders these for every frame."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

from inspectc.analysis import breaks
from inspectc.analysis.remedies import Remedy, can_suggest
from inspectc.analysis.resume import BYTECODE_NOTE, Bytecode, created_by, shown_function
from inspectc.analysis.text import location as short_location
from inspectc.analysis.views import shown_status
from inspectc.model import GRAPH_KINDS, PHASE_SECONDS, Frame, GraphBreak, Kernel, Run
from inspectc.render.sections import (
    CODE,
    ERROR,
    STRONG,
    WARNING,
    Column,
    Fold,
    Item,
    Line,
    Section,
    Span,
    Table,
    line,
    plural,
)
from inspectc.render.sections.anchors import KernelAnchors, frame_anchor
from inspectc.render.sections.breaks import failure_text, frame_name, place
from inspectc.render.timefmt import column_unit, noise_text, typical
from inspectc.render.words import consequence, no_graph_reason, symbol_text

GraphText = Callable[[str], str | None]  # graph kind -> its text (read lazily)
MAX_GUARDS = 2_000
MAX_PHASES = 25


def _seconds(value: float | None) -> str:
    return "not recorded" if value is None else f"{value:.2f} s"


def facts(frame: Frame, run: Run) -> Section:
    """The frame at a glance: name, place, status, caches, compile times, sizes, runtime."""
    m = frame.metrics
    rows = [
        ("function", shown_function(frame)),
        (
            "location",
            short_location(frame.filename, frame.line, run) if frame.filename else "not recorded",
        ),
    ]
    if frame.call_site is not None and frame.call_site.filename:
        rows.append(("called at", short_location(frame.call_site.filename, frame.call_site.line, run)))
    rows += [("status", shown_status(frame))]
    if frame.failure is not None:
        rows.append(("failure", failure_text(frame.failure)))
    rows += [
        (f"{which.replace('_', ' ')} cache", status or "-") for which, status in sorted(frame.cache.items())
    ]
    rows += [
        ("compile time", _seconds(m.entire_frame_s)),
        ("backend", _seconds(m.backend_s)),
        ("inductor", _seconds(m.inductor_s)),
        ("code generation", _seconds(m.codegen_s)),
        (
            "graph",
            f"{m.op_count if m.op_count is not None else '?'} ops, {m.node_count if m.node_count is not None else '?'} nodes, {m.input_count if m.input_count is not None else '?'} inputs",
        ),
        (
            "guards",
            f"{len(frame.guards)} listed ({m.guard_count if m.guard_count is not None else 'count not recorded'} by torch's count), {m.shape_env_guard_count if m.shape_env_guard_count is not None else '?'} shape-env",
        ),
        ("kernels", str(frame.kernel_count)),
        ("compile attempts", str(frame.attempts)),
    ]
    if frame.region_time_us is not None:
        rows.append(
            (
                "compiled region",
                f"{frame.region_time_us:,.1f} µs over {frame.region_calls or 0} measured calls",
            )
        )
    if frame.cudagraph_skip_reason:
        rows.append(("cudagraphs skipped", frame.cudagraph_skip_reason))
    return Section(
        key="frame", title=f"Frame {frame.compile_id.label}: {frame_name(frame)}", fields=tuple(rows)
    )


def metrics(frame: Frame) -> Section | None:
    """Where the compile's time went, phase by phase (torch's chromium spans), and every other
    metric torch recorded for the frame."""
    phases = frame.metrics.phases
    total = frame.metrics.entire_frame_s or next(iter(phases.values()), 0.0)
    rows = [
        (line(Span(name, CODE)), line(f"{seconds:.3f}"), line(f"{seconds / total:.0%}" if total else "-"))
        for name, seconds in list(phases.items())[:MAX_PHASES]
    ]
    fields = tuple(
        (key, value if isinstance(value, str) else json.dumps(value, default=str))
        for key, value in sorted(frame.metrics.extra.items())
        if key != PHASE_SECONDS
    )
    if not rows and not fields:
        return None
    columns = (Column("phase"), Column("seconds", True), Column("of the frame", True))
    more = len(phases) - MAX_PHASES
    return Section(
        key="frame-metrics",
        title="Compile time by phase, and torch's other metrics",
        table=Table(columns, tuple(rows)) if rows else None,
        fields=fields,
        notes=(line(f"… {more} shorter phases (inspectc export --json: the frame's metrics)"),)
        if more > 0
        else (),
    )


def _stack_fold(gb: GraphBreak, run: Run) -> Fold | None:
    stack = breaks.positions(gb, run.python_version)
    if not stack:
        return None
    out = []
    for pos in stack:
        sf = pos.frame
        out.append(f"{short_location(sf.filename, sf.line, run)} in {sf.function or '?'}")
        if sf.code:
            out.append(f"    {sf.code.strip()}")
            caret = pos.caret()
            if caret:
                out.append(f"    {caret}")
    return Fold("user stack (most recent call last)", "\n".join(out))


def _resume_folds(
    frames: Sequence[Frame], gb: GraphBreak, bytecode: Callable[[Frame], Bytecode]
) -> list[Fold]:
    out = []
    for resumed in created_by(frames, gb.filename, gb.line)[:2]:
        code = bytecode(resumed)
        for title, text in (("modified", code.modified), ("original", code.original)):
            out.append(
                Fold(
                    f"resume function {resumed.function} (frame {resumed.compile_id}): {title} bytecode",
                    text if text is not None else BYTECODE_NOTE,
                )
            )
    return out


def graph_breaks(
    frame: Frame,
    frames: Sequence[Frame],
    run: Run,
    fixes: dict[tuple[str | None, int | None], list[Remedy]],
    bytecode: Callable[[Frame], Bytecode],
) -> Section | None:
    found = breaks.distinct_breaks(frame.graph_breaks)
    if frame.failure is not None and frame.failure.graph_break is not None:
        found.append((frame.failure.graph_break, 1))
    if not found:
        return None
    items = []
    for n, (gb, count) in enumerate(found):
        title, explanation = breaks.title_and_explanation(gb)
        site = breaks.user_site(gb)
        where = place(site.filename, site.line, run, None) if site else place(gb.filename, gb.line, run, None)
        notes: list[Line] = []
        if site is not None:
            notes.append(line("broke inside library code at ", place(gb.filename, gb.line, run, None)))
        url = breaks.doc_url(gb)
        if url:
            notes.append(line(Span(gb.gb_id or "documentation", STRONG), " ", Span(url, link=url)))
        for said in (breaks.reason_if_new(gb), explanation, consequence(gb)):
            if said:
                notes.append(line(said))
        if count > 1:
            notes.append(line(f"recorded {count}× in this frame (Dynamo restarted its analysis)"))
        notes += [line("hint: ", h) for h in gb.hints]
        for r in fixes.get((gb.filename, gb.line), []):
            if r.change is not None:
                prove = "inspectc suggest" if can_suggest(run) else "set it, then capture again"
                notes.append(
                    line("fix: ", Span(r.change.python, CODE), f"  (prove it on this script: {prove})")
                )
            else:
                notes.append(line("fix: ", r.code or ""))
        folds = [f for f in (_stack_fold(gb, run),) if f is not None]
        folds += _resume_folds(frames, gb, bytecode)
        if gb.raw:
            folds.append(Fold("torch's whole text", gb.raw))
        items.append(
            Item(
                line(Span(title, STRONG), f" [{gb.gb_id}]" if gb.gb_id else None, " at ", where),
                tuple(notes),
                tuple(folds),
                anchor=f"{frame_anchor(frame.compile_id)}-break-{n}",
                severity=ERROR if frame.failure is not None else WARNING,
            )
        )
    return Section(
        key="frame-breaks", title=f"Graph breaks ({len(items)})", severity=WARNING, items=tuple(items)
    )


def recompiles(frame: Frame) -> Section | None:
    if not frame.recompiles:
        return None
    items = []
    for r in frame.recompiles:
        notes = [
            line(f"{g.earlier_compile_id}: " if g.earlier_compile_id else "", g.guard or g.text)
            for g in r.failed_guards
        ]
        earlier = r.earlier_compile_id
        first = line(
            "guard of ",
            Span(str(earlier), link="#" + frame_anchor(earlier))
            if earlier is not None
            else "an earlier entry",
            " failed: ",
            Span((r.guard or r.text).splitlines()[0] if (r.guard or r.text).strip() else "?", CODE),
        )
        items.append(
            Item(
                first,
                tuple(notes) if len(notes) > 1 else (),
                (Fold("whole reason", r.text),),
                severity=WARNING,
            )
        )
    return Section(
        key="frame-recompiles",
        title=f"Recompile reasons ({len(items)})",
        severity=WARNING,
        items=tuple(items),
    )


def guards(frame: Frame, run: Run) -> Section | None:
    if not frame.guards:
        return None
    columns = (Column("kind"), Column("source"), Column("check"), Column("user line"), Column("hint"))
    rows = []
    for g in frame.guards[:MAX_GUARDS]:
        where = short_location(g.filename, g.line, run) if g.filename else ""
        rows.append(
            (
                line(g.kind),
                line(Span(g.source or "", CODE)) if g.source else (),
                line(Span("  " * g.depth + g.code, CODE)),
                line(Span(where, full=g.filename), f"  {g.user_code.strip()}" if g.user_code else None),
                line(g.hint or ""),
            )
        )
    more = len(frame.guards) - MAX_GUARDS
    return Section(
        key="frame-guards",
        title=f"Guards ({len(frame.guards)})",
        table=Table(columns, tuple(rows), filter=True),
        notes=(line(f"… {more} more (inspectc export --json)"),) if more > 0 else (),
        counts={"guards": len(frame.guards)},
    )


def graph_anchor(frame: Frame, kind: str) -> str:
    """The id prefix of an FX graph's lines in the page: ``frame-0-1-g-post_grad`` (line N: ``-N``)."""
    return f"{frame_anchor(frame.compile_id)}-g-{kind}"


def graphs(frame: Frame, run: Run, text: GraphText) -> Section:
    kinds = [k for k in frame.graph_kinds if k not in ("guards",)]
    items = []
    for kind in kinds:
        body = text(kind)
        if body is None:
            continue
        title = GRAPH_KINDS.get(kind, kind.replace("_", " "))
        items.append(
            Item(
                line(Span(title, STRONG), f"  ({plural(body.count(chr(10)) + 1, 'line')})"),
                folds=(Fold(title, body, "python", graph_anchor(frame, kind)),),
            )
        )
    if not items:
        where = short_location(frame.filename, frame.line, run) if frame.filename else None
        return Section(key="frame-graphs", title="FX graphs", notes=(line(no_graph_reason(frame, where)),))
    return Section(key="frame-graphs", title=f"FX graphs and code ({len(items)})", items=tuple(items))


def kernels(kernels_of_frame: Sequence[Kernel], anchors: KernelAnchors) -> Section | None:
    if not kernels_of_frame:
        return None
    tot = column_unit(k.time.total_us if k.time else None for k in kernels_of_frame)
    med = column_unit(typical(k.time) for k in kernels_of_frame)
    columns = (
        Column("kernel"),
        Column("pass"),
        Column("lang"),
        Column("n", True),
        Column(f"median {med.name}", True),
        Column(f"total {tot.name}", True),
        Column("share", True),
        Column("nodes", True),
        Column("note"),
    )
    ordered = sorted(kernels_of_frame, key=lambda k: -(k.time.total_us if k.time else -1.0))
    rows = []
    for k in ordered:
        t = k.time
        rows.append(
            (
                line(Span(k.name, CODE, link="#" + anchors(k))),
                line("bwd" if k.graph_kind.endswith("_backward") else "fwd"),
                line(k.language),
                line(str(t.calls) if t else "-"),
                line(med.fmt(typical(t))),
                line(tot.fmt(t.total_us if t else None)),
                line(f"{t.share:.0%}" if t and t.share is not None else "-"),
                line(str(len(k.fused_nodes))),
                line(noise_text(t)),
            )
        )
    return Section(
        key="frame-kernels",
        title=f"Kernels ({len(ordered)})",
        table=Table(columns, tuple(rows), tuple(anchors(k) for k in ordered)),
        counts={"kernels": len(ordered)},
    )


def extras(frame: Frame, run: Run) -> Section | None:
    """Autotuning, CUDA graphs and symbolic shapes of this frame."""
    items = []
    for e in frame.autotuning:
        picked = f"picked {e.best} ({e.best_ms:.4f} ms)" if e.best_ms is not None else f"picked {e.best}"
        items.append(
            Item(
                line(Span("autotuning", STRONG), f" {e.op}({e.shapes or '?'}): {picked}"),
                tuple(line(f"then {c.name} ({c.ms} ms)") for c in e.choices[1:6]),
            )
        )
    if frame.cudagraphs is not None:
        items.append(Item(line(Span("CUDA graphs", STRONG), f" recorded ×{frame.cudagraphs.recorded}")))
    s = frame.symbolic_shapes
    if s is not None:
        names = ", ".join(symbol_text(x) for x in s.symbols)
        guards_ = [
            line(g.expr, "  ", place(g.filename, g.line, run) if g.filename else "") for g in s.guards[:20]
        ]
        items.append(Item(line(Span("symbolic shapes", STRONG), f" {names or 'none'}"), tuple(guards_)))
    if not items:
        return None
    return Section(key="frame-extras", title="Autotuning, CUDA graphs, shapes", items=tuple(items))


def frame_sections(
    frame: Frame,
    frames: Sequence[Frame],
    run: Run,
    *,
    kernels_of_frame: Sequence[Kernel],
    anchors: KernelAnchors,
    fixes: dict[tuple[str | None, int | None], list[Remedy]],
    graph_text: GraphText,
    bytecode: Callable[[Frame], Bytecode],
) -> list[Section]:
    found = [
        facts(frame, run),
        graph_breaks(frame, frames, run, fixes, bytecode),
        recompiles(frame),
        kernels(kernels_of_frame, anchors),
        guards(frame, run),
        graphs(frame, run, graph_text),
        extras(frame, run),
        metrics(frame),
    ]
    return [s for s in found if s is not None]
