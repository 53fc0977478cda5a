"""One kernel in full, as sections: what it is, what it fused and from which user lines, its
measured time (n, median, spread, noise), its % of limit, what it compiled to (metadata,
occupancy, launches; every IR stage with its line map on a GPU report), its source and the
command that reproduces it alone. The HTML page renders these for every kernel."""

from __future__ import annotations

import shlex
from collections.abc import Callable

from inspectc.analysis.roofline import METHODS, read_bytes, roofline
from inspectc.analysis.text import location as short_location
from inspectc.model import Kernel, Run
from inspectc.model.irmap import STAGES, line_map
from inspectc.model.kernel_detail import CpuBuild, KernelDetail
from inspectc.render.compiled import cpp_lines, detail_lines
from inspectc.render.roofline import limit_text
from inspectc.render.sections import CODE, STRONG, Fold, Item, Section, Span, line, plural
from inspectc.render.sections.anchors import frame_anchor
from inspectc.render.timefmt import cv_text, noise_text
from inspectc.store.bench import BenchResults

MAX_ORIGINS = 40
MAX_NODES = 200


def _us(value: float | None) -> str:
    return "-" if value is None else f"{value:,.2f} µs"


def facts(k: Kernel, run: Run, bench: BenchResults, detail: KernelDetail | None) -> Section:
    rows = [
        (
            "frame",
            f"{k.compile_id.label} ({'backward' if k.graph_kind.endswith('_backward') else 'forward'})",
        ),
        ("language", "library call (aten/extern)" if k.language == "extern" else k.language),
        ("kind", k.kind),
        ("graph", k.graph_kind),
        ("source", f"{k.source_size:,} characters"),
    ]
    t = k.time
    if t is not None:
        rows += [
            ("calls timed", str(t.calls)),
            ("median per call", _us(t.typical_us)),
            ("total", _us(t.total_us)),
            ("spread (CV)", cv_text(t)),
            ("share of its frame", f"{t.share:.0%}" if t.share is not None else "-"),
            ("noise", noise_text(t) or "steady"),
        ]
    else:
        rows.append(
            ("time", "not measured (captured with --no-timings, or the kernel never ran in the window)")
        )
    fig = bench.primary(k.compile_id, k.graph_kind, k.name)
    if fig is not None:
        rows.append(("isolated (inspectc bench)", f"{fig.median_us:,.2f} µs (n={fig.n})"))
    r = roofline(k, bench, read_bytes(detail))
    if r is not None:
        rows.append(
            (
                "% of limit",
                limit_text(r) + (f" ({METHODS.get(r.method, r.method)})" if r.fraction is not None else ""),
            )
        )
    return Section(key="kernel", title=f"Kernel {k.name}", fields=tuple(rows))


def origins(k: Kernel, run: Run, node_link: Callable[[str], str | None] | None = None) -> Section | None:
    """The FX nodes the kernel fused (each a link to its line in the post-grad graph when
    *node_link* knows it), and the user line each came from."""
    if not k.fused_nodes and not k.origins:
        return None
    link = node_link or (lambda _name: None)
    items = []
    for o in k.origins[:MAX_ORIGINS]:
        where = (
            Span(short_location(o.filename, o.line, run), CODE, full=o.filename)
            if o.filename
            else "user line not recorded"
        )
        items.append(
            Item(
                line(
                    Span(o.op, CODE, link=link(o.op)), "  ← ", where, f"  ({o.module})" if o.module else None
                )
            )
        )
    notes = []
    if k.fused_nodes:
        spans: list[Span | str] = ["fused nodes: "]
        for n, name in enumerate(k.fused_nodes[:MAX_NODES]):
            spans += [", " if n else "", Span(name, CODE, link=link(name))]
        if len(k.fused_nodes) > MAX_NODES:
            spans.append(f", … (+{len(k.fused_nodes) - MAX_NODES})")
        notes.append(line(*spans))
    if len(k.origins) > MAX_ORIGINS:
        notes.append(line(f"… {len(k.origins) - MAX_ORIGINS} more origins"))
    return Section(
        key="kernel-origins",
        title=f"Fused nodes ({len(k.fused_nodes)}) and where they came from",
        items=tuple(items),
        notes=tuple(notes),
    )


def compiled(
    k: Kernel, detail: KernelDetail | None, build: CpuBuild | None, anchor: str | None = None
) -> Section | None:
    """Metadata, occupancy, launches (Triton) or the vector ISA and command (C++), and every IR
    stage recorded, each line of a stage marked with the Triton source line it comes from."""
    if k.language == "cpp":
        return Section(
            key="kernel-compiled", title="Compiled", items=tuple(Item(line(t)) for t in cpp_lines(k, build))
        )
    if detail is None:
        if k.language != "triton":
            return None
        return Section(
            key="kernel-compiled",
            title="Compiled",
            notes=(
                line(
                    "compile metadata and IR stages: not recorded (a CPU run, an older capture, or a kernel capture did not see launch)"
                ),
            ),
        )
    items = [Item(line(t)) for t in detail_lines(detail)]
    folds = []
    if detail.python_source:
        folds.append(
            Fold(
                "Triton source (the file Inductor wrote: the line numbers the stages map to)",
                _numbered(detail.python_source),
                "python",
                anchor=f"{anchor}-py" if anchor else None,
            )
        )
    source_lines = len((detail.python_source or "").splitlines())
    for stage in STAGES:
        text = detail.stages.get(stage)
        if text:
            body, targets = _mapped(stage, text, detail.python_file)
            folds.append(
                Fold(
                    f"{stage} ({plural(text.count(chr(10)) + 1, 'line')}; → the Triton source line each comes from)",
                    body,
                    links=tuple((n, f"#{anchor}-py-{m}") for n, m in targets if m <= source_lines)
                    if anchor
                    else (),
                )
            )
    if folds:
        items.append(
            Item(
                line(
                    Span("IR stages", STRONG),
                    f" ({', '.join(s for s in STAGES if s in detail.stages) or 'none recorded'})",
                ),
                folds=tuple(folds),
            )
        )
    return Section(key="kernel-compiled", title="Compiled", items=tuple(items))


def _numbered(text: str) -> str:
    lines = text.splitlines()
    width = len(str(len(lines)))
    return "\n".join(f"{n:>{width}}  {row}" for n, row in enumerate(lines, 1))


def _mapped(stage: str, text: str, source_file: str | None) -> tuple[str, list[tuple[int, int]]]:
    """*text* with each line's Triton source lines in a gutter (``→ 12``; blank: none), and
    (line, its first Triton line) for each mapped line."""
    mapping = line_map(stage, text, source_file)
    lines = text.splitlines()
    gutter = [",".join(map(str, mapping.get(n, [])[:3])) for n in range(1, len(lines) + 1)]
    width = max((len(g) for g in gutter), default=0) + 2
    body = "\n".join((f"→ {g}" if g else "").ljust(width + 2) + row for g, row in zip(gutter, lines))
    return body, [(n, mapping[n][0]) for n in range(1, len(lines) + 1) if mapping.get(n)]


def source(k: Kernel, text: str | None, report_name: str) -> Section:
    lang = "cpp" if k.language == "cpp" else "python"
    items = []
    if text:
        items.append(
            Item(
                line(Span("source", STRONG), f" ({k.language}, {plural(text.count(chr(10)) + 1, 'line')})"),
                folds=(Fold(f"source of {k.name}", text, lang),),
            )
        )
    notes = [
        line(
            "run it alone: ",
            Span(
                f"inspectc repro {shlex.quote(report_name)} {shlex.quote(f'{k.name}@{k.compile_id}')}", CODE
            ),
        ),
        line("back to its frame: ", Span(k.compile_id.label, link="#" + frame_anchor(k.compile_id))),
    ]
    return Section(key="kernel-source", title="Source and repro", items=tuple(items), notes=tuple(notes))
