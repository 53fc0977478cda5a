"""The records capture adds to torch's stream, shaped where they are read. No torch.

Capture measures what torch does not log (kernel times, what runs between compiled regions,
autotuning choices, a lazily compiled backward graph's kernel -> node table) and hands it to the
builder as records of its own, beside torch's. Their keys are made here, in trace/, next to the
parsers that read them (:mod:`inspectc.trace.timings`, :mod:`inspectc.trace.kernels`,
:mod:`inspectc.trace.payloads.extras`; the region gaps' reader is :mod:`inspectc.model.costs`):
capture passes values, never keys.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from typing import Any

from inspectc.model import CompileId
from inspectc.model.costs import GAPS_EVENT

KERNEL_TIMES = "inspectc_kernel_times"
KERNEL_NODES = "inspectc_kernel_nodes"
AUTOTUNE = "inspectc_autotune"
KERNEL_TIMES_VERSION = 2  # of the inspectc_kernel_times payload

Record = tuple[dict[str, Any], str]  # (metadata, payload) as trace_structured hands them over


def autotune(op: str, choices: Iterable[tuple[str, str, float]], compile_id: dict[str, int]) -> Record:
    """One ``inspectc_autotune`` record: every benchmarked (name, description, ms) of an op."""
    meta: dict[str, Any] = {AUTOTUNE: {"op": op}, **compile_id}
    listed = [
        {"name": name, "desc": desc, "ms": float(ms) if math.isfinite(ms) else None}
        for name, desc, ms in choices
    ]
    return meta, json.dumps({"op": op, "choices": listed})


def kernel_nodes(context: dict[str, Any], table: dict[str, list[str]], source: str) -> Record:
    """One ``inspectc_kernel_nodes`` record: kernel call site -> post-grad nodes added since the
    last one, stamped with the compile id keys (*context*) of the record it completes."""
    meta: dict[str, Any] = {KERNEL_NODES: {"source": source}, **context}
    return meta, json.dumps({"version": 1, "kernel_to_post": table})


def kernel_times(compile_id: str, payload: dict[str, Any]) -> Record:
    """One ``inspectc_kernel_times`` record; a plain frame's id also as its metadata keys."""
    meta: dict[str, Any] = {KERNEL_TIMES: {"compile_id": compile_id}}
    cid = CompileId.parse(compile_id)
    if cid.autograd is None and cid.frame is not None and cid.compile is not None and str(cid) == compile_id:
        meta["frame_id"], meta["frame_compile_id"] = cid.frame, cid.compile
    return meta, json.dumps(payload)


def kernel_times_payload(
    *, skip: int, count: int, errors: list[str], environment: dict[str, Any]
) -> dict[str, Any]:
    """An ``inspectc_kernel_times`` payload of one compile id, before its graphs are added."""
    return {
        "version": KERNEL_TIMES_VERSION,
        "window": {"skip": skip, "count": count},
        "errors": list(errors),
        "environment": environment,
        "graphs": [],
    }


def add_graph(payload: dict[str, Any], graph: dict[str, Any], *, forward_region: bool) -> None:
    """Add a :func:`graph_times` entry; a forward graph's region times are the frame's too."""
    if forward_region:
        payload["region"] = graph["region"]
    payload["graphs"].append(graph)


def graph_times(
    *,
    fx_graph_key: str | None,
    phase: str,
    calls_seen: int,
    device: bool,
    region: dict[str, Any],
    graph: dict[str, Any],
    kernels_total: dict[str, Any],
    replay: dict[str, Any] | None,
    kernels: list[dict[str, Any]],
) -> dict[str, Any]:
    """One FX graph's measured times (the summaries are ``Samples.as_dict`` of each figure)."""
    return {
        "fx_graph_key": fx_graph_key,
        "phase": phase,
        "calls_seen": calls_seen,
        "time_base": "device" if device else "cpu",
        "region": region,
        "graph": graph,
        "kernels_total": kernels_total,
        "replay": replay,
        "kernels": kernels,
    }


def kernel_times_entry(
    *,
    profiler_name: str,
    ordinal: int,
    kind: str,
    name: str,
    launches: int,
    replayed: bool,
    samples: dict[str, Any],
) -> dict[str, Any]:
    """One kernel's samples in a graph: the profiler's range name and its n-th launch site."""
    entry: dict[str, Any] = {"profiler_name": profiler_name, "ordinal": ordinal, "kind": kind}
    entry["name"] = name
    entry["launches"] = launches
    if replayed:
        entry["replayed"] = True
    return {**entry, **samples}


def region_gaps(
    *,
    device: bool,
    gaps: Iterable[tuple[str, str, dict[str, Any], dict[str, Any] | None]],
    calls: Iterable[tuple[str, dict[str, Any]]],
) -> Record:
    """One ``inspectc_region_gaps`` record: per (frame, resume region) pair the host time between
    them (and the device's idle time on CUDA), and each top-level region's call time; the
    figures are ``Samples.as_dict`` summaries."""
    data = {
        "version": 1,
        "time_base": "cuda" if device else "cpu",
        "gaps": [
            {"before": before, "after": after, "host": host, "device": idle}
            for before, after, host, idle in gaps
        ],
        "calls": [{"compile_id": cid, "host": host} for cid, host in calls],
    }
    return {GAPS_EVENT: {"version": 1}}, json.dumps(data)
