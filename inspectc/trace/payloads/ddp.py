"""DDPOptimizer's split records: their decoder is :mod:`inspectc.model.decode.ddp` (readers
use it too); the builder reads which events they are from here."""

from __future__ import annotations

from inspectc.model.decode.ddp import EVENTS, SPLIT_CHILD, SPLIT_GRAPH, submodules, torch_break_count

__all__ = ["EVENTS", "SPLIT_CHILD", "SPLIT_GRAPH", "submodules", "torch_break_count"]
