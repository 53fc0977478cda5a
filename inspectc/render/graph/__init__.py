"""Graphviz pictures of a report: the fusion view of one frame and the break view of a run.

``fusion_dot(report, "0/1")`` (:mod:`.fusion`) draws a frame's post-grad FX graph with the
nodes each generated kernel fused in one cluster; ``breaks_dot(report)`` (:mod:`.breaks`)
draws the run's frames, graph breaks and recompiles; ``render(dot_text, "frame.svg")``
(:mod:`.render`) writes ``.dot`` itself and anything else through Graphviz's ``dot``.
:mod:`.style` holds the escaping every piece of report text goes through, :mod:`.modules`
and :mod:`.plan` what the fusion view folds together. No torch.
"""

from __future__ import annotations

from inspectc.render.graph.breaks import breaks_dot
from inspectc.render.graph.fusion import fusion_dot
from inspectc.render.graph.modules import node_modules, normalize_module
from inspectc.render.graph.render import FORMATS, GraphvizMissing, RenderError, render, svg
from inspectc.render.graph.style import clean, html, quote

__all__ = [
    "FORMATS",
    "GraphvizMissing",
    "RenderError",
    "breaks_dot",
    "clean",
    "fusion_dot",
    "html",
    "node_modules",
    "normalize_module",
    "quote",
    "render",
    "svg",
]
