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

import os
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from inspectc.capture import exit_path, torch_api
from inspectc.capture.gaps import RegionGapReader
from inspectc.capture.kineto import Attributor, GraphTimes
from inspectc.capture.quiet import quietly
from inspectc.capture.torch_api import Missing
from inspectc.trace import live, own_records

SCHEMA_VERSION = own_records.KERNEL_TIMES_VERSION
OTHER_THREAD = (
    "compiled code also ran on another thread: only calls on the thread that started capture are"
    " timed (a frame called only there has no times)"
)

Emit = Callable[[dict[str, Any], str], None]


class WindowReader(Protocol):
    """Reads the raw Kineto events of each closed profiler window, at :meth:`KernelTimer.stop`
    (after the program ran: nothing of it runs in the user's loop). The kernel times'
    :class:`~inspectc.capture.kineto.Attributor` is one, what runs between compiled regions
    (:class:`~inspectc.capture.gaps.RegionGapReader`, a graph break's cost) another; more
    are given as ``readers``."""

    def ingest(self, raw: Sequence[Any]) -> None: ...


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
        readers: Sequence[WindowReader] = (),
    ) -> None:
        if skip < 0 or count < 1:
            raise ValueError(f"bad profile window {skip}:{count}")
        self.skip, self.count, self._emit = skip, count, emit
        self.enable_cpp_kernel_profile = enable_cpp_kernel_profile
        self.errors: list[str] = []
        self._key_to_compile: dict[str, str] = {}
        self._attributor = Attributor(skip, count, self._key_to_compile)
        self._gaps = RegionGapReader()  # what runs between compiled regions (a break's cost)
        self.readers: list[WindowReader] = [self._attributor, self._gaps, *readers]
        self.load_avg: list[float] = []  # 1-minute load average at each window's start and end
        self.threads: dict[str, int] | None = None
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
        self._other_thread = False
        self._done = False
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
        self._install_hook()

    def _install_hook(self) -> None:
        """Chain the frame-entry tick into Dynamo's guard-complete hook (while a window is due)."""
        if self._hook_installed or not self._started or self._done:
            return
        previous = torch_api.swap_guard_complete_hook(self._hook)
        if isinstance(previous, Missing):
            if not any(e.startswith("no frame-entry tick") for e in self.errors):
                self.errors.append(f"no frame-entry tick: {previous.why}")
            return
        self._prev_hook = previous
        self._hook_installed = True

    def _remove_hook(self) -> None:
        """Take the tick out, so nothing of ours runs in the user's loop between windows."""
        if not self._hook_installed:
            return
        current = torch_api.swap_guard_complete_hook(self._prev_hook)
        if current is not self._hook and not isinstance(current, Missing):
            # someone chained a hook after ours: leave theirs in place; ours stays inside it
            torch_api.swap_guard_complete_hook(current)
            return
        self._hook_installed = False
        self._prev_hook = None

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
        self._install_hook()  # taken out after each window: the next one needs it

    def observe(self, metadata: dict[str, Any], payload: str | None) -> None:
        """Feed one `torch.__trace` record; drives the compile-start/compile-end calls.

        Uses the compile spans of a frame and of a lazy backward (chromium events "dynamo" and
        "entire_backward_compile": begin, end) and the FX graph keys of the graph cache's
        artifacts, as :mod:`inspectc.trace.live` reads them.
        """
        cached = live.fx_graph_cache_key(metadata, payload)
        if cached is not None:
            cid, key = cached
            self._pending_keys.setdefault(cid, []).append(key)
            return
        span = live.compile_span(metadata, payload)
        if span is None:
            return
        phase, compile_id = span
        if phase == "B":
            self.on_compile_start()
        elif compile_id is not None:
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
        self._done = True  # no hook is installed again
        self._remove_hook()
        self._hook_installed = False
        self._prev_hook = None
        for result in self._results:
            events = result.events()
            for reader in self.readers:
                reader.ingest(events)
        self._results.clear()
        if self._restore_kernel_profile is not None:
            self._restore_kernel_profile()
            self._restore_kernel_profile = None
        for compile_id, payload in self.results().items():
            self._emit(*own_records.kernel_times(compile_id, payload))
        gaps = self._gaps.record()
        if gaps is not None:
            self._emit(*gaps)

    def abandon(self) -> None:
        """In a forked child: take the frame-entry tick out, emit nothing, profile nothing."""
        self._armed = False
        self._done = True
        self._prof = None  # the parent's window: the child's copy is never stopped or read
        self._results.clear()
        if self._hook_installed:
            torch_api.swap_guard_complete_hook(self._prev_hook)
            self._hook_installed = False
            self._prev_hook = None

    # -- ticks and windows ---------------------------------------------------------------
    def _on_frame_entry(self, cache_hit: bool) -> bool:
        result = self._prev_hook(cache_hit) if self._prev_hook is not None else cache_hit
        if threading.get_ident() != self._thread:  # the profiler must start and stop on one thread
            if not self._other_thread:
                self._other_thread = True
                self.errors.append(OTHER_THREAD)
            return result
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
        if self._prof is None and not self._armed:
            self._remove_hook()  # idle until the next compile arms a window

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
        self._note_environment()
        why = exit_path.guard_forked_children()  # Kineto's statics hang a forked child's exit()
        if why is not None and why not in self.errors:
            self.errors.append(why)
        self._prof = quietly(torch_api.start_profiler)
        self.own_seconds += time.perf_counter() - t0

    def _close_window(self) -> None:
        t0 = time.perf_counter()
        prof, self._prof = self._prof, None
        results = quietly(lambda: torch_api.stop_profiler(prof))
        if torch_api.cupti_teardown_started():  # exit() could wait for it forever
            why = exit_path.leave_before_static_destructors()
            if why is not None and why not in self.errors:
                self.errors.append(why)
        self._note_environment()
        # reading the events costs ~1 us each: deferred to stop(), out of the user's loop
        if isinstance(results, Missing):
            self.errors.append(f"window dropped: {results.why}")
        else:
            self._results.append(results)
        self._armed = False
        self.own_seconds += time.perf_counter() - t0

    def _note_environment(self) -> None:
        # what disturbs CPU timings: other load on the machine, torch's thread pools
        try:
            self.load_avg.append(round(os.getloadavg()[0], 2))
        except OSError:  # no load average on this platform
            pass
        if self.threads is None:
            self.threads = torch_api.thread_settings()

    @property
    def graphs(self) -> dict[str, GraphTimes]:
        return self._attributor.graphs

    # -- results -------------------------------------------------------------------------
    def results(self) -> dict[str, dict[str, Any]]:
        """Per compile id: the JSON-ready payload of `inspectc_kernel_times`."""
        out: dict[str, dict[str, Any]] = {}
        environment = {**(self.threads or {}), "cpus": os.cpu_count(), "load_avg": list(self.load_avg)}
        for graph in self.graphs.values():
            cid = graph.compile_id or (
                self._key_to_compile.get(graph.fx_graph_key) if graph.fx_graph_key else None
            )
            payload = out.get(cid or "unknown")
            if payload is None:
                payload = out[cid or "unknown"] = own_records.kernel_times_payload(
                    skip=self.skip, count=self.count, errors=self.errors, environment=environment
                )
            forward = graph.phase == "forward" and graph.region.n > 0
            own_records.add_graph(payload, graph.as_dict(), forward_region=forward)
        return out
