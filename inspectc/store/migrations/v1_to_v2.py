"""Schema 1 -> 2: a version-1 frame has no typed compile id and keeps autotuning, CUDA graphs
and symbolic shapes as loose dicts inside ``metrics.extra``; here they become the typed fields.
"""

from __future__ import annotations

from typing import Any

from inspectc.model import CompileId, to_plain

_V1_EXTRAS = ("autotuning", "cudagraphs", "symbolic_shapes")


def frame(plain: dict[str, Any]) -> dict[str, Any]:
    """A version-1 frame's JSON as version 2's."""
    out = dict(plain)
    cid, rank = out.get("compile_id"), out.get("rank")
    if "id" not in out and isinstance(cid, str):
        out["id"] = to_plain(CompileId.parse(cid, rank if isinstance(rank, int) else None))
    metrics = out.get("metrics")
    if isinstance(metrics, dict) and isinstance(metrics.get("extra"), dict):
        extra = dict(metrics["extra"])
        for key in _V1_EXTRAS:
            if key in extra:
                out.setdefault(key, extra.pop(key))
        out["metrics"] = {**metrics, "extra": extra}
    return out
