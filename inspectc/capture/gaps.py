"""What runs between compiled regions, read off the kernel timer's profiler windows.

A window reader (:class:`~inspectc.capture.timing.WindowReader`): each closed window's raw
Kineto events, after the program ran. Per thread, ranges nest by time; a
``Torch-Compiled Region: <cid>`` range is one call of a compiled frame, and the resume frame a
graph break made runs inside it as a nested region. For each such pair (the frame, a region
directly inside it) the gap is the resume's start less the end of the frame's last graph call
before it (the frame's start when it ran none): a graph break's eager time, measured. On CUDA,
the device's idle time over the same gap (the first kernel the resume launched, less the last
one the frame launched before). A top-level region's whole duration is its call. No torch.

Emits one ``inspectc_region_gaps`` record (``model/costs.py``) when the timer stops.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from inspectc.capture import torch_api
from inspectc.capture.kineto import (
    _DEVICE_ACTIVITIES,
    _RUNTIME_ACTIVITIES,
    GRAPH_PREFIX,
    REGION_PREFIX,
    _Ev,
    _nest,
)
from inspectc.model.stats import Samples
from inspectc.trace import own_records

Emit = Callable[[dict[str, Any], str], None]


class RegionGapReader:
    """Gaps between a compiled frame's graph calls and its resume frames, per window."""

    def __init__(self) -> None:
        self.gaps: dict[tuple[str, str], Samples] = {}
        self.device_gaps: dict[tuple[str, str], Samples] = {}
        self.calls: dict[str, Samples] = {}
        self.device = False

    def ingest(self, raw: Sequence[Any]) -> None:
        cpu: dict[int, list[_Ev]] = {}
        device: list[_Ev] = []
        for k in raw:
            activity = torch_api.kineto_activity(k)
            ev = _Ev(
                k.name(), k.start_ns(), k.end_ns(), activity, k.correlation_id(), k.linked_correlation_id()
            )
            if activity in _DEVICE_ACTIVITIES:
                device.append(ev)
            elif str(k.device_type()).endswith("CPU") and activity != "gpu_user_annotation":
                cpu.setdefault(k.start_thread_id(), []).append(ev)
        launched = _device_spans(cpu, device)
        self.device = self.device or bool(launched)
        for events in cpu.values():
            _nest(events)
            self._thread(events, launched)

    def _thread(self, events: list[_Ev], launched: dict[int, tuple[int, int]]) -> None:
        regions = [e for e in events if e.name.startswith(REGION_PREFIX)]
        under = _device_under(events, launched) if launched else {}
        inner: dict[int, list[_Ev]] = {}  # region -> its direct child regions and graph calls
        for e in events:
            if not (e.name.startswith(REGION_PREFIX) or e.name.startswith(GRAPH_PREFIX)):
                continue
            owner = _enclosing_region(e)
            if owner is not None:
                inner.setdefault(id(owner), []).append(e)
            elif e.name.startswith(REGION_PREFIX):
                self.calls.setdefault(_cid(e), Samples()).add((e.end - e.start) / 1000.0)
        for region in regions:
            parts = sorted(inner.get(id(region), []), key=lambda e: e.start)
            calls = [p for p in parts if p.name.startswith(GRAPH_PREFIX)]
            for child in (p for p in parts if p.name.startswith(REGION_PREFIX)):
                before = [c for c in calls if c.end <= child.start]
                since = max((c.end for c in before), default=region.start)
                key = (_cid(region), _cid(child))
                self.gaps.setdefault(key, Samples()).add((child.start - since) / 1000.0)
                idle = _device_idle(before, child, under)
                if idle is not None:
                    self.device_gaps.setdefault(key, Samples()).add(idle / 1000.0)

    def record(self) -> tuple[dict[str, Any], str] | None:
        """The ``inspectc_region_gaps`` record (metadata, payload); None when nothing was seen."""
        if not self.gaps and not self.calls:
            return None
        idle = self.device_gaps
        return own_records.region_gaps(
            device=self.device,
            gaps=(
                (
                    before,
                    after,
                    samples.as_dict(),
                    idle[(before, after)].as_dict() if (before, after) in idle else None,
                )
                for (before, after), samples in self.gaps.items()
            ),
            calls=((cid, samples.as_dict()) for cid, samples in self.calls.items()),
        )


def _cid(region: _Ev) -> str:
    return region.name[len(REGION_PREFIX) :].strip()


def _enclosing_region(e: _Ev) -> _Ev | None:
    p = e.parent
    while p is not None and not p.name.startswith(REGION_PREFIX):
        p = p.parent
    return p


def _device_spans(cpu: dict[int, list[_Ev]], device: list[_Ev]) -> dict[int, tuple[int, int]]:
    """Runtime launch event (id) -> (first start, last end) of the device work it launched."""
    if not device:
        return {}
    runtime = {e.corr: e for evs in cpu.values() for e in evs if e.activity in _RUNTIME_ACTIVITIES}
    spans: dict[int, tuple[int, int]] = {}
    for d in device:
        launcher = runtime.get(d.corr)
        if launcher is None:
            continue
        start, end = spans.get(id(launcher), (d.start, d.end))
        spans[id(launcher)] = (min(start, d.start), max(end, d.end))
    return spans


def _device_under(events: list[_Ev], launched: dict[int, tuple[int, int]]) -> dict[int, tuple[int, int]]:
    """Event (id) -> (first start, last end) of the device work launched anywhere under it."""
    out: dict[int, tuple[int, int]] = {}
    for e in events:
        span = launched.get(id(e))
        node: _Ev | None = e
        while span is not None and node is not None:
            start, end = out.get(id(node), span)
            out[id(node)] = (min(start, span[0]), max(end, span[1]))
            node = node.parent
    return out


def _device_idle(before: list[_Ev], child: _Ev, under: dict[int, tuple[int, int]]) -> int | None:
    """ns the device sat idle between the frame's last graph call before *child* and the first
    device work under *child* (None: not CUDA, or either side launched nothing)."""
    if not before or id(before[-1]) not in under or id(child) not in under:
        return None
    return max(under[id(child)][0] - under[id(before[-1])][1], 0)
