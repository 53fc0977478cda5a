"""A report as one :class:`Page`: the headline, its facts, and every section in the order a
reader acts on them (what failed or diverged first, the frame table last)."""

from __future__ import annotations

import shlex

from inspectc.analysis.costs import break_costs, recompile_costs
from inspectc.analysis.remedies import by_break
from inspectc.analysis.text import short_path
from inspectc.render.sections import Line, Page, Section, extras, line, ranks, run, suggestions, tables
from inspectc.render.sections import breaks as break_sections
from inspectc.render.sections import costs as cost_sections
from inspectc.render.sections.anchors import KernelAnchors
from inspectc.store.reader import Report


def summary_page(
    report: Report, *, report_path: str | None = None, footer: tuple[Line, ...] | None = None
) -> Page:
    """Every section of *report*; *report_path* is how the reader named it (commands quote it);
    *footer* replaces the lines that say where the report is and how to open it."""
    path = report_path or str(report.path)
    r = report.run
    frames = report.frames
    _, counts, compiling, every = run.headline_counts(report)
    gaps = report.region_gaps()
    measured = break_costs(frames, gaps)
    found: list[Section | None] = [
        run.environment(report),  # versions first, as a bug report lists them (not in the terminal's)
        run.accuracy(report.accuracy),  # inspectc accuracy leads
        run.accuracy_outputs(report.accuracy),
        cost_sections.costs(
            measured,
            recompile_costs(frames, report.eager_calls()),
            by_break(frames),
            r,
            gaps_recorded=bool(gaps),
        ),
        break_sections.graph_breaks(frames, r, costs=measured),
        break_sections.recompiles(frames, r),
        break_sections.failed_frames(frames, r),
        extras.cudagraphs(frames),
        extras.autotuning(frames),
        extras.symbolic_shapes(frames, r),
        *extras.beside_frames(report.run_records, r),
        *ranks.rank_sections(report),
        *ranks.runtime_sections(report.run_records, frames),
        tables.top_kernels(report, KernelAnchors(every)),
        suggestions.suggestions(frames, r, path),
        break_sections.break_stacks(frames, r),
        run.capture_errors(report),
        tables.frames_table(frames, r),
    ]
    quoted = shlex.quote(path)
    return Page(
        title=title(report),
        headline=run.headline(counts, compiling),
        facts=tuple(run.facts(report)),
        sections=tuple(s for s in found if s is not None),
        counts=counts,
        footer=footer
        if footer is not None
        else (
            line(f"Report: {path}"),
            line(f"  open it: inspectc tui {quoted}   ·   JSON: inspectc export {quoted} --json"),
            line(report.account.line()),  # every record: used by the model, or kept raw
        ),
    )


def title(report: Report) -> str:
    """``torch.compile report for train.py``: the script the run ran, relative to its folder."""
    argv = report.run.argv
    script = next((a for a in argv if a.endswith(".py")), None) or (argv[-1] if argv else None)
    return (
        f"torch.compile report for {short_path(script, report.run.cwd)}" if script else "torch.compile report"
    )
