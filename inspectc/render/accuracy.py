"""Accuracy results as text (summary's lead section) and the kernel links of a located node.

No torch: reads :mod:`inspectc.model.accuracy` and the report's kernels.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from inspectc.model import Kernel
from inspectc.model.accuracy import AccuracyRun, KernelRef, Location


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
