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

from dataclasses import dataclass
from typing import Any

from inspectc.model.times import KernelTime

GAPS_EVENT = "inspectc_region_gaps"
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
