"""Schema 2 -> 3: a recompile lists its failed guards. Reports written before that stored
one entry per failed guard; a compile id has one ``recompile_reasons`` record, so those
entries are one recompile: the first (newest) with the others as ``failed``. Kernel times
without samples need no step: their median, p90 and CV read as "not recorded".
"""

from __future__ import annotations

from typing import Any


def frame(plain: dict[str, Any]) -> dict[str, Any]:
    """A version-2 frame's JSON as version 3's."""
    entries = plain.get("recompiles")
    if not isinstance(entries, list) or len(entries) < 2:
        return plain
    if not all(isinstance(e, dict) and not e.get("failed") for e in entries):
        return plain
    guards = [{k: e.get(k) for k in ("text", "earlier_compile_id", "guard")} for e in entries]
    return {**plain, "recompiles": [{**entries[0], "failed": guards}]}
