"""Exported programs, the draft-export report, AOTInductor compiles, links and artifacts:
the headline's words and their JSON (their sections: :mod:`inspectc.render.sections.extras`).
No torch.

These are :attr:`Report.run_records` (``model/runrecords.py``): what a ``torch.export`` or
AOTInductor run logged, which compiles no Dynamo frame, and what torch logged for a frame
beside its graphs (links, uncommon artifacts, FX-graph cache keys).
"""

from __future__ import annotations

from typing import Any

from inspectc.analysis.text import one_line
from inspectc.model import to_plain
from inspectc.model.runrecords import ISSUE_KINDS, ExportIssue, RunRecords
from inspectc.render.sections import plural
from inspectc.store.reader import Report

MAX_ISSUES = 12
MAX_KERNELS = 8
MAX_LINKS = 12

ISSUE_TITLES = {
    "missing_fake_kernel": "missing fake kernel",
    "mismatched_fake_kernel": "wrong fake kernel",
    "data_dependent_error": "data-dependent",
    "guard_added": "guard added",
}


def issues_of(records: RunRecords) -> list[ExportIssue]:
    """Every draft-export finding: of the exported programs, then of exports that failed."""
    found = [i for p in records.exported_programs for i in p.issues] + list(records.export_issues)
    return sorted(found, key=lambda i: ISSUE_KINDS.index(i.kind) if i.kind in ISSUE_KINDS else 9)


def headline(records: RunRecords) -> str | None:
    """``1 exported program (3 draft-export issues) · 1 AOTInductor compile (3 kernels)``."""
    parts = []
    if records.exported_programs or records.export_issues:
        n = len(records.exported_programs)
        issues = issues_of(records)
        parts.append(
            plural(n, "exported program")
            + (f" ({plural(len(issues), 'draft-export issue')})" if issues else "")
        )
    if records.aot_compiles:
        kernels = sum(len(a.kernels) for a in records.aot_compiles)
        parts.append(
            f"{plural(len(records.aot_compiles), 'AOTInductor compile')} ({plural(kernels, 'kernel')})"
        )
    return " · ".join(parts) or None


def issue_text(i: ExportIssue) -> str:
    """One line: what export could not decide or check, and what it did."""
    if i.kind == "data_dependent_error":
        return one_line(f"`{i.expr}` depends on data: specialised to {i.result} (asserted at run time)", 160)
    if i.kind == "guard_added":
        sources = ", ".join(f"{s} = {src}" for s, src in i.sources.items())
        return one_line(f"`{i.expr}` became a guard" + (f" ({sources})" if sources else ""), 160)
    if i.kind == "missing_fake_kernel":
        return f"torch.ops.{i.op} has no fake kernel (export ran the real one)"
    if i.kind == "mismatched_fake_kernel":
        return one_line(f"torch.ops.{i.op}'s fake kernel disagrees with the real one: {i.reason or '?'}", 160)
    return one_line(i.expr or i.reason or i.kind, 160)


# ---------------------------------------------------------------------------
# JSON (the export's "exported_programs", "export_issues", "aot_compiles", ... keys)


def export_plain(report: Report, *, sources: bool = True) -> dict[str, Any]:
    records = report.run_records
    programs = []
    for p in records.exported_programs:
        item = to_plain(p)
        item["program"] = report.graph(p.key, "exported_program", p.rank) if sources else None
        programs.append(item)
    compiles = []
    for a in records.aot_compiles:
        item = to_plain(a)
        item["code_text"] = {c.kind: report.graph(a.key, c.kind, a.rank) if sources else None for c in a.code}
        for k, plain in zip(a.kernels, item["kernels"], strict=True):
            text = item["code_text"].get(k.code)
            plain["source"] = text[k.start : k.stop] if text else None
        compiles.append(item)
    return {
        "exported_programs": programs,
        "export_issues": [to_plain(i) for i in issues_of(records)],
        "aot_compiles": compiles,
        "links": to_plain(records.links),
        "artifacts": to_plain(records.artifacts),
        "cache_keys": to_plain(records.cache_keys),
    }
