"""What runs between compiled regions: the measured cost of a graph break. Stdlib only.

Dynamo's ``Torch-Compiled Region: <compile id>`` range covers one call of a compiled frame from
its entry to its return, and the resume function a graph break made runs inside it (its own
region nests in the caller's). Capture's profiler windows (``capture/gaps.py``) measure, per
pair (the frame that broke, the resume frame that continued it), the time from the end of the
frame's last graph call before the resume to the resume's entry: the op Dynamo could not trace
(or a ``torch._dynamo.disable``\\ d call), the Python around it, the frame switch and the resume
function's guard checks. On CUDA also the device's idle time over that gap. And per top-level
region, its whole call: the share of a call a break costs.

Stored as one ``inspectc_region_gaps`` event per process (JSON of :class:`RegionGaps`; additive:
a report without it reads "not measured").
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from inspectc.model.times import KernelTime

GAPS_EVENT = "inspectc_region_gaps"
EAGER_EVENT = "inspectc_eager_calls"  # calls run eagerly after a frame hit the recompile limit
WAITS_ON_HOST, WAITS_ON_DEVICE = "host", "device"  # what a call waits on over a break's gap


@dataclass(frozen=True, kw_only=True, slots=True)
class RegionGap:
    """The time from frame *before*'s last graph call to the entry of resume frame *after*."""

    before: str  # compile id text of the frame that broke
    after: str  # compile id text of the resume frame it continued in
    host: KernelTime  # µs per occurrence, host (CPU) timeline
    device: KernelTime | None = None  # CUDA: the device's idle time over the same gap


@dataclass(frozen=True, kw_only=True, slots=True)
class RegionCall:
    """One whole call of a top-level compiled frame (its breaks' resumes inside), in µs."""

    compile_id: str
    host: KernelTime


@dataclass(frozen=True, kw_only=True, slots=True)
class RegionGaps:
    """A process's measured gaps and calls (one event per process)."""

    version: int = 1
    time_base: str = "cpu"  # cpu | cuda
    gaps: tuple[RegionGap, ...] = ()
    calls: tuple[RegionCall, ...] = ()
    rank: int | None = None  # set by the reader from the event's rank


@dataclass(frozen=True, kw_only=True, slots=True)
class EagerFrame:
    """A frame refused at the recompile limit, and the calls of its code that then ran eagerly
    (``capture/eager_calls.py``): *calls* counted from the refusal (the refused call included)
    to the run's end; None: not recorded (*why_not* says why)."""

    compile_id: str  # the refused compile id ("0/8")
    function: str | None = None
    filename: str | None = None
    line: int | None = None  # the code's first line
    calls: int | None = None
    time: KernelTime | None = None  # µs per eager call, where its returns were seen
    why_not: str | None = None
    rank: int | None = None  # set by the reader from the event's rank


def eager_record(frames: list[EagerFrame]) -> tuple[dict[str, Any], str]:
    """The ``inspectc_eager_calls`` record (metadata, payload) of a process's refused frames."""
    listed = [
        {
            "compile_id": f.compile_id,
            "function": f.function,
            "filename": f.filename,
            "line": f.line,
            "calls": f.calls,
            "time": None if f.time is None else _time_dict(f.time),
            "why_not": f.why_not,
        }
        for f in frames
    ]
    return {EAGER_EVENT: {"version": 1}}, json.dumps({"version": 1, "frames": listed})


def eager_from_record(data: Any, rank: int | None = None) -> list[EagerFrame]:
    """A ``inspectc_eager_calls`` record's JSON (a stranger's: what does not read is left out)."""
    listed = data.get("frames") if isinstance(data, dict) else None
    out = []
    for f in listed[:4096] if isinstance(listed, list) else []:
        if not isinstance(f, dict) or not isinstance(f.get("compile_id"), str):
            continue
        calls, line = f.get("calls"), f.get("line")
        out.append(
            EagerFrame(
                compile_id=f["compile_id"][:200],
                function=f["function"][:200] if isinstance(f.get("function"), str) else None,
                filename=f["filename"][:4096] if isinstance(f.get("filename"), str) else None,
                line=line if isinstance(line, int) and not isinstance(line, bool) else None,
                calls=calls
                if isinstance(calls, int) and not isinstance(calls, bool) and calls >= 0
                else None,
                time=_time(f.get("time")),
                why_not=f["why_not"][:500] if isinstance(f.get("why_not"), str) else None,
                rank=rank,
            )
        )
    return out


def _time_dict(t: KernelTime) -> dict[str, Any]:
    return {
        "calls": t.calls,
        "total_us": t.total_us,
        "mean_us": t.mean_us,
        "min_us": t.min_us,
        "max_us": t.max_us,
        "median_us": t.median_us,
        "p90_us": t.p90_us,
        "cv": t.cv,
        "samples": [round(v, 3) for v in t.samples],
    }


def kernel_time(summary: dict[str, Any], samples: list[float]) -> KernelTime:
    """A :class:`KernelTime` from :func:`inspectc.model.stats.summary` and its samples."""
    return KernelTime(
        calls=int(summary.get("calls") or 0),
        total_us=float(summary.get("total_us") or 0.0),
        mean_us=float(summary.get("mean_us") or 0.0),
        min_us=float(summary.get("min_us") or 0.0),
        max_us=float(summary.get("max_us") or 0.0),
        median_us=summary.get("median_us"),
        p90_us=summary.get("p90_us"),
        cv=summary.get("cv"),
        samples=tuple(samples),
    )


def _time(value: Any) -> KernelTime | None:
    """A summary dict of a stranger's record as a :class:`KernelTime` (None: it does not read)."""
    if not isinstance(value, dict):
        return None
    samples = value.get("samples")
    try:
        kept = [float(x) for x in samples if isinstance(x, (int, float))] if isinstance(samples, list) else []
        found = kernel_time(value, kept)
        numbers = (found.median_us, found.p90_us, found.cv)
        if not all(n is None or isinstance(n, (int, float)) for n in numbers) or found.calls < 0:
            return None
        return found
    except (TypeError, ValueError, OverflowError):
        return None


def from_record(data: Any, rank: int | None = None) -> RegionGaps | None:
    """A ``inspectc_region_gaps`` record's JSON as :class:`RegionGaps` (entries that do not read
    are left out; None when it is no such record)."""
    if not isinstance(data, dict) or not isinstance(data.get("gaps"), list):
        return None
    gaps = []
    for g in data["gaps"]:
        if (
            not isinstance(g, dict)
            or not isinstance(g.get("before"), str)
            or not isinstance(g.get("after"), str)
        ):
            continue
        host = _time(g.get("host"))
        if host is not None:
            gaps.append(
                RegionGap(before=g["before"], after=g["after"], host=host, device=_time(g.get("device")))
            )
    calls = []
    listed = data.get("calls")
    for c in listed if isinstance(listed, list) else []:
        host = _time(c.get("host")) if isinstance(c, dict) else None
        if host is not None and isinstance(c.get("compile_id"), str):
            calls.append(RegionCall(compile_id=c["compile_id"], host=host))
    base = data.get("time_base")
    return RegionGaps(
        time_base=base if base in ("cpu", "cuda") else "cpu", gaps=tuple(gaps), calls=tuple(calls), rank=rank
    )
