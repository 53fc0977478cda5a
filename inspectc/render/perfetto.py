"""A report as a Chrome trace (Trace Event Format, JSON object form) for ui.perfetto.dev
and chrome://tracing: compile phases and measured kernel times, one process per rank.

- **Compile phases** are torch's own ``chromium_event`` records (``dynamo_timed`` spans:
  ``entire_frame_compile``, ``inductor_compile``, ``entire_backward_compile``...), kept with
  their timestamps and args; times start at the report's first event (``otherData.ts_base_us``
  is that instant in microseconds since the epoch). :mod:`inspectc.model.decode.chromium`
  pairs begins and ends into complete (``X``) events (interleaved spans on extra lanes, a
  begin without its end closed as ``"unfinished"``, an end without a begin counted in the
  trace's metadata).
- **Kernel times** are measured aggregates (calls, total, mean, min, max), not single calls
  with their own timestamps. Each timed graph (a frame's forward, backward or inference) is
  drawn once on its own thread of the rank: one slice "mean call" with its kernels laid end
  to end at their mean duration, in the graph's call order, right after the frame's
  compile. The args say so (``"layout": "mean per call, end to end"``) and carry the real
  figures.
- **Runtime estimates** (``inductor_runtime_and_tensor_meta``, as tlparse's
  ``chromium_trace_with_runtime.json``): each graph with estimates gets a thread
  ``estimates <compile id>`` on its rank, its ops laid end to end at Inductor's estimated
  duration (category ``estimate``, collectives ``estimate.collective``) right after the
  graph's compile, so ranks' estimates of one graph line up for comparison.
No torch.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from inspectc.model import Frame, Kernel
from inspectc.model.decode import chromium
from inspectc.model.phases import kernel_phase
from inspectc.store.reader import Report

COMPILE_TID = chromium.COMPILE_TID
_PHASE_TIDS = {"forward": 1, "inference": 1, "backward": 2, None: 3}
ESTIMATE_TID = 100_000  # + n: the threads of runtime estimates, after every kernel thread
_GAP_US = 10.0  # between a frame's compile end and its kernels


def chrome_trace(report: Report) -> dict[str, Any]:
    """The report as a Trace Event Format object: ``{"traceEvents": [...], ...}``."""
    events: list[dict[str, Any]] = []
    ends: dict[tuple[int, str], float] = {}  # (pid, compile id) -> end of its last compile span
    last_ts: dict[int, float] = {}
    found = _compile_spans(report)
    spans = found.events
    base = _rebase(spans)
    for ev in spans:
        events.append(ev)
        pid = ev["pid"]
        end = ev["ts"] + ev.get("dur", 0.0)
        last_ts[pid] = max(last_ts.get(pid, end), end)
        cid = chromium.span_compile_id(ev)
        if cid is not None:
            ends[(pid, cid)] = max(ends.get((pid, cid), end), end)
    threads: dict[tuple[int, int], str] = {(pid, COMPILE_TID): "compile" for pid in last_ts}
    threads.update(found.lanes)
    for n, frame in enumerate(report.frames):
        pid = _pid(frame.rank)
        start = ends.get((pid, str(frame.compile_id)), last_ts.get(pid, 0.0)) + _GAP_US
        kernels = report.frame_kernels(frame.compile_id)
        events.extend(_kernel_events(frame, kernels, pid, start, 10 * (n + 1), threads))
    events.extend(_estimate_events(report, ends, last_ts, threads))
    events.extend(_names(threads))
    # otherData first: a file inspectc wrote is known by its first bytes (safe to replace)
    return {
        "otherData": {
            "source": "inspectc",
            "torch_version": report.torch_version,
            "ts_base_us": base,
            "unmatched_compile_ends": found.dropped_ends,
            "kernel_layout": "mean per call, end to end (measured aggregates, not call timestamps)",
            "estimate_layout": "Inductor's estimated runtime per op, end to end after the graph's compile",
        },
        "displayTimeUnit": "ms",
        "traceEvents": events,
    }


def _rebase(events: list[dict[str, Any]]) -> float:
    """Times from the first event on, in whole nanoseconds: epoch microseconds as doubles
    lose the nanoseconds a reader converts them to, and a child then ends after its parent.
    Kernel slices are laid out after this, in rebased time."""
    base = min((e["ts"] for e in events), default=0.0)
    for e in events:
        start = round((e["ts"] - base) * 1000)
        if "dur" in e:
            e["dur"] = (round((e["ts"] + e["dur"] - base) * 1000) - start) / 1000
        e["ts"] = start / 1000
    return base


def _pid(rank: int | None) -> int:
    return rank if rank is not None else 0


def _compile_spans(report: Report) -> chromium.Spans:
    """Complete events from the chromium_event records (trace.payloads.chromium pairs them)."""
    return chromium.compile_spans(_chromium_events(report))


def _chromium_events(report: Report) -> Iterator[tuple[int, dict[str, Any]]]:
    for row in report.events(limit=50_000_000):
        if row.name == chromium.EVENT:
            event = chromium.parse(report.event_payload(row.seq))
            if event is not None:
                yield _pid(row.rank), event


def _kernel_events(
    frame: Frame,
    kernels: list[Kernel],
    pid: int,
    start: float,
    base_tid: int,
    threads: dict[tuple[int, int], str],
) -> list[dict[str, Any]]:
    """One thread per timed graph of the frame (threads never hold overlapping slices)."""
    out: list[dict[str, Any]] = []
    by_phase: dict[str | None, list[Kernel]] = {}
    for k in kernels:  # report order is call order within a graph
        if k.time is not None and k.time.calls:
            by_phase.setdefault(kernel_phase(k, frame.graph_kinds), []).append(k)
    for phase, group in by_phase.items():
        tid = base_tid + _PHASE_TIDS[phase]
        threads[(pid, tid)] = f"kernels {frame.compile_id} {phase or 'graph'}"
        at_ns = round(start * 1000)  # whole nanoseconds: the children fit their parent exactly
        durs = [round(k.time.mean_us * 1000) if k.time else 0 for k in group]
        ts = at_ns / 1000
        total = sum(durs) / 1000
        out.append(
            {
                "name": f"{frame.compile_id} {phase or 'graph'}: mean call",
                "cat": "kernels",
                "ph": "X",
                "ts": ts,
                "dur": total,
                "pid": pid,
                "tid": tid,
                "args": {
                    "compile_id": str(frame.compile_id),
                    "phase": phase,
                    "layout": "mean per call, end to end",
                },
            }
        )
        for k, dur_ns in zip(group, durs, strict=True):
            assert k.time is not None
            out.append(
                {
                    "name": k.name,
                    "cat": "kernel",
                    "ph": "X",
                    "ts": at_ns / 1000,
                    "dur": dur_ns / 1000,
                    "pid": pid,
                    "tid": tid,
                    "args": {
                        "compile_id": str(frame.compile_id),
                        "calls": k.time.calls,
                        "total_us": k.time.total_us,
                        "mean_us": k.time.mean_us,
                        "min_us": k.time.min_us,
                        "max_us": k.time.max_us,
                        "share": k.time.share,
                        "fused_nodes": list(k.fused_nodes),
                    },
                }
            )
            at_ns += dur_ns
    return out


def _estimate_events(
    report: Report,
    ends: dict[tuple[int, str], float],
    last_ts: dict[int, float],
    threads: dict[tuple[int, int], str],
) -> list[dict[str, Any]]:
    """One thread per graph with runtime estimates: its ops end to end (estimated ns)."""
    out: list[dict[str, Any]] = []
    graphs = [g for g in report.run_records.collectives if g.estimates]
    for n, graph in enumerate(graphs):
        pid = _pid(graph.rank)
        tid = ESTIMATE_TID + n
        threads[(pid, tid)] = f"estimates {graph.compile_id}"
        at_ns = round((ends.get((pid, str(graph.compile_id)), last_ts.get(pid, 0.0)) + _GAP_US) * 1000)
        for op in graph.estimates or ():
            dur_ns = max(round(op.runtime_ns or 0.0), 1)
            out.append(
                {
                    "name": op.name,
                    "cat": "estimate.collective" if op.type == "collective" else "estimate",
                    "ph": "X",
                    "ts": at_ns / 1000,
                    "dur": dur_ns / 1000,
                    "pid": pid,
                    "tid": tid,
                    "args": {
                        "compile_id": str(graph.compile_id),
                        "rank": graph.rank,
                        "estimate_ns": op.runtime_ns,
                        "op_kind": op.type,
                        "writes": list(op.outputs),
                    },
                }
            )
            at_ns += dur_ns
    return out


def _names(threads: dict[tuple[int, int], str]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for pid in sorted({pid for pid, _ in threads}):
        out.append({"name": "process_name", "ph": "M", "pid": pid, "tid": 0, "args": {"name": f"rank {pid}"}})
    for (pid, tid), label in sorted(threads.items()):
        out.append({"name": "thread_name", "ph": "M", "pid": pid, "tid": tid, "args": {"name": label}})
        out.append(
            {"name": "thread_sort_index", "ph": "M", "pid": pid, "tid": tid, "args": {"sort_index": tid}}
        )
    return out
