"""Capture's measured times (``inspectc_kernel_times``) joined to a frame's kernels. No torch.

One payload per compile id lists, per FX graph (forward, backward), every range measured
inside its calls: generated kernels by name (all launches in a call summed), extern and
fallback ops by operator and launch number. A generated kernel joins by name; an op joins by
:func:`inspectc.trace.kernel_names.op_key` and its launch number (the n-th launch in a call is
the n-th call site in the output code). What joins no kernel (allocations, ops the code does
not name) is kept on the frame as ``timing.unattributed``, so the times shown plus those add
up to what the profiler measured inside the graph calls.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from inspectc.model import FrameTiming, KernelTime
from inspectc.trace.frames import FrameState
from inspectc.trace.kernel_names import op_key, site_number
from inspectc.trace.records import as_num
from inspectc.trace.sink import Sink

CUDA_GRAPHS_UNNAMED = (
    "CUDA graphs: in a graph replay the profiler names the library kernels an extern op ran "
    "(cuBLAS, attention), not the op, so extern ops have no time of their own; theirs is in the "
    "replay time and listed as not a kernel"
)
CUDA_GRAPHS_ABSENT = (
    "CUDA graphs: the frame's kernels ran inside graph replays and the profiler named none of "
    "them; the replay is timed per call instead"
)


def _num(d: Any, key: str) -> float | None:
    return as_num(d.get(key) if isinstance(d, dict) else None)


def _count(value: Any) -> int:
    """A count of calls: a whole number a report can hold; else ValueError (malformed)."""
    count = int(value or 0)
    if not 0 <= count < 1 << 53:
        raise ValueError(f"a count of {str(count)[:20]} is out of range")
    return count


def _small(value: Any) -> int | None:
    """A thread or CPU count as recorded, or None when it is none a machine has."""
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 1 << 31 else None


def _kernel_time(t: dict[str, Any]) -> KernelTime:
    calls = _count(t.get("calls"))
    total = float(t.get("total_us") or 0.0)
    launches = t.get("launches")
    samples = t.get("samples")
    return KernelTime(
        calls=calls,
        total_us=total,
        mean_us=total / calls if calls else 0.0,
        min_us=_num(t, "min_us") or 0.0,
        max_us=_num(t, "max_us") or 0.0,
        median_us=_num(t, "median_us"),
        p90_us=_num(t, "p90_us"),
        cv=_num(t, "cv"),
        launches=_count(round(launches / calls)) if isinstance(launches, int) and calls else None,
        samples=tuple(float(v) for v in samples if isinstance(v, (int, float)))
        if isinstance(samples, list)
        else (),
    )


def _join(st: FrameState, graph: dict[str, Any]) -> tuple[list[tuple[int, dict[str, Any]]], dict[str, float]]:
    """(kernel index, entry) for every entry that names a kernel; the rest by profiler name."""
    backward = graph.get("phase") == "backward"
    by_name: dict[str, int] = {}
    by_op: dict[str, dict[int, int]] = {}
    for i, k in enumerate(st.kernels):
        if k.graph_kind.endswith("_backward") != backward:
            continue
        if k.language == "extern":
            key = op_key(str(k.meta.get("op") or k.name))
            if key is not None:
                by_op.setdefault(key, {})[site_number(k.name)] = i
        by_name.setdefault(k.name, i)
    joined: list[tuple[int, dict[str, Any]]] = []
    rest: dict[str, float] = {}
    taken: set[int] = set()
    for entry in graph.get("kernels") or ():
        if not isinstance(entry, dict):
            continue
        pname = str(entry.get("profiler_name") or entry.get("name") or "?")
        name = str(entry.get("name") or pname)
        index = by_name.get(name) if entry.get("kind") != "extern" else None
        if index is None:
            key = op_key(pname) or op_key(name)
            ordinal = entry.get("ordinal")
            index = by_op.get(key or "", {}).get(ordinal if isinstance(ordinal, int) else 0)
        if index is None or index in taken:
            rest[pname] = rest.get(pname, 0.0) + float(entry.get("total_us") or 0.0)
            continue
        taken.add(index)
        joined.append((index, entry))
    return joined, rest


def apply_times(writer: Sink, st: FrameState, payload: str | None) -> bool:
    """Measured calls of the frame's kernels, and the frame's ``timing``.

    A frame may get several payloads (a backward graph without an FX graph key is placed by
    :func:`place_times` apart from its forward): each joins its own graphs, and the shares
    and the frame's timing are computed again over every graph applied so far. False when
    the payload is not a JSON object (nothing applied).
    """
    try:
        data = json.loads(payload or "{}")
    except ValueError:
        return False
    if not isinstance(data, dict):
        return False
    region = data.get("region") or {}
    if isinstance(region, dict) and isinstance(region.get("total_us"), (int, float)):
        total, calls = float(region["total_us"]), _count(region.get("calls"))
        st.region_time_us, st.region_calls = total, calls
    graphs = [g for g in data.get("graphs") or () if isinstance(g, dict)]
    joined: list[tuple[int, dict[str, Any]]] = []
    for graph in graphs:
        found, rest = _join(st, graph)
        joined += found
        for name, us in rest.items():
            st.unattributed[name] = st.unattributed.get(name, 0.0) + us
    if not graphs:  # a payload of inspectc before 0.3: one flat name -> time table
        flat = data.get("kernels") or {}
        joined = [(i, flat[k.name]) for i, k in enumerate(st.kernels) if isinstance(flat.get(k.name), dict)]
    for i, entry in joined:
        st.kernels[i] = replace(st.kernels[i], time=_kernel_time(entry))
    st.timed_graphs.extend(graphs)
    # share of the frame's kernel time: forward and backward, whichever payload brought them
    attributed = sum(k.time.total_us for k in st.kernels if k.time is not None)
    for i, k in enumerate(st.kernels):
        if k.time is None:
            continue
        updated = replace(k, time=replace(k.time, share=k.time.total_us / attributed if attributed else None))
        if updated != k or any(i == j for j, _ in joined):
            st.kernels[i] = updated
            writer.update_kernel(updated)
    any_joined = any(k.time is not None for k in st.kernels)
    st.timing = _frame_timing(data, st.timed_graphs, attributed, st.unattributed, any_joined)
    return True


def _frame_timing(
    data: dict[str, Any],
    graphs: list[dict[str, Any]],
    attributed: float,
    rest: dict[str, float],
    any_joined: bool,
) -> FrameTiming:
    env = data.get("environment") if isinstance(data.get("environment"), dict) else {}
    assert isinstance(env, dict)

    def total(part: str) -> float:
        return sum(_num(g.get(part), "total_us") or 0.0 for g in graphs)

    replays = [g["replay"] for g in graphs if isinstance(g.get("replay"), dict)]
    calls = sum(int(_num(g.get("graph"), "calls") or 0) for g in graphs)
    absent = None
    if replays and rest:
        absent = CUDA_GRAPHS_UNNAMED
    if not any_joined:
        errors = [str(e) for e in data.get("errors") or ()]
        if replays:
            absent = CUDA_GRAPHS_ABSENT
        elif graphs and not calls:
            absent = "no call of the frame's graphs ran while the profiler was on"
        elif rest:
            absent = "no measured range matched a kernel of the output code (see unattributed)"
        elif errors:
            absent = "; ".join(errors)
    load = env.get("load_avg")
    return FrameTiming(
        time_base="device"
        if any(g.get("time_base") == "device" for g in graphs)
        else "cpu"
        if graphs
        else None,
        threads=_small(env.get("threads")),
        interop_threads=_small(env.get("interop_threads")),
        cpus=_small(env.get("cpus")),
        load_avg=tuple(float(v) for v in load if isinstance(v, (int, float)))
        if isinstance(load, list)
        else (),
        graph_calls=calls if graphs else None,
        graph_us=round(total("graph"), 3) if graphs else None,
        kernels_us=round(total("kernels_total"), 3) if graphs else None,
        attributed_us=round(attributed, 3),
        unattributed={k: round(v, 3) for k, v in sorted(rest.items(), key=lambda kv: -kv[1])},
        replay_us=round(sum(_num(r, "total_us") or 0.0 for r in replays), 3) if replays else None,
        replay_calls=sum(int(_num(r, "calls") or 0) for r in replays) if replays else None,
        absent=absent,
    )


def place_times(
    states: Iterable[FrameState], payload: str | None
) -> tuple[list[tuple[FrameState, str]], int]:
    """Graphs of an ``inspectc_kernel_times`` record capture could not tie to a compile id.

    A backward graph compiled without the FX graph cache (``--fresh``, caches off) has no
    cache key to tie it to its frame: it goes to the one frame whose backward kernels
    include every kernel it measured. Returns (frame, payload for it) pairs and the number
    of graphs left unplaced (no frame, or several frames alike).
    """
    try:
        data = json.loads(payload or "{}")
    except ValueError:
        return [], 0
    graphs = data.get("graphs") if isinstance(data, dict) else None
    if not isinstance(graphs, list):
        return [], 0
    frames = list(states)
    placed: list[tuple[FrameState, str]] = []
    left = 0
    for graph in graphs:
        if not isinstance(graph, dict):
            continue
        backward = graph.get("phase") == "backward"
        # generated kernels only: extern ops and other ranges (aten::mm, allocations) are named
        # by the profiler, not by the output code, and would match no frame
        names = {
            e.get("name")
            for e in graph.get("kernels") or ()
            if isinstance(e, dict) and e.get("kind") in ("cpp", "triton")
        }
        matches = [
            st
            for st in frames
            if names
            and names <= {k.name for k in st.kernels if k.graph_kind.endswith("_backward") == backward}
        ]
        if len(matches) != 1:
            left += 1
            continue
        placed.append((matches[0], json.dumps({**data, "graphs": [graph], "kernels": {}})))
    return placed, left
