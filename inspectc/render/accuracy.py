"""Accuracy results as text (summary's lead section) and the kernel links of a located node.

No torch: reads :mod:`inspectc.model.accuracy` and the report's kernels.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from inspectc.analysis.text import printable
from inspectc.model import Kernel
from inspectc.model.accuracy import DIVERGES, AccuracyRun, GraphAccuracy, KernelRef, Location


def located_kernels(kernels: list[Kernel], location: Location) -> tuple[KernelRef, ...]:
    """Kernels whose provenance names the located node (forward output code first)."""
    hits = [k for k in kernels if any(o.op == location.node for o in k.origins)]
    hits.sort(key=lambda k: (k.graph_kind != "output_code", k.id))
    return tuple(KernelRef(name=k.name, graph_kind=k.graph_kind, fused_nodes=k.fused_nodes) for k in hits)


def link_kernels(run: AccuracyRun, report: Any) -> AccuracyRun:
    """*run* with each located node's kernels filled in from *report*'s provenance."""
    graphs = []
    for g in run.graphs:
        if g.location is not None and g.location.node:
            kernels = located_kernels(report.frame_kernels(g.compile_id), g.location)
            g = replace(g, location=replace(g.location, kernels=kernels))
        graphs.append(g)
    return replace(run, graphs=tuple(graphs))


def _num(x: float | None) -> str:
    return "-" if x is None else f"{x:.3g}"


def graph_lines(g: GraphAccuracy) -> list[str]:
    """One diverging graph: the worst output, then stage, pass, node, kernel, user line."""
    worst = max(
        (o for o in g.outputs if o.verdict == DIVERGES), key=lambda o: o.max_rel_error or 0.0, default=None
    )
    out = [f"  graph {g.compile_id} ({g.graph}): DIVERGES"]
    if worst is not None:
        out.append(
            f"    worst output {printable(worst.name)}: rel. error {_num(worst.max_rel_error)} vs fp64"
            f" (eager {_num(worst.eager_rel_error)}), max |compiled-eager| {_num(worst.max_abs_error)}"
        )
    if g.stages:
        chain = ", ".join(f"{s.backend} {s.verdict}" for s in g.stages)
        out.append(f"    stage: {g.first_stage or 'none diverges alone'}  ({chain})")
    b = g.bisection
    if b is not None:
        if b.backend:
            what = f"{b.backend}" + (f" / {b.subsystem}" if b.subsystem else "")
            what += f" #{b.bisect_number}" if b.bisect_number else ""
            info = f": {printable(b.debug_info)}" if b.debug_info and b.debug_info != b.subsystem else ""
            out.append(f"    pass (CompilerBisector): {what}{info}")
        else:
            out.append(f"    pass (CompilerBisector): {printable(b.note or 'not found')}")
    loc = g.location
    if loc is not None and loc.node:
        out.append(
            f"    first diverging node: {printable(loc.node)} = {printable(loc.target)}"
            f" (rel. error {_num(loc.max_rel_error)}, eager {_num(loc.eager_rel_error)}; {loc.nodes_compared} nodes compared)"
        )
        for k in loc.kernels[:3]:
            fused = ", ".join(k.fused_nodes[:8]) + (" ..." if len(k.fused_nodes) > 8 else "")
            out.append(f"    kernel: {printable(k.name)} [{k.graph_kind}] fuses {printable(fused)}")
        if not loc.kernels:
            out.append("    kernel: not recorded (no provenance for this node)")
        if loc.filename:
            code = f": {printable(loc.code)}" if loc.code else ""
            out.append(f"    user line: {printable(loc.filename)}:{loc.line}{code}")
    elif loc is not None and loc.note:
        out.append(f"    node: {printable(loc.note)}")
    return out


def render_accuracy(run: AccuracyRun | None) -> list[str]:
    """The summary's lead section (empty when accuracy was not checked)."""
    if run is None:
        return []
    bad = run.diverging
    other = [g for g in run.graphs if g.verdict not in (DIVERGES, "ok")]
    head = f"Accuracy: {len(bad)} of {len(run.graphs)} graphs diverge from eager beyond fp64 noise"
    s = run.settings
    head += f" (atol {s.get('atol')}, rtol {s.get('rtol')}, tol {s.get('tol')})"
    lines = [head]
    for g in bad:
        lines.extend(graph_lines(g))
    for g in other:
        lines.append(f"  graph {g.compile_id} ({g.graph}): {g.verdict}: {printable('; '.join(g.reasons))}")
    if not bad:
        lines.append(f"  worst rel. error vs fp64: {_num(run.max_rel_error)} (float noise: no alarm)")
    for e in run.errors:
        lines.append(f"  error: {printable(e)}")
    return lines + [""]


def share_lines(run: AccuracyRun | None) -> list[tuple[str, str]]:
    """(label, text) rows for a share bundle's run block: the verdict, then each divergence."""
    if run is None:
        return []
    bad = run.diverging
    rows = [
        (
            "accuracy",
            f"{len(bad)} of {len(run.graphs)} graphs diverge (worst rel. error {_num(run.max_rel_error)})",
        )
    ]
    for g in bad[:5]:
        parts = [f"graph {g.compile_id} ({g.graph})"]
        if g.first_stage:
            parts.append(f"stage {g.first_stage}")
        b = g.bisection
        if b is not None and b.subsystem:
            parts.append(
                f"pass {b.subsystem}"
                + (f" {b.debug_info}" if b.debug_info and b.debug_info != b.subsystem else "")
            )
        loc = g.location
        if loc is not None and loc.node:
            parts.append(f"node {loc.node}")
            if loc.kernels:
                parts.append(f"kernel {loc.kernels[0].name}")
            if loc.filename:
                parts.append(f"line {loc.filename}:{loc.line}")
        rows.append(("diverges", printable(", ".join(parts))))
    return rows
