"""What capture reads of a torch record as it arrives, one small function each. No torch.

Capture decides a few things per record before the builder sees it: a frame compile starts
(read ``fullgraph`` now, show the status line) or ends (write its frames now), the kernel
timer's compile spans and FX graph keys, the provenance records whose kernel table torch
left out. Torch's record shapes are known here, in trace/, so capture names none of them.
Each function takes the record's metadata (and payload) as ``trace_structured`` hands them
to a logging handler, and never raises on odd input.
"""

from __future__ import annotations

import json
from typing import Any

from inspectc.trace import records

_FRAME_START = "dynamo_start"
_FRAME_END = "compilation_metrics"
_ARTIFACT = "artifact"
_CHROMIUM = "chromium_event"
_CACHE_ARTIFACTS = ("fx_graph_cache_miss", "fx_graph_cache_hit")
_COMPILE_SPANS = ("dynamo", "entire_backward_compile")  # a frame's compile, a lazy backward's
_NODE_MAPPINGS = "inductor_provenance_tracking_node_mappings"
_KERNEL_TRACES = "inductor_provenance_tracking_kernel_stack_traces"
_ID_KEYS = ("frame_id", "frame_compile_id", "compiled_autograd_id")
_CONTEXT = ("frame_id", "frame_compile_id", "attempt", "compiled_autograd_id", "rank")


def interned_string(text: str, index: int) -> tuple[dict[str, Any], None]:
    """The record torch emits when it interns a file name (``torch._logging.structured``)."""
    return {"str": [text, index]}, None


def frame_started(metadata: dict[str, Any]) -> bool:
    """Dynamo starts compiling a frame (its ``torch.compile`` call is on the stack now)."""
    return _FRAME_START in metadata


def frame_ended(metadata: dict[str, Any]) -> bool:
    """A frame's compile ended, compiled or failed: its frame can be written."""
    return _FRAME_END in metadata


def ended_frame(metadata: dict[str, Any]) -> tuple[str, tuple[str, str, int] | None, str] | None:
    """A ``compilation_metrics`` record as (compile id, its code's (name, file, first line) or
    None, its failure's type and reason as one text), else None."""
    metrics = metadata.get(_FRAME_END)
    if not isinstance(metrics, dict) or not isinstance(metrics.get("compile_id"), str):
        return None
    name, filename, line = metrics.get("co_name"), metrics.get("co_filename"), metrics.get("co_firstlineno")
    where: tuple[str, str, int] | None = None
    if isinstance(name, str) and isinstance(filename, str) and isinstance(line, int):
        where = (name, filename, line)
    return (
        metrics["compile_id"],
        where,
        f"{metrics.get('fail_type') or ''} {metrics.get('fail_reason') or ''}",
    )


def start_site(metadata: dict[str, Any]) -> tuple[str, str]:
    """(function, line) of the frame a ``dynamo_start`` record starts, as text ("?" unknown)."""
    start = metadata.get(_FRAME_START)
    stack = start.get("stack") if isinstance(start, dict) else None
    top = stack[-1] if isinstance(stack, list) and stack and isinstance(stack[-1], dict) else {}
    return str(top.get("name", "?")), str(top.get("line", "?"))


def artifact_name(metadata: dict[str, Any]) -> str | None:
    artifact = metadata.get(_ARTIFACT)
    name = artifact.get("name") if isinstance(artifact, dict) else None
    return name if isinstance(name, str) else None


def fx_graph_cache_key(metadata: dict[str, Any], payload: str | None) -> tuple[str, str] | None:
    """(compile id, FX graph key) of an ``fx_graph_cache_{miss,hit}`` artifact, else None."""
    if not (artifact_name(metadata) or "").startswith(_CACHE_ARTIFACTS):
        return None
    try:
        key = json.loads(payload or "{}").get("key")
    except (ValueError, AttributeError):
        return None
    cid = records.compile_id(metadata)
    return (cid, key) if isinstance(key, str) and cid is not None else None


def compile_span(metadata: dict[str, Any], payload: str | None) -> tuple[str, str | None] | None:
    """("B" or "E", compile id) of a frame's or a lazy backward's compile span, else None.

    Hundreds of chromium events come per compile: a text test comes before the JSON parse.
    """
    if _CHROMIUM not in metadata or not payload:
        return None
    if not any(f'"{name}"' in payload for name in _COMPILE_SPANS):
        return None
    try:
        event = json.loads(payload)
    except ValueError:
        return None
    if not isinstance(event, dict) or event.get("name") not in _COMPILE_SPANS:
        return None
    phase = event.get("ph")
    if phase not in ("B", "E"):
        return None
    args = event.get("args")
    cid = args.get("compile_id") if isinstance(args, dict) else None
    return phase, cid if isinstance(cid, str) else None


def is_node_mappings(metadata: dict[str, Any]) -> bool:
    return artifact_name(metadata) == _NODE_MAPPINGS


def is_kernel_stack_traces(metadata: dict[str, Any]) -> bool:
    return artifact_name(metadata) == _KERNEL_TRACES


def lacks_kernel_table(payload: str | None) -> bool:
    """A node-mappings payload without its kernel -> post-grad node table (``cppCodeToPost``):
    torch 2.13 writes a lazily compiled backward graph's as ``{"version": 2.0}`` alone."""
    try:
        data = json.loads(payload or "{}")
    except ValueError:
        return False
    return isinstance(data, dict) and not data.get("cppCodeToPost")


def compile_context(metadata: dict[str, Any]) -> dict[str, Any]:
    """The compile id and rank keys of a record, to stamp a record of capture's own with."""
    return {k: metadata[k] for k in _CONTEXT if k in metadata}


def compile_id_metadata(compile_id: object) -> dict[str, int]:
    """Trace metadata keys of torch's ``CompileId`` object (``CompileContext.current_compile_id()``):
    torch logs its attributes under their own names, where they are set."""
    found = {key: getattr(compile_id, key, None) for key in _ID_KEYS}
    return {key: value for key, value in found.items() if isinstance(value, int)}
