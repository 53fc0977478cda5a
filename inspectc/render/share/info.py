"""What a bug report shows (``inspectc share``), gathered once for the Markdown and HTML
renderers: environment, run, failures, break groups, recompiles, the slowest kernels (their
table columns: median and n, one unit per time column, noisy ones flagged), the frames.
Pure: report in, plain values out.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from typing import Any

from inspectc.analysis import extras as compile_extras
from inspectc.analysis.breaks import user_site
from inspectc.analysis.rank_runtime import render_runtime_sections
from inspectc.analysis.ranks import RankDifference
from inspectc.analysis.roofline import bench_cells, launch_reads, method_lines, roofline
from inspectc.analysis.text import one_line, printable, short_path
from inspectc.analysis.views import BreakGroup, break_groups, totals
from inspectc.model import Frame, Kernel
from inspectc.render.accuracy import share_lines
from inspectc.render.rank_render import report_differences
from inspectc.render.timefmt import NOISE_LEGEND, Unit, column_unit, noise_text
from inspectc.store.reader import Report
from inspectc.version import __version__

TOP_KERNELS = 10
LINE_CAP = 300  # characters of report text on one summary line
DETAILS_CAP = 6_000  # characters of one <details> body
STACK_CAP = 12  # innermost user-stack frames shown
_PACKAGES = re.compile(r"^.*/(?:site|dist)-packages/")


# ---------------------------------------------------------------------------
# What the summary shows (shared with the HTML renderer)


@dataclass(slots=True)
class ShareInfo:
    """The facts every rendering shows, gathered once from a (redacted) report."""

    title: str
    headline: str
    environment: list[tuple[str, str]]
    run_lines: list[tuple[str, str]]
    failures: list[Frame]
    groups: list[BreakGroup]
    recompiled: list[Frame]
    top_kernels: list[Kernel]
    kernels_total: int
    frames: list[Frame]
    capture_errors: list[str]
    notes: list[str]
    base: str | None
    repros: list[str] = field(default_factory=list)
    bundle_name: str | None = None
    bench: dict[int, tuple[str, str]] = field(default_factory=dict)  # kernel id -> isolated, % limit
    bench_methods: list[str] = field(default_factory=list)  # how % of limit was computed (one line each)
    rank_differences: list[RankDifference] = field(default_factory=list)
    runtime_lines: list[str] = field(default_factory=list)  # estimates, schedules, parity per rank


def clean(text: str | None) -> str:
    """Report text, lines and tabs kept, through the one sanitizer (:func:`printable`)."""
    return printable((text or "").replace("\r\n", "\n"), keep="\n\t")


def cap(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n… ({len(text) - limit:,} more characters in the report)"


def location(filename: str | None, line: int | None, base: str | None) -> str:
    """``file.py:LINE``: relative to the run's cwd, or from the package root for libraries."""
    where = short_path(filename, base) if filename else "?"
    where = _PACKAGES.sub("", where)
    return f"{where}:{line}" if line is not None else where


def break_where(g: BreakGroup, base: str | None) -> str:
    """Where a break group is: the user's own line, and the library line it broke inside
    when it broke there (``train.py:5 (inside torch/_dynamo/polyfills/__init__.py:505)``)."""
    where = location(g.filename, g.line, base)
    site = user_site(g.example)
    return f"{location(site.filename, site.line, base)} (inside {where})" if site is not None else where


def redaction_notes(report: Report) -> list[str]:
    try:
        data = json.loads(report.meta.get("redaction") or "null")
    except ValueError:
        data = None
    if not isinstance(data, dict):
        return ["Not redacted: paths, user and host names are as recorded."]
    notes = []
    redacted = [str(x) for x in data.get("redacted") or []]
    if redacted:
        notes.append("Redacted: " + ", ".join(redacted) + ".")
    else:
        notes.append("Not redacted (--no-redact): paths, user and host names are as recorded.")
    left_out = [str(x) for x in data.get("left_out") or []]
    if left_out:
        notes.append("Left out (--no-source): " + ", ".join(left_out) + ".")
    return notes


def gather(report: Report, *, repros: list[str] | None = None, bundle_name: str | None = None) -> ShareInfo:
    run = report.run
    frames = report.frames
    t = totals(frames)
    script = next((a for a in run.argv if a.endswith(".py")), None) or (run.argv[-1] if run.argv else None)
    title = f"torch.compile report for {short_path(script, run.cwd)}" if script else "torch.compile report"
    headline = (
        f"{plural(t.frames, 'frame')} compiled, {plural(t.graph_breaks, 'graph break')} "
        f"({t.unique_breaks} unique), {plural(t.recompiles, 'recompiled frame')}, {t.failed} failed, "
        f"{plural(t.kernels, 'kernel')}, {t.compile_time_s:.1f}s compiling"
    )
    gpus = [d for d in run.devices if not d.startswith("cpu:")]
    cpus = [d.removeprefix("cpu: ") for d in run.devices if d.startswith("cpu:")]
    environment = [
        ("torch", run.torch_version or "not recorded"),
        ("triton", run.triton_version or "not installed"),
        ("CUDA", run.cuda_version or "none (CPU build or not recorded)"),
        ("GPU", ", ".join(gpus) or "none recorded"),
        ("CPU", ", ".join(cpus) or "not recorded"),
        ("Python", run.python_version or "not recorded"),
        ("OS", run.platform or "not recorded"),
        ("inspectc", f"{report.inspectc_version or __version__} (report schema {report.schema_version})"),
    ]
    ended = run.end_reason or "running or killed"
    run_lines = [
        ("command", shlex.join(run.argv) if run.argv else "not recorded"),
        ("ended", f"exit code {run.exit_code}" if run.exit_code is not None else ended),
    ]
    if run.world_size:
        run_lines.append(("ranks", f"rank {run.rank} of {run.world_size}"))
    if run.exception:
        run_lines.append(("exception", one_line(run.exception, LINE_CAP)))
    backends = compile_extras.backend_line(run.options)
    if backends:
        run_lines.append(("torch.compile", backends.removeprefix("torch.compile: ")))
    config = compile_extras.config_line(run.options)
    if config:
        run_lines.append(("config", config.removeprefix("torch config not at defaults: ")))
    run_lines.extend(share_lines(getattr(report, "accuracy", None)))  # inspectc accuracy's verdict
    timed = sorted((k for k in report.kernels if k.time is not None), key=lambda k: -k.time.total_us)  # type: ignore[union-attr]
    top = timed[:TOP_KERNELS]
    top_reads = launch_reads(report, top) if report.bench.run is not None else {}
    return ShareInfo(
        title=title,
        headline=headline,
        environment=environment,
        run_lines=run_lines,
        failures=[f for f in frames if f.failure is not None],
        groups=break_groups(frames),
        recompiled=[f for f in frames if f.recompiles],
        top_kernels=timed[:TOP_KERNELS],
        bench=bench_cells(top, report.bench, top_reads),
        bench_methods=method_lines([roofline(k, report.bench, top_reads.get(k.id)) for k in top]),
        kernels_total=len(report.kernels),
        frames=frames,
        capture_errors=list(run.capture_errors) or _meta_list(report, "capture_errors"),
        notes=redaction_notes(report),
        base=run.cwd,
        repros=list(repros or []),
        bundle_name=bundle_name,
        rank_differences=report_differences(report),
        runtime_lines=render_runtime_sections(report.run_records, frames),
    )


def _meta_list(report: Report, key: str) -> list[str]:
    try:
        value: Any = json.loads(report.meta.get(key) or "[]")
    except ValueError:
        return []
    return [str(v) for v in value] if isinstance(value, list) else []


def break_details(g: BreakGroup, base: str | None) -> str:
    """The bulky part of a graph-break group as plain text (explanation, hints, stack)."""
    ex = g.example
    lines = []
    if g.gb_type or g.gb_id:
        lines.append(f"type: {g.gb_type or '?'}" + (f"  [{g.gb_id}]" if g.gb_id else ""))
    if ex.explanation:
        lines.append(f"explanation: {ex.explanation}")
    if ex.hints:
        lines.append("hints:")
        lines += [f"  - {h}" for h in ex.hints]
    if ex.user_stack:
        lines.append("user stack (most recent call last):")
        hidden = len(ex.user_stack) - STACK_CAP
        if hidden > 0:
            lines.append(f"  … {plural(hidden, 'earlier frame')}")
        for s in ex.user_stack[-STACK_CAP:]:
            lines.append(f"  {location(s.filename, s.line, base)} in {s.function or '?'}")
            if s.code:
                lines.append(f"      {s.code.strip()}")
    if len(g.reason) > LINE_CAP or "\n" in g.reason.strip():
        lines.append(f"reason: {g.reason}")
    lines.append("frames: " + ", ".join(str(c) for c in g.compile_ids))
    return "\n".join(lines)


def frame_name(f: Frame) -> str:
    return f.compile_id.label


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'s' * (count != 1)}"


@dataclass(frozen=True, slots=True)
class KernelColumns:
    """The share's kernel table: median and n, one unit per time column, noisy ones flagged."""

    med: Unit
    tot: Unit
    legend: str
    bench: dict[int, tuple[str, str]] = field(default_factory=dict)

    @property
    def header(self) -> list[str]:
        # The isolated-bench columns only when `inspectc bench` measured something: a column of
        # "not measured" tells the reader nothing. Header and cells are built from one switch.
        bench = ["isolated µs", "% of limit"] if self.bench else []
        return [
            "kernel",
            "frame",
            "n",
            f"median {self.med.name}",
            f"total {self.tot.name}",
            "share of frame",
            *bench,
            "note",
        ]

    @property
    def numeric(self) -> set[int]:
        """Indices of the right-aligned (number) columns of header and cells."""
        return set(range(2, len(self.header) - 1))

    def cells(self, k: Kernel) -> list[str]:
        t = k.time
        assert t is not None
        share = f"{t.share:.0%}" if t.share is not None else "-"
        return [
            k.name,
            str(k.compile_id),
            str(t.calls),
            self.med.fmt(t.typical_us),
            self.tot.fmt(t.total_us),
            share,
            *((self.bench.get(k.id, ("not measured", "-"))) if self.bench else ()),
            noise_text(t),
        ]


def kernel_columns(
    kernels: list[Kernel], bench: dict[int, tuple[str, str]] | None = None, methods: list[str] | None = None
) -> KernelColumns:
    times = [k.time for k in kernels if k.time is not None]
    noisy = sum(1 for t in times if t.noise)
    legend = f"{noisy} of them noisy ({NOISE_LEGEND})." if noisy else ""
    if bench and methods:
        legend = " ".join([legend, *(m + "." for m in methods)]).strip()
    return KernelColumns(
        column_unit(t.typical_us for t in times), column_unit(t.total_us for t in times), legend, bench or {}
    )


# ---------------------------------------------------------------------------
# Markdown
