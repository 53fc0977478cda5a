"""DDPOptimizer's records: ``optimize_ddp_split_graph`` (a frame's graph was split at DDP's
bucket boundaries) and ``optimize_ddp_split_child`` (one piece: ``{"name": "submod_0"}``).

The builder keeps them raw (they say nothing about the frame's own rows); readers ask
:func:`submodules` what they mean instead of reading their keys (``analysis/ddp.py``). No torch.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

SPLIT_GRAPH = "optimize_ddp_split_graph"
SPLIT_CHILD = "optimize_ddp_split_child"
EVENTS = frozenset({SPLIT_GRAPH, SPLIT_CHILD})


def submodules(records: Iterable[tuple[str, dict[str, Any]]]) -> tuple[str, ...] | None:
    """The submodule names of a frame's split graph from its (event name, metadata) records,
    in order (``submod_N`` where torch logged none); None when DDPOptimizer did not split it."""
    names: list[str] = []
    split = False
    for name, metadata in records:
        if name == SPLIT_GRAPH:
            split = True
        elif name == SPLIT_CHILD:
            split = True
            child = metadata.get(SPLIT_CHILD)
            found = child.get("name") if isinstance(child, dict) else None
            names.append(found if isinstance(found, str) else f"submod_{len(names)}")
    return tuple(names) if split else None


def torch_break_count(metrics_extra: dict[str, Any]) -> int | None:
    """torch's own graph-break count of a frame (``compilation_metrics.num_graph_breaks``),
    which counts DDPOptimizer's pieces too; None when not recorded."""
    found = metrics_extra.get("num_graph_breaks")
    return found if isinstance(found, int) and not isinstance(found, bool) else None
