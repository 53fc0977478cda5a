"""The JSON export: the contract scripts rely on (documented in docs/json.md). No torch."""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

from inspectc.analysis import remedies
from inspectc.analysis.costs import break_costs, recompile_costs
from inspectc.analysis.ddp import export_ddp_splits
from inspectc.analysis.rank_runtime import export_runtime
from inspectc.analysis.roofline import METHODS, read_bytes, roofline
from inspectc.analysis.views import break_groups
from inspectc.model import GRAPH_KINDS, CompileId, Frame, Kernel, to_plain
from inspectc.model.irmap import line_map
from inspectc.model.kernel_detail import grid_of, occupancy
from inspectc.model.limits import Limit, most
from inspectc.model.phases import kernel_phase
from inspectc.render import programs
from inspectc.render.rank_render import export_rank_differences
from inspectc.render.sections import costs as cost_sections
from inspectc.render.sections.page import summary_page
from inspectc.render.sections.plain import page_plain
from inspectc.render.sections.run import end_text
from inspectc.store.reader import Report
from inspectc.version import __version__

# Graph kinds every frame lists in "graphs" (null when not recorded).
_CONTRACT_GRAPHS = ("dynamo", "aot_forward", "aot_backward", "post_grad")
# Graph and kernel source text one export carries (times INSPECTC_LIMITS): past it, a source
# is null and "sources_left_out" counts it, so an export's memory never follows a report's size.
SOURCE_CHARS = Limit(128 << 20, 8 << 20)


class _Sources:
    """Reads a graph or kernel source while the export's source budget lasts."""

    def __init__(self, on: bool) -> None:
        self.on = on
        self.left = most(SOURCE_CHARS)
        self.left_out = 0

    def take(self, read: Callable[[], str | None]) -> str | None:
        if not self.on:
            return None
        text = read() if self.left > 0 else None
        if self.left <= 0 or (text is not None and len(text) > self.left):
            self.left, self.left_out = 0, self.left_out + 1  # the budget is spent: no more source
            return None
        self.left -= len(text or "")
        return text


def export_report(report: Report, *, sources: bool = True, report_path: str | None = None) -> dict[str, Any]:
    run = report.run
    by_frame: dict[CompileId, list[Kernel]] = {}
    for k in report.kernels:
        by_frame.setdefault(k.compile_id, []).append(k)
    budget = _Sources(sources)
    frames = [_frame(report, f, by_frame.get(f.compile_id, []), budget) for f in report.frames]
    plain = {
        "schema_version": report.schema_version,
        "inspectc_version": report.inspectc_version or __version__,
        "torch_version": run.torch_version,
        "run": to_plain(run),
        "run_end": end_text(run),  # "exit 0", or "ended without finishing (killed?)"
        "frames": frames,
        "graph_breaks": [
            {
                "filename": g.filename,
                "line": g.line,
                "cell": run.cell(g.filename),  # a notebook cell's In [N]; null: not in one
                "reason": g.reason,
                "gb_type": g.gb_type,
                "gb_id": g.gb_id,
                "count": g.count,
                "compile_ids": [str(c) for c in g.compile_ids],
            }
            for g in break_groups(report.frames)
        ],
        "suggestions": remedies.as_plain(list(report.frames)),  # what inspectc suggest tries
        "costs": cost_sections.plain(
            break_costs(report.frames, report.region_gaps()),
            recompile_costs(report.frames, report.eager_calls()),
        ),
        "bench": to_plain(report.bench.run),
        "cpu_build": to_plain(report.cpu_build()),  # vector ISA and command of C++ kernels
        "accuracy": to_plain(report.accuracy),  # inspectc accuracy (None: not checked)
        "ddp_splits": export_ddp_splits(report),
        "rank_differences": export_rank_differences(report),
        "runtime_estimates": export_runtime(report.run_records, report.frames),  # per graph, per rank
        **programs.export_plain(report, sources=sources),  # torch.export, AOTInductor, artifacts
        "records": report.account.plain(),  # every trace record: used, or kept raw (by name)
        "summary": page_plain(summary_page(report, report_path=report_path)),  # what every output shows
    }
    plain["sources_left_out"] = budget.left_out  # past the export's budget (SOURCE_CHARS): null
    return plain


def _frame(report: Report, f: Frame, kernels: list[Kernel], sources: _Sources) -> dict[str, Any]:
    graphs: dict[str, str | None] = {kind: None for kind in _CONTRACT_GRAPHS}
    for kind in f.graph_kinds:
        if kind in GRAPH_KINDS or kind.endswith("_backward"):
            graphs[kind] = sources.take(lambda: report.graph(f.compile_id, kind))  # noqa: B023 - called now
    return {
        "compile_id": str(f.compile_id),
        "rank": f.rank,
        "id": to_plain(f.compile_id),
        "function": f.function,
        "callable_name": f.callable_name,  # as the user knows it when function is a wrapper; schema 3, additive
        "call_site": to_plain(f.call_site),  # the user's line that called into the frame
        "filename": f.filename,
        "line": f.line,
        "cell": report.run.cell(f.filename),  # a notebook cell's In [N]; null: not in one
        "status": f.status,
        # dynamo (a compile Dynamo started, the headline's frames) | compiled_autograd |
        # export | recompile_limit: schema 3, additive
        "kind": f.kind,
        "attempts": f.attempts,  # analyses of the compile (a restart adds one)
        "failure": to_plain(f.failure),
        "cache": {"fx_graph": f.cache.get("fx_graph"), "aot_autograd": f.cache.get("aot_autograd")},
        "user_stack": to_plain(f.user_stack),
        "graph_breaks": [
            {
                "reason": gb.reason,
                "gb_type": gb.gb_type,
                "gb_id": gb.gb_id,
                "explanation": gb.explanation,
                "hints": list(gb.hints),
                "filename": gb.filename,
                "line": gb.line,
                "cell": report.run.cell(gb.filename),
                "user_stack": to_plain(gb.user_stack),
                "debug_context": gb.debug_context,
                "frame_skipped": gb.frame_skipped,
                "then": gb.then,
            }
            for gb in f.graph_breaks
        ],
        "recompile_reasons": [r.text for r in f.recompiles],
        "recompiles": to_plain(f.recompiles),
        "guards": [
            {
                "kind": g.kind,
                "source": g.source,
                "code": g.code,
                "filename": g.filename,
                "line": g.line,
                "function": g.function,
                "user_code": g.user_code,
                "hint": g.hint,
            }
            for g in f.guards
        ],
        "guard_count": f.metrics.guard_count,
        "graphs": graphs,
        "kernels": [_kernel(report, k, sources, f.graph_kinds) for k in kernels],
        "compile_time_s": f.metrics.entire_frame_s,
        "metrics": to_plain(f.metrics),
        "region_time_us": f.region_time_us,
        "region_calls": f.region_calls,
        "timing": to_plain(f.timing),
        "cudagraph_skip_reason": f.cudagraph_skip_reason,
        "autotuning": to_plain(f.autotuning),
        "cudagraphs": to_plain(f.cudagraphs),
        "symbolic_shapes": to_plain(f.symbolic_shapes),
    }


def _kernel(
    report: Report, k: Kernel, sources: _Sources, graph_kinds: Collection[str] = ()
) -> dict[str, Any]:
    time = None
    if k.time is not None:
        time = {
            "calls": k.time.calls,
            "median_us": k.time.median_us,
            "total_us": k.time.total_us,
            "mean_us": k.time.mean_us,
            "min_us": k.time.min_us,
            "p90_us": k.time.p90_us,
            "max_us": k.time.max_us,
            "cv": k.time.cv,
            "launches_per_call": k.time.launches,
            "share": k.time.share,
            "noisy": k.time.noise,  # why the figure is noisy (render/timefmt.py), null when not
            "samples": list(k.time.samples),
        }
    return {
        "name": k.name,
        "rank": k.rank,
        "language": k.language,
        "kind": k.kind,
        "source": sources.take(lambda: report.kernel_source(k)),
        "graph": k.graph_kind,
        "phase": kernel_phase(k, graph_kinds),
        "fused_nodes": list(k.fused_nodes),
        "origins": to_plain(k.origins),
        "time": time,
        "isolated": to_plain(report.bench.kernel(k.compile_id, k.graph_kind, k.name)),
        "roofline": _roofline(report, k),
        "meta": to_plain(k.meta),
        "compiled": _compiled(report, k, sources.on),
    }


def _compiled(report: Report, k: Kernel, sources: bool) -> dict[str, Any] | None:
    """A Triton kernel's stages (with the Python-line mapping), metadata, occupancy, launches."""
    if k.language != "triton":
        return None
    detail = report.kernel_detail(k)
    if detail is None:
        return None
    plain = to_plain(detail)
    occ = occupancy(detail)
    plain["occupancy"] = to_plain(occ) if occ is not None else None
    plain["grids"] = [list(g) if (g := grid_of(detail, launch)) else None for launch in detail.launches]
    if sources:
        plain["line_map"] = {
            stage: {str(p): lines for p, lines in line_map(stage, text, detail.python_file).items()}
            for stage, text in detail.stages.items()
        }
    else:
        plain["stages"] = {stage: None for stage in detail.stages}
        plain["python_source"] = None
    return plain


def _roofline(report: Report, k: Kernel) -> dict[str, Any] | None:
    """The one % of limit (``analysis/roofline.py``) with its method named."""
    if k.language != "triton":
        return None
    reads = read_bytes(report.kernel_detail(k)) if report.bench.run is not None else None
    r = roofline(k, report.bench, reads)
    if r is None:
        return None
    return {**to_plain(r), "fraction": r.fraction, "method_text": METHODS[r.method]}
