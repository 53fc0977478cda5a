"""Older names of the schema steps, kept for callers: the steps live in
:mod:`inspectc.store.migrations` (one module per version)."""

from __future__ import annotations

from inspectc.store.migrations.v1_to_v2 import frame as frame_v1
from inspectc.store.migrations.v2_to_v3 import frame as recompiles

__all__ = ["frame_v1", "recompiles"]
