"""Measured kernel timings for compiled frames, taken with torch.profiler in short windows.

Capture-side: torch is reached only through :mod:`inspectc.capture.torch_api`. The profiler is never on for the whole program: it is armed when
a compile ends and switched on at the next entry into a compiled frame (Dynamo's guard-complete
hook, chained with any hook already set), and switched off after enough frame entries for every
pending graph to reach SKIP + COUNT calls; it is paused while Dynamo or Inductor compile. Each
window's raw Kineto events are attributed to FX graphs by nesting:

    Torch-Compiled Region: <compile id>           (forward / inference, CPU range)
      ## Call CompiledFxGraph <fx graph key> ##   (one call of one FX graph)
        graph_<aot id>_cpp_fused_..._N            (cpp kernel, needs cpp.enable_kernel_profile)
        triton_poi_fused_...                      (Triton launch range; device time linked)
        aten::addmm / aten::mm / ...              (extern kernels)
    CompiledFunctionBackward                      (backward: no compile-id range, key only)
      ## Call CompiledFxGraph <fx graph key> ##

Backward graphs are tied to a compile id through the FX graph key that capture passes to
`on_compile_event` (from `fx_graph_cache_{miss,hit}` payloads). Results are emitted as one
synthetic event per compile id: metadata ``{"inspectc_kernel_times": {...}}``, JSON payload.
"""

from __future__ import annotations

import json
import math
import re
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from inspectc.capture import torch_api
from inspectc.capture.torch_api import Missing

SCHEMA_VERSION = 1
REGION_PREFIX = "Torch-Compiled Region: "
GRAPH_PREFIX = "## Call CompiledFxGraph "
BACKWARD_RANGE = "CompiledFunctionBackward"
_CPP_PROFILE_NAME = re.compile(r"^graph_(-?\d+)_(cpp_.*)$")
_COMPILE_SPANS = frozenset({"dynamo", "entire_backward_compile"})
_DEVICE_ACTIVITIES = frozenset({"kernel", "gpu_memcpy", "gpu_memset"})
_RUNTIME_ACTIVITIES = frozenset({"cuda_runtime", "cuda_driver", "privateuse1_runtime"})

Emit = Callable[[dict[str, Any], str], None]


@dataclass(slots=True)
class _Stats:
    """Running statistics of durations in microseconds."""

    values: list[float] = field(default_factory=list)

    def add(self, us: float) -> None:
        self.values.append(us)

    def as_dict(self) -> dict[str, float | int]:
        v = self.values
        if not v:
            return {"calls": 0, "total_us": 0.0, "mean_us": 0.0, "min_us": 0.0, "max_us": 0.0}
        total = math.fsum(v)
        return {
            "calls": len(v),
            "total_us": round(total, 3),
            "mean_us": round(total / len(v), 3),
            "min_us": round(min(v), 3),
            "max_us": round(max(v), 3),
        }


@dataclass(slots=True, eq=False)
class _Graph:
    """What was measured for one FX graph (identified by cache key, else by region)."""

    ident: str
    fx_graph_key: str | None
    compile_id: str | None = None
    phase: str = "forward"
    seen: int = 0  # calls observed while the profiler was on
    device: bool = False  # kernel times are device (CUDA) times
    region: _Stats = field(default_factory=_Stats)
    graph: _Stats = field(default_factory=_Stats)
    kernels_sum: _Stats = field(default_factory=_Stats)
    kernels: dict[tuple[str, int], tuple[str, _Stats]] = field(default_factory=dict)

    @property
    def measured(self) -> int:
        return len(self.graph.values)


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


def builder_name(profiler_name: str, ordinal: int, occurrences: int) -> str:
    """Best-effort name of a kernel as inspectc.trace.payloads.output_code splits it from the output code.

    cpp kernels: the definition name. Extern ops: ``extern_kernels.<op>`` with the builder's
    1-based ``:<k>`` suffix when the op is called more than once per graph call (the profiler
    sees ``aten::addmm``; ``extern_kernels.addmm`` runs it). Provenance handles differ from that
    suffix (they number every call site of the graph): match them by order, not by number.
    """
    kind, name = kernel_kind(profiler_name)
    if kind == "extern" and name.startswith("aten::"):
        name = "extern_kernels." + name[len("aten::") :]
        if occurrences > 1:
            name = f"{name}:{ordinal + 1}"
    return name


def _nest(events: Iterable[_Ev]) -> None:
    """Set `parent` of CPU events of one thread by time containment."""
    stack: list[_Ev] = []
    for ev in sorted(events, key=lambda e: (e.start, -e.end)):
        while stack and stack[-1].end < ev.end:
            stack.pop()
        ev.parent = stack[-1] if stack else None
        stack.append(ev)


class KernelTimer:
    """Measure per-kernel and per-graph times of compiled frames in profiler windows.

    skip: calls of each graph that are not measured, counting its compiling call (which is
        never profiled: the profiler starts at the next compiled-frame entry after a compile).
    count: calls of each graph to measure after that.
    emit: `emit(metadata, payload)` injects a synthetic event into capture's stream.
    """

    def __init__(
        self,
        skip: int,
        count: int,
        emit: Emit,
        *,
        enable_cpp_kernel_profile: bool = True,
    ) -> None:
        if skip < 0 or count < 1:
            raise ValueError(f"bad profile window {skip}:{count}")
        self.skip, self.count, self._emit = skip, count, emit
        self.enable_cpp_kernel_profile = enable_cpp_kernel_profile
        self.graphs: dict[str, _Graph] = {}
        self.errors: list[str] = []
        self._key_to_compile: dict[str, str] = {}
        self._frames: set[str] = set()
        self._armed = False
        self._started = False
        self._prof: Any = None
        self._ticks = 0
        self._target = 0
        self._pending_keys: dict[str, list[str]] = {}
        self._results: list[Any] = []  # one torch profiler result per closed window
        self._prev_hook: Any = None
        self._hook = self._on_frame_entry  # one bound-method object, to recognise it later
        self._thread = threading.get_ident()
        self._hook_installed = False
        self._restore_kernel_profile: torch_api.Restore | None = None
        self.windows = 0  # profiler sessions run, for tests and benchmarks
        self.own_seconds = 0.0  # time spent starting, stopping and reading the profiler

    # -- capture-facing API --------------------------------------------------------------
    def start(self) -> None:
        """Install the frame-entry tick; must run before the first compile."""
        if self._started:
            return
        self._started = True
        if self.enable_cpp_kernel_profile:
            restore = torch_api.enable_cpp_kernel_profile()
            if isinstance(restore, Missing):
                self.errors.append(f"cpp kernels not named: {restore.why}")
            else:
                self._restore_kernel_profile = restore
        self._thread = threading.get_ident()
        previous = torch_api.swap_guard_complete_hook(self._hook)
        if isinstance(previous, Missing):
            self.errors.append(f"no frame-entry tick: {previous.why}")
            return
        self._prev_hook = previous
        self._hook_installed = True

    def on_compile_start(self) -> None:
        """A Dynamo frame compile or a lazy backward compile begins: never profile it."""
        if self._prof is not None:
            self._close_window()
        self._armed = False

    def on_compile_event(self, compile_id: str, fx_graph_keys: Sequence[str] = ()) -> None:
        """A frame (or its backward) finished compiling; arm a window for its graphs."""
        self._frames.add(compile_id)
        for key in fx_graph_keys:
            self._key_to_compile[key] = compile_id
            graph = self.graphs.get(key)
            if graph is not None:
                graph.compile_id = compile_id
        self._armed = True

    def observe(self, metadata: dict[str, Any], payload: str | None) -> None:
        """Feed one `torch.__trace` record; drives the compile-start/compile-end calls.

        Uses chromium events "dynamo" (frame compile) and "entire_backward_compile" (lazy
        backward compile), B = begin, E = end, and the "key" of fx_graph_cache_{miss,hit}.
        """
        artifact = metadata.get("artifact")
        if isinstance(artifact, dict) and str(artifact.get("name", "")).startswith(
            ("fx_graph_cache_miss", "fx_graph_cache_hit")
        ):
            try:
                key = json.loads(payload or "{}").get("key")
            except (ValueError, AttributeError):
                key = None
            cid = f"{metadata.get('frame_id')}/{metadata.get('frame_compile_id')}"
            if isinstance(key, str):
                self._pending_keys.setdefault(cid, []).append(key)
            return
        if "chromium_event" not in metadata or not payload:
            return
        if '"dynamo"' not in payload and "entire_backward_compile" not in payload:
            return  # hundreds of chromium events per compile: skip the JSON parse
        try:
            event = json.loads(payload)
        except ValueError:
            return
        if not isinstance(event, dict) or event.get("name") not in _COMPILE_SPANS:
            return
        args = event.get("args")
        compile_id = args.get("compile_id") if isinstance(args, dict) else None
        if event.get("ph") == "B":
            self.on_compile_start()
        elif event.get("ph") == "E" and isinstance(compile_id, str):
            self.on_compile_event(compile_id, self._pending_keys.pop(compile_id, ()))

    def step(self) -> None:
        """Optional explicit tick (e.g. an optimizer step hook) for loops without frame entries."""
        self._on_tick()

    def stop(self) -> None:
        """Close any window, restore settings, emit one event per compile id."""
        if self._prof is not None:
            if threading.get_ident() == self._thread:
                self._close_window()
            else:  # a profiler can only be stopped by the thread that started it
                self.errors.append("stop() from another thread: the open window was dropped")
                self._prof = None
        self._armed = False
        if self._hook_installed:
            current = torch_api.swap_guard_complete_hook(self._prev_hook)
            if current is not self._hook:  # someone chained after us: leave theirs in place
                torch_api.swap_guard_complete_hook(None if isinstance(current, Missing) else current)
            self._hook_installed = False
            self._prev_hook = None
        for result in self._results:
            self._ingest(result.events())
        self._results.clear()
        if self._restore_kernel_profile is not None:
            self._restore_kernel_profile()
            self._restore_kernel_profile = None
        for compile_id, payload in self.results().items():
            frame_id, _, frame_compile_id = compile_id.partition("/")
            meta: dict[str, Any] = {"inspectc_kernel_times": {"compile_id": compile_id}}
            if frame_id.isdigit() and frame_compile_id.isdigit():
                meta["frame_id"], meta["frame_compile_id"] = int(frame_id), int(frame_compile_id)
            self._emit(meta, json.dumps(payload))

    def abandon(self) -> None:
        """In a forked child: take the frame-entry tick out, emit nothing, profile nothing."""
        self._armed = False
        self._prof = None  # the parent's window: the child's copy is never stopped or read
        self._results.clear()
        if self._hook_installed:
            torch_api.swap_guard_complete_hook(self._prev_hook)
            self._hook_installed = False
            self._prev_hook = None

    # -- ticks and windows ---------------------------------------------------------------
    def _on_frame_entry(self, cache_hit: bool) -> bool:
        result = self._prev_hook(cache_hit) if self._prev_hook is not None else cache_hit
        if threading.get_ident() != self._thread:
            return result  # the profiler must start and stop on one thread
        try:
            self._on_tick()
        except Exception as e:  # noqa: BLE001 - the user's program must go on; recorded in errors
            self.errors.append(f"{type(e).__name__}: {e}")
            self._armed = False
            self._prof = None
        return result

    def _on_tick(self) -> None:
        if self._prof is not None:
            self._ticks += 1
            if self._ticks >= self._target:
                self._close_window()
        if self._prof is None and self._armed:
            self._open_window()

    def _open_window(self) -> None:
        if torch_api.profiler_running():
            self.errors.append("a profiler was already running: window skipped")
            self._armed = False
            return
        t0 = time.perf_counter()
        frames = max(1, len(self._frames))
        # one tick per frame entry; each frame usually runs once per step
        self._target = (max(self.skip - 1, 0) + self.count) * frames
        self._ticks = 0
        self.windows += 1
        self._prof = torch_api.start_profiler()
        self.own_seconds += time.perf_counter() - t0

    def _close_window(self) -> None:
        t0 = time.perf_counter()
        prof, self._prof = self._prof, None
        results = torch_api.stop_profiler(prof)
        # reading the events costs ~1 us each: deferred to stop(), out of the user's loop
        if isinstance(results, Missing):
            self.errors.append(f"window dropped: {results.why}")
        else:
            self._results.append(results)
        self._armed = False
        self.own_seconds += time.perf_counter() - t0

    # -- attribution ---------------------------------------------------------------------
    def _ingest(self, raw: Sequence[Any]) -> None:
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
        self._link_device_time(cpu, device)
        calls = [e for evs in cpu.values() for e in evs if e.name.startswith(GRAPH_PREFIX)]
        children: dict[int, list[_Ev]] = {}
        for evs in cpu.values():
            for e in evs:
                if e.parent is not None and e.parent.name.startswith(GRAPH_PREFIX):
                    children.setdefault(id(e.parent), []).append(e)
        for call in sorted(calls, key=lambda e: e.start):
            self._ingest_call(call, sorted(children.get(id(call), []), key=lambda e: e.start))

    def _link_device_time(self, cpu: dict[int, list[_Ev]], device: list[_Ev]) -> None:
        if not device:
            return
        runtime = {e.corr: e for evs in cpu.values() for e in evs if e.activity in _RUNTIME_ACTIVITIES}
        ops = {e.corr: e for evs in cpu.values() for e in evs if e.activity not in _RUNTIME_ACTIVITIES}
        for d in device:
            node = runtime.get(d.corr) or ops.get(d.linked)
            while node is not None:  # book the device time on the launcher and its ancestors
                node.device_ns += d.end - d.start
                node = node.parent

    def _ingest_call(self, call: _Ev, kids: list[_Ev]) -> None:
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
            cid = region_cid or (self._key_to_compile.get(fx_key) if fx_key else None)
            graph = self.graphs[ident] = _Graph(ident, fx_key, cid, phase)
        elif graph.compile_id is None and region_cid is not None:
            graph.compile_id = region_cid
        if graph.fx_graph_key and region_cid:
            self._key_to_compile.setdefault(graph.fx_graph_key, region_cid)
        graph.seen += 1
        if graph.seen <= max(self.skip - 1, 0) or graph.measured >= self.count:
            return
        use_device = any(k.device_ns for k in kids)
        graph.device = graph.device or use_device
        graph.graph.add((call.end - call.start) / 1e3)
        if region is not None:
            graph.region.add((region.end - region.start) / 1e3)
        ordinals: dict[str, int] = {}
        total = 0.0
        for kid in kids:
            kind, name = kernel_kind(kid.name)
            n = ordinals[kid.name] = ordinals.get(kid.name, -1) + 1
            if use_device and not kid.device_ns:
                continue  # host-only op inside a device graph: no kernel of its own
            us = (kid.device_ns if use_device else kid.end - kid.start) / 1e3
            total += us
            entry = graph.kernels.setdefault((kid.name, n), (kind, _Stats()))
            entry[1].add(us)
        graph.kernels_sum.add(total)

    # -- results -------------------------------------------------------------------------
    def results(self) -> dict[str, dict[str, Any]]:
        """Per compile id: the JSON-ready payload of `inspectc_kernel_times`."""
        out: dict[str, dict[str, Any]] = {}
        for graph in self.graphs.values():
            cid = graph.compile_id or (
                self._key_to_compile.get(graph.fx_graph_key) if graph.fx_graph_key else None
            )
            cid = cid or "unknown"
            payload = out.setdefault(
                cid,
                {
                    "version": SCHEMA_VERSION,
                    "window": {"skip": self.skip, "count": self.count},
                    "errors": list(self.errors),
                    "graphs": [],
                    "kernels": {},
                },
            )
            kernels = []
            occurrences: dict[str, int] = {}
            for profiler_name, _ in graph.kernels:
                occurrences[profiler_name] = occurrences.get(profiler_name, 0) + 1
            for (profiler_name, ordinal), (kind, stats) in graph.kernels.items():
                name = builder_name(profiler_name, ordinal, occurrences[profiler_name])
                kernels.append(
                    {
                        "name": name,
                        "profiler_name": profiler_name,
                        "ordinal": ordinal,
                        "kind": kind,
                        **stats.as_dict(),
                    }
                )
                # flat view for the builder (forward wins a name clash with its backward)
                payload["kernels"].setdefault(name, stats.as_dict())
            if graph.phase == "forward" and graph.region.values:
                payload["region"] = graph.region.as_dict()
            payload["graphs"].append(
                {
                    "fx_graph_key": graph.fx_graph_key,
                    "phase": graph.phase,
                    "calls_seen": graph.seen,
                    "time_base": "device" if graph.device else "cpu",
                    "region": graph.region.as_dict(),
                    "graph": graph.graph.as_dict(),
                    "kernels_total": graph.kernels_sum.as_dict(),
                    "kernels": kernels,
                }
            )
        return out
