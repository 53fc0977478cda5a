"""Raw Kineto events of one profiler window -> per-graph, per-kernel samples.

Events are attributed to FX graphs by nesting (see :mod:`inspectc.capture.timing`). Per graph
call, every direct child range is one launch; launches of one generated kernel (Triton, C++)
in a call are summed into one sample with their count, and the n-th launch of an extern op
stays the n-th (it is the n-th call site in the output code, joined by
:mod:`inspectc.trace.kernel_names`). On CUDA a child's time is the device time of what it
launched; device kernels replayed from a CUDA graph (``cudaGraphLaunch``) are booked on the
graph call they ran under, by their own names, and their sum is the call's replay time.
No torch import: the events are read through their methods.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from inspectc.capture import torch_api
from inspectc.model.stats import Samples
from inspectc.trace import own_records

REGION_PREFIX = "Torch-Compiled Region: "
GRAPH_PREFIX = "## Call CompiledFxGraph "
BACKWARD_RANGE = "CompiledFunctionBackward"
_CPP_PROFILE_NAME = re.compile(r"^graph_(-?\d+)_(cpp_.*)$")
_DEVICE_ACTIVITIES = frozenset({"kernel", "gpu_memcpy", "gpu_memset"})
_RUNTIME_ACTIVITIES = frozenset({"cuda_runtime", "cuda_driver", "privateuse1_runtime"})


def _summary(s: Samples) -> dict[str, Any]:
    return s.as_dict(with_samples=False)


@dataclass(slots=True, eq=False)
class KernelSamples:
    kind: str
    samples: Samples = field(default_factory=Samples)
    launches: int = 0
    replayed: bool = False  # measured inside a CUDA graph replay


@dataclass(slots=True, eq=False)
class GraphTimes:
    """What was measured for one FX graph (identified by cache key, else by region)."""

    ident: str
    fx_graph_key: str | None
    compile_id: str | None = None
    phase: str = "forward"
    seen: int = 0  # calls observed while the profiler was on
    device: bool = False  # kernel times are device (CUDA) times
    region: Samples = field(default_factory=Samples)
    graph: Samples = field(default_factory=Samples)
    kernels_sum: Samples = field(default_factory=Samples)
    replay: Samples = field(default_factory=Samples)  # CUDA-graph replay device time per call
    kernels: dict[tuple[str, int], KernelSamples] = field(default_factory=dict)

    @property
    def measured(self) -> int:
        return self.graph.n

    def as_dict(self) -> dict[str, Any]:
        kernels = [
            own_records.kernel_times_entry(
                profiler_name=profiler_name,
                ordinal=ordinal,
                kind=ks.kind,
                name=kernel_kind(profiler_name)[1],
                launches=ks.launches,
                replayed=ks.replayed,
                samples=ks.samples.as_dict(),
            )
            for (profiler_name, ordinal), ks in self.kernels.items()
        ]
        return own_records.graph_times(
            fx_graph_key=self.fx_graph_key,
            phase=self.phase,
            calls_seen=self.seen,
            device=self.device,
            region=_summary(self.region),
            graph=_summary(self.graph),
            kernels_total=_summary(self.kernels_sum),
            replay=_summary(self.replay) if self.replay.n else None,
            kernels=kernels,
        )


@dataclass(slots=True, eq=False)
class _Ev:
    name: str
    start: int
    end: int
    activity: str
    corr: int
    linked: int
    parent: _Ev | None = None
    device_ns: int = 0
    replay_ns: int = 0  # the part of device_ns replayed from CUDA graphs
    replayed: dict[str, list[int]] | None = None  # graph calls: device kernels of CUDA graphs


def kernel_kind(profiler_name: str) -> tuple[str, str]:
    """Return (kind, kernel name) for a direct child range of a graph call."""
    m = _CPP_PROFILE_NAME.match(profiler_name)
    if m:
        return "cpp", m.group(2)
    if profiler_name.startswith("triton_"):
        return "triton", profiler_name
    if profiler_name.startswith("cpp_"):
        return "cpp", profiler_name
    if "::" in profiler_name:
        return "extern", profiler_name
    return "other", profiler_name


def _nest(events: Iterable[_Ev]) -> None:
    """Set `parent` of CPU events of one thread by time containment."""
    stack: list[_Ev] = []
    for ev in sorted(events, key=lambda e: (e.start, -e.end)):
        while stack and stack[-1].end < ev.end:
            stack.pop()
        ev.parent = stack[-1] if stack else None
        stack.append(ev)


class Attributor:
    """Accumulates the windows' events into :class:`GraphTimes`, skipping and capping calls."""

    def __init__(self, skip: int, count: int, key_to_compile: dict[str, str]) -> None:
        self.skip, self.count = skip, count
        self.graphs: dict[str, GraphTimes] = {}
        self.key_to_compile = key_to_compile

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
        for events in cpu.values():
            _nest(events)
        _link_device_time(cpu, device)
        calls = [e for evs in cpu.values() for e in evs if e.name.startswith(GRAPH_PREFIX)]
        children: dict[int, list[_Ev]] = {}
        for evs in cpu.values():
            for e in evs:
                if e.parent is not None and e.parent.name.startswith(GRAPH_PREFIX):
                    children.setdefault(id(e.parent), []).append(e)
        for call in sorted(calls, key=lambda e: e.start):
            self._call(call, sorted(children.get(id(call), []), key=lambda e: e.start))

    def _graph_of(self, call: _Ev, kids: list[_Ev]) -> tuple[GraphTimes, _Ev | None]:
        key = call.name[len(GRAPH_PREFIX) :].rstrip("# ").strip()
        region, phase = None, "forward"
        p = call.parent
        while p is not None:
            if p.name.startswith(REGION_PREFIX):
                region = p
                break
            if p.name == BACKWARD_RANGE:
                region, phase = p, "backward"
                break
            p = p.parent
        region_cid = region.name[len(REGION_PREFIX) :] if region and phase == "forward" else None
        ident = key if key and key != "None" else f"{phase}:{region_cid}"
        if ident == "backward:None":
            # No FX graph key (caches off): backward graphs apart by the kernels they run;
            # the builder ties them to their frame by those names.
            ident += ":" + ",".join(sorted({kid.name for kid in kids}))
        graph = self.graphs.get(ident)
        if graph is None:
            fx_key = key if key and key != "None" else None
            cid = region_cid or (self.key_to_compile.get(fx_key) if fx_key else None)
            graph = self.graphs[ident] = GraphTimes(ident, fx_key, cid, phase)
        elif graph.compile_id is None and region_cid is not None:
            graph.compile_id = region_cid
        if graph.fx_graph_key and region_cid:
            self.key_to_compile.setdefault(graph.fx_graph_key, region_cid)
        return graph, region

    def _call(self, call: _Ev, kids: list[_Ev]) -> None:
        graph, region = self._graph_of(call, kids)
        graph.seen += 1
        if graph.seen <= max(self.skip - 1, 0) or graph.measured >= self.count:
            return
        replayed = call.replayed or {}
        use_device = bool(replayed) or any(k.device_ns for k in kids)
        graph.device = graph.device or use_device
        graph.graph.add((call.end - call.start) / 1e3)
        if region is not None:
            graph.region.add((region.end - region.start) / 1e3)
        per_call: dict[tuple[str, int], tuple[str, float, int, bool]] = {}
        extern_seen: dict[str, int] = {}
        total = 0.0
        for kid in kids:
            own_ns = kid.device_ns - kid.replay_ns  # replayed kernels are booked by name below
            if use_device and own_ns <= 0:
                continue  # host-only op inside a device graph: no kernel of its own
            kind, _ = kernel_kind(kid.name)
            if kind == "extern":  # the n-th launch of an op is its n-th call site
                n = extern_seen[kid.name] = extern_seen.get(kid.name, -1) + 1
                key = (kid.name, n)
            else:  # a generated kernel launched several times in a call: one sample, summed
                key = (kid.name, 0)
            us = (own_ns if use_device else kid.end - kid.start) / 1e3
            total += us
            _, us0, launches, _ = per_call.get(key, (kind, 0.0, 0, False))
            per_call[key] = (kind, us0 + us, launches + 1, False)
        replay_us = 0.0
        for name, durations in replayed.items():
            us = sum(durations) / 1e3
            replay_us += us
            key = (name, 0)
            kind, us0, launches, _ = per_call.get(key, (kernel_kind(name)[0], 0.0, 0, True))
            per_call[key] = (kind, us0 + us, launches + len(durations), True)
        total += replay_us
        if replayed:
            graph.replay.add(replay_us)
        for key, (kind, us, launches, in_replay) in per_call.items():
            ks = graph.kernels.get(key)
            if ks is None:
                ks = graph.kernels[key] = KernelSamples(kind, replayed=in_replay)
            ks.samples.add(us)
            ks.launches += launches
        graph.kernels_sum.add(total)


def _link_device_time(cpu: dict[int, list[_Ev]], device: list[_Ev]) -> None:
    if not device:
        return
    runtime = {e.corr: e for evs in cpu.values() for e in evs if e.activity in _RUNTIME_ACTIVITIES}
    ops = {e.corr: e for evs in cpu.values() for e in evs if e.activity not in _RUNTIME_ACTIVITIES}
    for d in device:
        launcher = runtime.get(d.corr)
        node = launcher or ops.get(d.linked)
        replay = launcher is not None and "GraphLaunch" in launcher.name
        if replay and launcher is not None:
            call = launcher.parent
            while call is not None and not call.name.startswith(GRAPH_PREFIX):
                call = call.parent
            if call is not None:
                if call.replayed is None:
                    call.replayed = {}
                call.replayed.setdefault(d.name, []).append(d.end - d.start)
        while node is not None:  # book the device time on the launcher and its ancestors
            node.device_ns += d.end - d.start
            if replay:
                node.replay_ns += d.end - d.start
            node = node.parent
