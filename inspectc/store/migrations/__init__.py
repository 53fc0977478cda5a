"""One module per schema step, as coverage.py keeps its data file's: ``v1_to_v2``,
``v2_to_v3``... Each has ``frame(plain) -> plain``: a frame's JSON of that version as the
next version's. :func:`upgrade_frame` runs the steps from a report's version up to
``SCHEMA_VERSION``; tables need no step (changes to them were additive). Every version has a
committed report in tests/data/reports that still opens (tests/test_schema.py checks).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from inspectc.store.migrations import v1_to_v2, v2_to_v3
from inspectc.store.schema import SCHEMA_VERSION

Plain = dict[str, Any]

# version N -> the step that reads a version-N frame as version N+1's
STEPS: dict[int, Callable[[Plain], Plain]] = {1: v1_to_v2.frame, 2: v2_to_v3.frame}


def upgrade_frame(plain: Plain, version: int) -> Plain:
    """A frame's JSON of schema *version* as the current schema's."""
    for step in range(version, SCHEMA_VERSION):
        plain = STEPS[step](plain)
    if version >= 3:
        # Early version-3 reports still stored one recompile per failed guard: idempotent.
        plain = v2_to_v3.frame(plain)
    return plain
