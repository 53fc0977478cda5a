"""Link and artifact records nothing else reads -> report-model types.

- ``link`` (metadata ``{"name", "url"}``): a named URL for a compile.
- ``artifact`` records not read elsewhere (``before_joint_graph``, ``aot_forward_graph_fw_
  metadata``, ``triton_kernel_info``...): catalogued by name per compile id, payload kept raw.
- ``fx_graph_cache_hash`` (JSON ``{"key", "components": [...], "cache_state"?,
  "cache_bypass_reason"?}``, torch 2.3-2.5; later torch logs the key in its
  ``fx_graph_cache_{hit,miss,bypass}`` records).
- Distributed diagnostics, per graph: ``inductor_collective_schedule`` (JSON list of the
  collective kernels Inductor scheduled, in order), ``inductor_runtime_and_tensor_meta``
  (JSON ``{"ops": [{"name", "type", "estimated_runtime_ns", "outputs": [{"shape", "stride",
  "dtype"}]}]}``, with ``torch._inductor.config.log_tlparse``), and per process
  ``graph_execution`` (JSON ``{"graph_execution_order": [{"compile_id": "0/1"}, ...]}``, under
  ``torch._inductor.debug.record_and_log_graph_execution_order()``).
- ``inductor_output_code`` of a graph: the ``torch.ops._c10d_functional.<op>.default(`` calls
  its wrapper makes, in order, outside comments (tlparse's collectives parity compares them
  with the schedule).

Pure: stdlib only, tolerant (a payload that is not what it should be gives None), never raises.
"""

from __future__ import annotations

import json
import re
from typing import Any

from inspectc.model import CompileId
from inspectc.model.runrecords import CacheKey, ExecutionOrder, Link, OpEstimate

__all__ = [
    "COLLECTIVE_SCHEDULE",
    "EXECUTION_ORDER",
    "RUNTIME_ESTIMATES",
    "cache_key",
    "code_collective_calls",
    "collective_schedule",
    "execution_order",
    "link",
    "runtime_estimates",
]

CACHE_HASH = "artifact:fx_graph_cache_hash"
COLLECTIVE_SCHEDULE = "artifact:inductor_collective_schedule"
RUNTIME_ESTIMATES = "artifact:inductor_runtime_and_tensor_meta"
EXECUTION_ORDER = "artifact:graph_execution"


def link(body: Any, *, rank: int | None, compile_id: CompileId | None) -> Link | None:
    if not isinstance(body, dict) or not isinstance(body.get("url"), str):
        return None
    name = body.get("name")
    return Link(
        name=name if isinstance(name, str) else "link", url=body["url"], rank=rank, compile_id=compile_id
    )


def cache_key(payload: str | None, *, rank: int | None, compile_id: CompileId | None) -> CacheKey | None:
    data = _json(payload)
    if not isinstance(data, dict) or not isinstance(data.get("key"), str):
        return None
    components = data.get("components")
    state = data.get("cache_state")
    reason = data.get("cache_bypass_reason")
    return CacheKey(
        key=data["key"],
        rank=rank,
        compile_id=compile_id,
        components=len(components) if isinstance(components, list) else 0,
        state=state if isinstance(state, str) else None,
        bypass_reason=reason if isinstance(reason, str) else None,
    )


def collective_schedule(payload: str | None) -> tuple[str, ...] | None:
    data = _json(payload)
    if not isinstance(data, list):
        return None
    return tuple(str(op) for op in data if op is not None)


_C10D_CALL = re.compile(r"torch\s*\.\s*ops\s*\.\s*_?c10d_functional\s*\.\s*(\w+)\s*\.\s*default\s*\(")
_COMMENT = re.compile(r"#[^\n]*|/\*.*?\*/", re.S)


def code_collective_calls(code: str | None) -> tuple[str, ...]:
    """The c10d functional ops an output code calls, in order, outside ``#`` and ``/* */``
    comments (the kernel sources an AOT wrapper keeps in comments are not calls)."""
    if not code or "c10d_functional" not in code:
        return ()
    return tuple(_C10D_CALL.findall(_COMMENT.sub("", code)))


def runtime_estimates(payload: str | None) -> tuple[OpEstimate, ...] | None:
    data = _json(payload)
    ops = data.get("ops") if isinstance(data, dict) else None
    if not isinstance(ops, list):
        return None
    out = []
    for op in ops:
        if not isinstance(op, dict):
            continue
        runtime = op.get("estimated_runtime_ns")
        out.append(
            OpEstimate(
                name=str(op.get("name") or "?"),
                type=op.get("type") if isinstance(op.get("type"), str) else None,
                runtime_ns=float(runtime)
                if isinstance(runtime, (int, float)) and not isinstance(runtime, bool)
                else None,
                outputs=tuple(_tensor_text(t) for t in op.get("outputs") or () if isinstance(t, dict)),
            )
        )
    return tuple(out)


def execution_order(payload: str | None, *, rank: int | None) -> ExecutionOrder | None:
    data = _json(payload)
    order = data.get("graph_execution_order") if isinstance(data, dict) else None
    if not isinstance(order, list):
        return None
    ids = []
    for item in order:
        if isinstance(item, str):
            ids.append(CompileId.parse(item))
        elif isinstance(item, dict):  # a graph loaded from the cache has no compile id: "?"
            text = item.get("compile_id")
            ids.append(CompileId.parse(text) if isinstance(text, str) else CompileId())
    return ExecutionOrder(rank=rank, compile_ids=tuple(ids))


def _tensor_text(tensor: dict[str, Any]) -> str:
    """``float32[4, 8] stride [8, 1]``: one output tensor's metadata as one comparable string."""
    shape = ", ".join(map(str, tensor.get("shape") or ()))
    stride = ", ".join(map(str, tensor.get("stride") or ()))
    return f"{tensor.get('dtype') or '?'}[{shape}]" + (f" stride [{stride}]" if stride else "")


def _json(payload: str | None) -> Any:
    if not payload:
        return None
    try:
        return json.loads(payload)
    except (ValueError, RecursionError):
        return None
