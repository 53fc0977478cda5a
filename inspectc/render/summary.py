"""The terminal summary of a report (end of ``inspectc run`` and ``inspectc summary``). No torch."""

from __future__ import annotations

import os
import shlex
import socket
from collections.abc import Iterable
from itertools import chain

from inspectc.analysis import breaks, remedies, resume
from inspectc.analysis import extras as compile_extras
from inspectc.analysis import text as report_text
from inspectc.analysis.paths import comparable_path
from inspectc.analysis.rank_runtime import render_runtime_sections
from inspectc.analysis.text import cut_middle
from inspectc.analysis.views import BreakGroup, break_groups, one_line, printable, totals
from inspectc.model import Frame, Kernel, Recompile, Run, StackFrame
from inspectc.render import programs, timefmt
from inspectc.render.accuracy import render_accuracy
from inspectc.render.rank_render import render_sections
from inspectc.store.reader import Report

MAX_FRAMES = 40
MAX_BREAKS = 20
MAX_FAILED = 8


def short_path(path: str | None, base: str | None = None) -> str:
    """*path* relative to *base* (default: cwd) when inside it, else as recorded."""
    if not path:
        return "?"
    base = base or os.getcwd()
    try:
        rel = os.path.relpath(path, base)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def _loc(filename: str | None, line: int | None, base: str | None) -> str:
    where = short_path(filename, base)
    return f"{where}:{line}" if line is not None else where


def _clean(text: str) -> str:
    return printable(text, keep="\t")


def end_text(run: Run) -> str:
    """How the run ended: its exit code, or what a run that never finished its report means."""
    if run.exit_code is not None:
        return f"exit {run.exit_code}"
    if run.end_reason not in (None, "running"):
        return f"ended: {run.end_reason}"
    # "running" is what the report says from the start: killed (SIGKILL, os._exit, a crash),
    # unless its process is still alive on this machine.
    if run.pid and run.pid > 0 and run.hostname == socket.gethostname() and _alive(run.pid):
        return f"still running (pid {run.pid})"
    return "ended without finishing (killed?)"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError, OverflowError):
        return True
    return True


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}s"


def _kernel_count(kernels: Iterable[Kernel], total: int) -> str:
    """``11 kernels (4 generated, 7 library calls)``: the calls into aten/extern libraries are
    kernels of the graph but not code Inductor wrote; the split is said when both are there."""
    library = sum(1 for k in kernels if k.language == "extern")
    text = f"{total} kernel{'s' * (total != 1)}"
    if 0 < library < total:
        calls = f"{library} library call{'s' * (library != 1)}"
        text += f" ({total - library} generated, {calls})"
    return text


def render_summary(report: Report, *, report_path: str | None = None) -> str:
    run = report.run
    frames = report.frames
    base = run.cwd
    t = totals(frames)
    # AOTInductor's kernels belong to no Dynamo frame; the headline counts them too
    aot = report.run_records.aot_compiles
    kernels = t.kernels + sum(len(a.kernels) for a in aot)
    compiling = t.compile_time_s + sum(a.compile_s or 0.0 for a in aot)
    every = chain(report.kernels, (k.kernel for a in aot for k in a.kernels))
    lines: list[str] = []
    exit_text = end_text(run)
    lines.append(
        f"inspectc: {t.frames} frame{'s' * (t.frames != 1)} compiled, "
        f"{t.graph_breaks} graph break{'s' * (t.graph_breaks != 1)} "
        f"({t.unique_breaks} unique), {t.recompiles} recompile{'s' * (t.recompiles != 1)}, "
        f"{t.failed} failed, {_kernel_count(every, kernels)}, {compiling:.1f}s compiling"
    )
    versions = f"torch {run.torch_version or 'not recorded'} · python {run.python_version or '?'}"
    if run.argv:
        versions += f" · {_clean(shlex.join(run.argv))[:80]}"
    lines.append(f"  {versions} · {exit_text}")
    if run.exception:
        lines.append(f"  ended with {_clean(one_line(run.exception))}")
    backends = compile_extras.backend_line(run.options)
    if backends:
        lines.append(f"  {_clean(backends)[:160]}")
    config = compile_extras.config_line(run.options)
    if config:
        lines.append(f"  {_clean(config)}")
    beside = programs.headline(report.run_records)  # torch.export, AOTInductor: no frames
    if beside:
        lines.append(f"  {_clean(beside)}")
    lines.extend(render_accuracy(getattr(report, "accuracy", None)))  # inspectc accuracy leads

    ranks = sorted({f.rank for f in frames if f.rank is not None})
    on_ranks = f"; ranks {', '.join(map(str, ranks))} together" if len(ranks) > 1 else ""
    groups = break_groups(frames)
    if groups:
        lines.append("")
        lines.append(f"Graph breaks ({len(groups)} unique, {t.graph_breaks} total{on_ranks})")
        for g in groups[:MAX_BREAKS]:
            lines.extend(_break_lines(g, base, ranked=len(ranks) > 1))
        if len(groups) > MAX_BREAKS:
            lines.append(f"  … {len(groups) - MAX_BREAKS} more")

    recompiled = [f for f in frames if f.recompiles]
    if recompiled:
        lines.append("")
        lines.append(f"Recompiles ({t.recompiles}{on_ranks})")  # one per recompile_reasons record
        for f in recompiled:
            for r in f.recompiles[:3]:
                lines.extend(_recompile_lines(f, r, frames, run))

    failed = [f for f in frames if f.failure is not None]
    if failed:
        lines.append("")
        lines.append(f"Failed frames ({len(failed)}{on_ranks})")
        for f in failed:
            assert f.failure is not None
            where = _loc(f.failure.filename or f.filename, f.failure.line or f.line, base)
            text = compile_extras.failure_text(f.failure)
            lines.append(f"  {_fid(f, frames):<6} {where}  {_clean(one_line(text, 240))}")
    lines.extend(compile_extras.summary_lines(frames, _clean, lambda fn, ln: _loc(fn, ln, base)))
    lines.extend(programs.summary_lines(report, _clean, lambda fn, ln: _loc(fn, ln, base)))

    lines.extend(render_sections(report))  # DDP splits, per-rank differences
    lines.extend(render_runtime_sections(report.run_records, frames))  # estimates, schedules, parity
    lines.extend(timefmt.top_kernel_lines(report.kernels, frames))
    lines.extend(
        remedies.summary_lines(frames, _clean, shlex.quote(report_path or str(report.path)), report.run)
    )

    if frames:
        lines.append("")
        lines.append(_frame_table(frames, base))
    lines.append("")
    path = report_path or str(report.path)
    lines.append(f"Report: {path}")
    lines.append(
        f"  open it: inspectc tui {shlex.quote(path)}   ·   JSON: inspectc export {shlex.quote(path)} --json"
    )
    lines.append(report.account.line())  # every record: used by the model, or kept raw
    # Every part above may hold report text: no escape sequence reaches the terminal.
    return "".join(ch if ch.isprintable() or ch in "\n\t" else "?" for ch in "\n".join(lines))


def _fid(f: Frame, frames: list[Frame]) -> str:
    """A frame's id in a section: ``r2 0/1`` in a multi-rank report (ids repeat per rank)."""
    ranked = len({x.rank for x in frames}) > 1
    return f.compile_id.label if ranked else str(f.compile_id)


def _break_lines(g: BreakGroup, base: str | None, *, ranked: bool = False) -> list[str]:
    """A break group: count, place, name and id, the frames; then, whole, what it means and
    its documentation page (never cut: they are what the reader acts on)."""
    title, explanation = breaks.title_and_explanation(g.example)
    gid = f" [{g.gb_id}]" if g.gb_id else ""
    ids = [c.label if ranked else str(c) for c in g.compile_ids]
    frames = ", ".join(ids[:4]) + (", …" if g.count > 4 else "")
    where = report_text.location(g.filename, g.line, base, 40)
    site = breaks.user_site(g.example)
    if site is not None:  # inside a library: the user's own line first, where it broke under it
        inside = f"{comparable_path(g.filename, base)}:{g.line}"  # torch/optim/optimizer.py:79
        where = report_text.location(site.filename, site.line, base, 40)
    out = [f"  {g.count:>3}×  {_clean(where)}  {_clean(one_line(title, 200))}{gid}  ({frames})"]
    if site is not None:
        out.append(f"          broke inside library code: {_clean(inside)}")
    for said in (breaks.reason_if_new(g.example), explanation, _skipped(g, ranked)):
        if said:
            out.append(f"          {_clean(' '.join(said.split()))}")  # whole, every line
    url = breaks.doc_url(g.example)
    if url:
        out.append(f"          {_clean(url)}")
    return out


def _skipped(g: BreakGroup, ranked: bool) -> str | None:
    """What the break did beyond itself (Dynamo skipped the frame), in which of its frames."""
    said = breaks.consequence(g.skip_example) if g.skip_example is not None else None
    if said is None or len(g.skipped) == g.count:
        return said
    ids = ", ".join(c.label if ranked else str(c) for c in g.skipped[:4])
    return f"in {ids}{', …' if len(g.skipped) > 4 else ''}: {said}"


def _recompile_lines(f: Frame, r: Recompile, frames: list[Frame], run: Run) -> list[str]:
    """A recompile: the frame, the user line torch's message names, the failed guard, and
    what a ``___stackN`` in it holds."""
    base = run.cwd
    earlier = f" (guard of {r.earlier_compile_id} failed)" if r.earlier_compile_id else ""
    guard = r.guard or r.text
    site = breaks.recompile_site(r.text, f.filename)
    at = site or StackFrame(filename=f.filename, line=f.line, function=f.function)
    where = f" at {_clean(report_text.location(at.filename, at.line, base, 40))}" if at.filename else ""
    code = f" `{_clean(site.code)}`" if site and site.code else ""
    short = resume.short_function(f.function)
    name = _clean(f"{f.callable_name} ({short})" if f.callable_name else f"{short}()")  # as the frame table
    out = [f"  {_fid(f, frames):<6} {name}{where}{code}: {_clean(one_line(guard, 120))}{earlier}"]
    for value in breaks.stack_values(guard, f, frames, run.python_version):
        out.append(
            f"           {_clean(value.describe(report_text.location(value.filename, value.line, base, 40)))}"
        )
    failed = r.failed_guards
    if len(failed) > 1:  # one failed guard per earlier cache entry, newest first
        out.append(f"           {len(failed)} cache entries failed their guards:")
        for g in failed[:MAX_FAILED]:
            of = f"{g.earlier_compile_id}: " if g.earlier_compile_id else ""
            out.append(f"             {of}{_clean(one_line(g.guard or g.text, 110))}")
        if len(failed) > MAX_FAILED:
            out.append(f"             … {len(failed) - MAX_FAILED} more")
    return out


def _frame_where(f: Frame, base: str | None) -> str:
    """The frame's code, or for a wrapper's frame the user's line that called it."""
    if f.callable_name and f.call_site is not None and f.call_site.filename and resume.in_library(f.filename):
        return "called at " + report_text.location(_clean(f.call_site.filename), f.call_site.line, base, 40)
    return report_text.location(_clean(f.filename or ""), f.line, base, 40) if f.filename else "?"


def _frame_table(frames: list[Frame], base: str | None) -> str:
    rows = [("frame", "function", "location", "status", "breaks", "kernels", "compile", "cache")]
    for f in frames[:MAX_FRAMES]:
        cache = f.cache.get("fx_graph") or "-"
        rows.append(
            (
                f.compile_id.label,
                cut_middle(_clean(resume.shown_function(f)), 44),
                _frame_where(f, base),
                f.status,
                str(len(f.graph_breaks)),
                str(f.kernel_count),
                _seconds(f.metrics.entire_frame_s),
                cache,
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    text = "\n".join("  " + "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows)
    if len(frames) > MAX_FRAMES:
        text += f"\n  … {len(frames) - MAX_FRAMES} more frames"
    return text
