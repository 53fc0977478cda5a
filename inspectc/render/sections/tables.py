"""The two tables: the slowest kernels (median and n, one unit per column, noise flagged,
``inspectc bench``'s isolated figures when it ran) and the frames."""

from __future__ import annotations

from collections.abc import Sequence

from inspectc.analysis.resume import shown_call_site, shown_function
from inspectc.analysis.roofline import launch_reads, roofline
from inspectc.analysis.text import Base, counted, cut_middle
from inspectc.analysis.text import location as short_location
from inspectc.analysis.views import shown_status
from inspectc.model import Frame, KernelTime
from inspectc.render.roofline import bench_cells, method_lines
from inspectc.render.sections import CODE, Column, Line, Section, Span, Table, line
from inspectc.render.sections.anchors import KernelAnchors, frame_anchor
from inspectc.render.timefmt import NOISE_LEGEND, column_unit, environment_line, noise_text, noisy_count
from inspectc.render.words import suffix_note
from inspectc.store.reader import Report

TOP_KERNELS = 10
BRIEF_KERNELS = 5  # rows the terminal summary shows
MAX_FRAMES = 40


def top_kernels(report: Report, anchors: KernelAnchors) -> Section | None:
    """The slowest kernels by total measured time in the steady state: warm-up calls after a
    compile (15 ms where a call takes 30 us) are left out and said (None when none was timed)."""
    timed = sorted((k for k in report.kernels if k.time is not None), key=lambda k: -k.time.steady_total_us)  # type: ignore[union-attr]
    if not timed:
        return None
    top = timed[:TOP_KERNELS]
    measured = report.bench.run is not None  # `inspectc bench` ran: its isolated figures too
    reads = launch_reads(report, top) if measured else {}
    bench = bench_cells(top, report.bench, reads) if measured else {}
    med = column_unit(k.time.typical_us for k in top if k.time)
    tot = column_unit(k.time.steady_total_us for k in top if k.time)
    columns = [
        Column(f"median {med.name}", True),
        Column("n", True),
        Column(f"total {tot.name}", True),
        Column("share", True),
    ]
    if bench:
        columns += [Column("isolated µs", True), Column("% of limit", True)]
    columns += [Column("frame"), Column("note"), Column("kernel")]
    rows: list[tuple[Line, ...]] = []
    for k in top:
        t = k.time
        assert t is not None
        where = str(k.compile_id) + (" bwd" if k.graph_kind.endswith("_backward") else "")
        cells = [
            med.fmt(t.typical_us),
            str(t.calls),
            tot.fmt(t.steady_total_us),
            f"{t.share:.0%}" if t.share is not None else "-",
        ]
        if bench:
            cells += list(bench.get(k.id, ("not measured", "-")))
        rows.append(
            (
                *(line(c) for c in cells),
                line(Span(where, link="#" + frame_anchor(k.compile_id))),
                line("; ".join(x for x in (noise_text(t), warmup_text(t)) if x)),
                line(Span(k.name, CODE, link="#" + anchors(k))),
            )
        )
    noisy = noisy_count(timed)
    notes = []
    if noisy:
        notes.append(line(f"{noisy} noisy: {NOISE_LEGEND}"))
    if bench:
        notes += [
            line(m + ".") for m in method_lines([roofline(k, report.bench, reads.get(k.id)) for k in top])
        ]
    env = environment_line(f.timing for f in report.frames)
    if env:
        notes.append(line(env))
    return Section(
        key="kernels",
        title=f"Top kernels (of {len(timed)} timed; median per call, n calls)",
        table=Table(tuple(columns), tuple(rows), tuple(anchors(k) for k in top)),
        notes=tuple(notes),
        counts={"timed": len(timed), "kernels": len(report.kernels), "noisy": noisy},
        brief_rows=BRIEF_KERNELS,
    )


def warmup_text(t: KernelTime) -> str:
    """``warm-up: 1 call, 15.10 ms, left out of the total`` when the first calls were."""
    n = t.warmup_calls
    if not n:
        return ""
    spent = sum(t.samples[:n])
    unit = column_unit([spent])
    return f"warm-up: {counted(n, 'call')}, {unit.fmt(spent)} {unit.name}, left out of the total"


def frame_where(f: Frame, base: Base) -> Span:
    """The frame's code, or the user's line that called it: a wrapper's frame, generated code
    (a GraphModule's ``forward`` at ``<eval_with_key>.N``)."""
    site = shown_call_site(f)
    if site is not None and site.filename:
        where = short_location(site.filename, site.line, base, 40)
        return Span("called at " + where, full=site.filename)
    if not f.filename:
        return Span("?")
    return Span(short_location(f.filename, f.line, base, 40), CODE, full=f.filename)


def frames_table(frames: Sequence[Frame], base: Base, *, limit: int = MAX_FRAMES) -> Section | None:
    if not frames:
        return None
    columns = tuple(
        Column(name, numeric)
        for name, numeric in (
            ("frame", False),
            ("function", False),
            ("location", False),
            ("status", False),
            ("breaks", True),
            ("kernels", True),
            ("compile", True),
            ("cache", False),
        )
    )
    rows = []
    for f in frames[:limit]:
        seconds = f.metrics.entire_frame_s
        rows.append(
            (
                line(Span(f.compile_id.label, link="#" + frame_anchor(f.compile_id))),
                line(cut_middle(shown_function(f), 44)),
                line(frame_where(f, base)),
                line(shown_status(f)),
                line(str(len(f.graph_breaks))),
                line(str(f.kernel_count)),
                line("-" if seconds is None else f"{seconds:.1f}s"),
                line(f.cache.get("fx_graph") or "-"),
            )
        )
    more = len(frames) - limit
    return Section(
        key="frames",
        title=f"Frames ({len(frames)})",
        table=Table(columns, tuple(rows), tuple(frame_anchor(f.compile_id) for f in frames[:limit])),
        notes=tuple(
            line(text)
            for text in (f"… {more} more frames" if more > 0 else None, suffix_note(frames[:limit]))
            if text  # what "Sequential.forward (inner)" means
        ),
        counts={"frames": len(frames)},
        titled=False,
    )
