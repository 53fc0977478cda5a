"""Exported programs, the draft-export report, AOTInductor compiles, links and artifacts:
summary sections and their JSON. No torch.

These are :attr:`Report.run_records` (``model/runrecords.py``): what a ``torch.export`` or
AOTInductor run logged, which compiles no Dynamo frame, and what torch logged for a frame
beside its graphs (links, uncommon artifacts, FX-graph cache keys).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from inspectc.analysis.text import one_line
from inspectc.model import CompileId, StackFrame, to_plain
from inspectc.model.runrecords import ISSUE_KINDS, AotCompile, ExportedProgram, ExportIssue, RunRecords
from inspectc.store.reader import Report

Clean = Callable[[str], str]
Locate = Callable[[str | None, int | None], str]
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
            _plural(n, "exported program")
            + (f" ({_plural(len(issues), 'draft-export issue')})" if issues else "")
        )
    if records.aot_compiles:
        kernels = sum(len(a.kernels) for a in records.aot_compiles)
        parts.append(
            f"{_plural(len(records.aot_compiles), 'AOTInductor compile')} ({_plural(kernels, 'kernel')})"
        )
    return " · ".join(parts) or None


def summary_lines(report: Report, clean: Clean, locate: Locate) -> list[str]:
    """Summary sections (empty when the run logged none of these)."""
    records = report.run_records
    lines: list[str] = []
    if records.export_traced and not records.exported_programs:
        lines += [
            "",
            "torch.export ran, but this log holds no exported program: torch logs it (and the"
            " draft-export report) only with TORCH_DTRACE=<dir>, not TORCH_TRACE",
        ]
    for p in records.exported_programs:
        lines.extend(_program_lines(p, clean, locate))
    issues = issues_of(records)
    if issues or records.exported_programs:
        lines.extend(_issue_lines(issues, records, clean, locate))
    for a in records.aot_compiles:
        lines.extend(_aot_lines(a, clean, locate))
    lines.extend(_link_lines(records, clean))
    return lines


def _program_lines(p: ExportedProgram, clean: Clean, locate: Locate) -> list[str]:
    rank = f"rank {p.rank} " if p.rank is not None else ""
    kinds = Counter(i.split(": ", 1)[1].split()[0] if ": " in i else "?" for i in p.inputs)
    inputs = ", ".join(_plural(n, k.lower().replace("_", " ")) for k, n in kinds.items())
    lines = [
        "",
        f"Exported program {rank}{p.key} ({_plural(len(p.inputs), 'input')}"
        + (f": {inputs}" if inputs else "")
        + f"; {_plural(len(p.outputs), 'output')}; {_plural(p.op_count, 'op')})",
    ]
    if p.ops:
        names = [o.removeprefix("aten.").removesuffix(".default") for o in p.ops]
        shown = ", ".join(names[:10]) + (", …" if len(names) > 10 else "")
        lines.append(f"  ops: {clean(shown)}")
    if p.unbacked_symbols:
        lines.append(f"  data-dependent symbols: {clean(', '.join(p.unbacked_symbols))}")
    if p.range_constraints and p.range_constraints != "{}":
        lines.append(f"  range constraints: {clean(one_line(p.range_constraints, 150))}")
    if p.call_site:
        lines.append(f"  exported at {_site(p.call_site, clean, locate)}")
    return lines


def _issue_lines(issues: list[ExportIssue], records: RunRecords, clean: Clean, locate: Locate) -> list[str]:
    if not issues:
        return ["  draft-export report: no issues (the program is sound as traced)"]
    tally = Counter(ISSUE_TITLES.get(i.kind, i.kind) for i in issues)
    failed = " (an export that logged no program)" if records.export_issues else ""
    lines = [
        "",
        f"Draft-export report ({', '.join(f'{n} {what}' for what, n in tally.items())}){failed}:"
        " what export assumed or could not check",
    ]
    for i in issues[:MAX_ISSUES]:
        times = f" ×{i.occurrences}" if i.occurrences > 1 else ""
        lines.append(
            f"  {ISSUE_TITLES.get(i.kind, i.kind):<17} {locate(i.filename, i.line)}{times}  {clean(issue_text(i))}"
        )
        if i.code:
            lines.append(f"  {'':<17}   {clean(one_line(i.code, 100))}")
    if len(issues) > MAX_ISSUES:
        lines.append(f"  … {len(issues) - MAX_ISSUES} more (inspectc export --json: export_issues)")
    return lines


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


def _aot_lines(a: AotCompile, clean: Clean, locate: Locate) -> list[str]:
    rank = f"rank {a.rank} " if a.rank is not None else ""
    langs = Counter("library call" if k.kernel.language == "extern" else k.kernel.language for k in a.kernels)
    took = f", {a.compile_s:.1f}s compiling" if a.compile_s is not None else ""
    code = ", ".join(
        f"{c.kind.removeprefix('aot_').removesuffix('_code')} {c.size / 1000:.1f} KB" for c in a.code
    )
    lines = [
        "",
        f"AOTInductor compile {rank}{a.key}: {_plural(len(a.kernels), 'kernel')}"
        + (f" ({', '.join(f'{n} {what}' for what, n in langs.items())})" if langs else "")
        + took,
        f"  code: {code or 'none logged'}",
    ]
    if a.call_site:
        lines.append(f"  compiled at {_site(a.call_site, clean, locate)}")
    for k in a.kernels[:MAX_KERNELS]:
        fused = ", ".join(k.kernel.fused_nodes[:6]) + (", …" if len(k.kernel.fused_nodes) > 6 else "")
        where = sorted({locate(o.filename, o.line) for o in k.kernel.origins if o.filename})[:2]
        lines.append(
            f"  {clean(k.kernel.name)[:48]:<48} {clean(fused) or '-'}"
            + (f"  ({', '.join(where)})" if where else "")
        )
    if len(a.kernels) > MAX_KERNELS:
        lines.append(f"  … {len(a.kernels) - MAX_KERNELS} more kernels")
    if a.kernels and not a.provenance:
        lines.append(
            "  fused nodes not recorded: set torch._inductor.config.trace.provenance_tracking_level = 1"
        )
    return lines


def _link_lines(records: RunRecords, clean: Clean) -> list[str]:
    lines: list[str] = []
    if records.links:
        lines += ["", f"Links ({len(records.links)})"]
        for link in records.links[:MAX_LINKS]:
            lines.append(
                f"  {_owner(link.rank, link.compile_id):<8} {clean(link.name)}: {clean(link.url)[:150]}"
            )
    if records.cache_keys:
        keys = ", ".join(f"{_owner(k.rank, k.compile_id)} {k.key[:12]}…" for k in records.cache_keys[:4])
        lines += ["", f"FX graph cache keys ({len(records.cache_keys)}): {clean(keys)}"]
    if records.artifacts:
        names: Counter[str] = Counter()
        for art in records.artifacts:
            names[art.name] += art.count
        shown = ", ".join(f"{n} ×{c}" for n, c in names.most_common(8)) + (", …" if len(names) > 8 else "")
        lines += [
            "",
            f"Other artifacts ({sum(names.values())}, catalogued; inspectc export --json: artifacts): {clean(shown)}",
        ]
    return lines


def _site(frame: StackFrame, clean: Clean, locate: Locate) -> str:
    code = f": {clean(one_line(frame.code, 80))}" if frame.code else ""
    return f"{locate(frame.filename, frame.line)}{code}"


def _owner(rank: int | None, compile_id: CompileId | None) -> str:
    return (f"r{rank} " if rank is not None else "") + (str(compile_id) if compile_id is not None else "-")


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' * (n != 1)}"


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
