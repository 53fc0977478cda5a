"""A frame's extras (CUDA graphs, autotuning, symbolic shapes) and what a run logged beside
its frames (exported programs, the draft-export report, AOTInductor compiles, links, cache
keys, other artifacts), as sections.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import TypeVar

from inspectc.analysis.text import Base
from inspectc.analysis.text import location as short_location
from inspectc.model import CompileId, Frame, Run, StackFrame
from inspectc.model.runrecords import AotCompile, ExportedProgram, RunRecords
from inspectc.render import programs
from inspectc.render.sections import CODE, WARNING, Item, Line, Section, Span, line, plural
from inspectc.render.sections.anchors import frame_anchor
from inspectc.render.sections.breaks import frame_id
from inspectc.render.words import symbol_text

MAX_OPS = 12
MAX_FRAMES = 8
T = TypeVar("T")


def _fid(f: Frame, ranked: bool = False) -> Span:
    return Span(f"{frame_id(f, ranked):<6}", CODE, link="#" + frame_anchor(f.compile_id))


def _ms(value: float | None) -> str:
    return f"{value:.4f} ms" if isinstance(value, (int, float)) else "? ms"


def cudagraphs(frames: Sequence[Frame]) -> Section | None:
    recorded = [f for f in frames if f.cudagraphs is not None]
    skipped = [f for f in frames if f.cudagraph_skip_reason]
    if not recorded and not skipped:
        return None
    items = [
        Item(
            line(_fid(f), f" {f.function or '?'}(): recorded ×{f.cudagraphs.recorded if f.cudagraphs else 0}")
        )
        for f in recorded
    ]
    for f in skipped:
        reason = (f.cudagraph_skip_reason or "").strip().splitlines()[0]
        items.append(
            Item(line(_fid(f), f" {f.function or '?'}(): skipped: {reason[:100]}"), severity=WARNING)
        )
    return Section(
        key="cudagraphs",
        title=f"CUDA graphs ({len(recorded)} frames recorded, {len(skipped)} skipped)",
        items=tuple(items),
        counts={"recorded": len(recorded), "skipped": len(skipped)},
    )


def autotuning(frames: Sequence[Frame]) -> Section | None:
    tuned = [(f, e) for f in frames for e in f.autotuning]
    if not tuned:
        return None
    items = []
    for f, e in tuned[:MAX_OPS]:
        took = f" in {e.seconds:.1f}s" if e.seconds is not None else ""
        choices = e.num_choices if e.num_choices is not None else "?"
        items.append(
            Item(
                line(
                    _fid(f),
                    f" {e.op}({e.shapes or '?'}): {choices} choices{took}, picked {e.best} {_ms(e.best_ms)}",
                ),
                tuple(line(f"then {c.name} {_ms(c.ms)}") for c in e.choices[1:4]),
                note_indent=9,
            )
        )
    more = len(tuned) - MAX_OPS
    return Section(
        key="autotuning",
        title=f"Autotuning ({plural(len(tuned), 'op')}; best first)",
        items=tuple(items),
        notes=(line(f"… {more} more"),) if more > 0 else (),
        counts={"ops": len(tuned)},
    )


def _unique(items: Iterable[T]) -> list[T]:
    out: list[T] = []
    for item in items:
        if item not in out:
            out.append(item)
    return out


def symbolic_shapes(frames: Sequence[Frame], run: Run) -> Section | None:
    shaped = [(f, f.symbolic_shapes) for f in frames if f.symbolic_shapes is not None]
    if not shaped:
        return None
    ranked = len({f.rank for f in frames}) > 1
    items = []
    for f, s in shaped[:MAX_FRAMES]:
        if s is None:
            continue
        # a restarted analysis (attempt 1) emits the same symbols and guards again: show once
        symbols = _unique(s.symbols)
        guards = _unique(s.guards)
        names = ", ".join(symbol_text(x) for x in symbols[:3])
        more = f" (+{len(symbols) - 3})" if len(symbols) > 3 else ""
        notes = []
        for g in guards[:3]:
            where = short_location(g.filename, g.line, run, 40) if g.filename else ""
            notes.append(line(g.expr[:70], *(("  ", Span(where, CODE, full=g.filename)) if where else ())))
        items.append(
            Item(
                line(
                    _fid(f, ranked),
                    f" {f.function or '?'}(): {names}{more}; {plural(len(guards), 'shape guard')}",
                ),
                tuple(notes),
                note_indent=9,
            )
        )
    return Section(
        key="symbolic_shapes",
        title="Symbolic shapes (dynamic sizes and the guards on them)",
        items=tuple(items),
        counts={"frames": len(shaped)},
    )


# -- beside the frames: torch.export, AOTInductor, links, artifacts -----------------------------


def _site(frame: StackFrame, base: Base) -> Line:
    code = f": {_first(frame.code, 80)}" if frame.code else ""
    return line(Span(short_location(frame.filename, frame.line, base, 40), CODE, full=frame.filename), code)


def _first(text: str | None, width: int) -> str:
    first = (text or "").strip().splitlines()[0] if (text or "").strip() else ""
    return first if len(first) <= width else first[: width - 1] + "…"


def beside_frames(records: RunRecords, run: Run) -> list[Section]:
    """Sections for what a run logged outside its frames (empty when it logged none)."""
    out: list[Section] = []
    if records.export_traced and not records.exported_programs:
        out.append(
            Section(
                key="export_not_logged",
                title="torch.export ran, but this log holds no exported program: torch logs it (and the"
                " draft-export report) only with TORCH_DTRACE=<dir>, not TORCH_TRACE",
            )
        )
    out += [_program(p, run) for p in records.exported_programs]
    issues = programs.issues_of(records)
    if issues or records.exported_programs:
        out.append(_issues(records, run))
    out += [_aot(a, run) for a in records.aot_compiles]
    out += _links(records)
    return out


def _program(p: ExportedProgram, base: Base) -> Section:
    rank = f"rank {p.rank} " if p.rank is not None else ""
    kinds = Counter(i.split(": ", 1)[1].split()[0] if ": " in i else "?" for i in p.inputs)
    inputs = ", ".join(plural(n, k.lower().replace("_", " ")) for k, n in kinds.items())
    title = (
        f"Exported program {rank}{p.key} ({plural(len(p.inputs), 'input')}"
        + (f": {inputs}" if inputs else "")
        + f"; {plural(len(p.outputs), 'output')}; {plural(p.op_count, 'op')})"
    )
    items = []
    if p.ops:
        names = [o.removeprefix("aten.").removesuffix(".default") for o in p.ops]
        items.append(Item(line("ops: " + ", ".join(names[:10]) + (", …" if len(names) > 10 else ""))))
    if p.unbacked_symbols:
        items.append(Item(line(f"data-dependent symbols: {', '.join(p.unbacked_symbols)}")))
    if p.range_constraints and p.range_constraints != "{}":
        items.append(Item(line(f"range constraints: {_first(p.range_constraints, 150)}")))
    if p.call_site:
        items.append(Item(line("exported at ", *_site(p.call_site, base))))
    return Section(key="exported_program", title=title, items=tuple(items))


def _issues(records: RunRecords, base: Base) -> Section:
    issues = programs.issues_of(records)
    if not issues:
        return Section(
            key="draft_export",
            title="Draft-export report: no issues (the program is sound as traced)",
            counts={"issues": 0},
        )
    tally = Counter(programs.ISSUE_TITLES.get(i.kind, i.kind) for i in issues)
    failed = " (an export that logged no program)" if records.export_issues else ""
    items = []
    for i in issues[: programs.MAX_ISSUES]:
        times = f" ×{i.occurrences}" if i.occurrences > 1 else ""
        kind = programs.ISSUE_TITLES.get(i.kind, i.kind)
        where = Span(short_location(i.filename, i.line, base, 40), CODE, full=i.filename)
        notes = (line(_first(i.code, 100)),) if i.code else ()
        items.append(
            Item(
                line(f"{kind:<17} ", where, times, "  ", programs.issue_text(i)),
                notes,
                severity=WARNING,
                note_indent=20,
            )
        )
    more = len(issues) - programs.MAX_ISSUES
    return Section(
        key="draft_export",
        title=f"Draft-export report ({', '.join(f'{n} {what}' for what, n in tally.items())}){failed}:"
        " what export assumed or could not check",
        severity=WARNING,
        items=tuple(items),
        notes=(line(f"… {more} more (inspectc export --json: export_issues)"),) if more > 0 else (),
        counts={"issues": len(issues)},
    )


def _aot(a: AotCompile, base: Base) -> Section:
    rank = f"rank {a.rank} " if a.rank is not None else ""
    langs = Counter("library call" if k.kernel.language == "extern" else k.kernel.language for k in a.kernels)
    took = f", {a.compile_s:.1f}s compiling" if a.compile_s is not None else ""
    code = ", ".join(
        f"{c.kind.removeprefix('aot_').removesuffix('_code')} {c.size / 1000:.1f} KB" for c in a.code
    )
    title = (
        f"AOTInductor compile {rank}{a.key}: {plural(len(a.kernels), 'kernel')}"
        + (f" ({', '.join(f'{n} {what}' for what, n in langs.items())})" if langs else "")
        + took
    )
    items = [Item(line(f"code: {code or 'none logged'}"))]
    if a.call_site:
        items.append(Item(line("compiled at ", *_site(a.call_site, base))))
    for k in a.kernels[: programs.MAX_KERNELS]:
        fused = ", ".join(k.kernel.fused_nodes[:6]) + (", …" if len(k.kernel.fused_nodes) > 6 else "")
        where = sorted(
            {short_location(o.filename, o.line, base, 40) for o in k.kernel.origins if o.filename}
        )[:2]
        items.append(
            Item(
                line(
                    Span(f"{k.kernel.name[:48]:<48}", CODE),
                    f" {fused or '-'}",
                    f"  ({', '.join(where)})" if where else None,
                )
            )
        )
    if len(a.kernels) > programs.MAX_KERNELS:
        items.append(Item(line(f"… {len(a.kernels) - programs.MAX_KERNELS} more kernels")))
    if a.kernels and not a.provenance:
        items.append(
            Item(
                line(
                    "fused nodes not recorded: set torch._inductor.config.trace.provenance_tracking_level = 1"
                )
            )
        )
    return Section(key="aot_compile", title=title, items=tuple(items), counts={"kernels": len(a.kernels)})


def _owner(rank: int | None, compile_id: CompileId | None) -> str:
    return (f"r{rank} " if rank is not None else "") + (str(compile_id) if compile_id is not None else "-")


def _links(records: RunRecords) -> list[Section]:
    out = []
    if records.links:
        items = tuple(
            Item(
                line(
                    f"{_owner(link.rank, link.compile_id):<8} {link.name}: ", Span(link.url[:150], link=None)
                )
            )
            for link in records.links[: programs.MAX_LINKS]
        )
        out.append(Section(key="links", title=f"Links ({len(records.links)})", items=items))
    if records.cache_keys:
        keys = ", ".join(f"{_owner(k.rank, k.compile_id)} {k.key[:12]}…" for k in records.cache_keys[:4])
        out.append(
            Section(
                key="cache_keys",
                title=f"FX graph cache keys ({len(records.cache_keys)}): {keys}",
                counts={"keys": len(records.cache_keys)},
            )
        )
    if records.artifacts:
        names: Counter[str] = Counter()
        for art in records.artifacts:
            names[art.name] += art.count
        shown = ", ".join(f"{n} ×{c}" for n, c in names.most_common(8)) + (", …" if len(names) > 8 else "")
        out.append(
            Section(
                key="artifacts",
                title=f"Other artifacts ({sum(names.values())}, catalogued; inspectc export --json: artifacts): {shown}",
                counts={"artifacts": sum(names.values())},
            )
        )
    return out
