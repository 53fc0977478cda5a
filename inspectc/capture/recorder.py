"""A capture's stream: torch's structured-trace records into the builder, as they come.

torch emits every compile event through ``trace_structured`` on the ``torch.__trace`` logger
(what ``TORCH_TRACE`` writes and tlparse reads). A :class:`logging.Handler` on that logger
receives each record's metadata and payload, from every thread that compiles; the recorder
feeds them to the builder one at a time, and with them what capture adds: the strings torch
interned before it attached, a backward graph's kernel table, autotuning choices, the
``fullgraph`` of each ``torch.compile`` call, the live status line. ``TORCH_TRACE``/``TORCH_LOGS``
keep their own handlers. A record capture fails to take is recorded, never raised.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from typing import Any

from inspectc.capture import settings, torch_api, torch_config
from inspectc.capture.backward_nodes import BackwardNodes
from inspectc.capture.events import AutotuneHook, StatusLine, TraceHandler
from inspectc.capture.failures import Failures
from inspectc.capture.torch_api import Missing, Restore
from inspectc.store.writer import ReportWriter
from inspectc.trace import live
from inspectc.trace.builder import Builder

Watcher = Callable[[dict[str, Any], "str | None"], None]


class Recorder:
    """Feeds one builder from the trace logger; :meth:`attach` starts, :meth:`detach` stops."""

    def __init__(
        self,
        writer: ReportWriter,
        builder: Builder,
        failures: Failures,
        *,
        provenance: bool,
        status: StatusLine | None,
    ) -> None:
        self.writer: ReportWriter | None = writer
        self.builder: Builder | None = builder
        self.failures = failures
        self.status = status
        self.watchers: list[Watcher] = []  # see each record before the builder (kernel timings)
        # called once, at torch's first record on this thread: a compile or an export starts (Inductor switches)
        self.before_first_compile: Callable[[], None] | None = None
        # called once at torch's first record, on whichever thread (Triton's launch hooks)
        self.on_first_record: Callable[[], None] | None = None
        self._thread = threading.get_ident()
        self.fullgraph: dict[int, bool] = {}  # id(backend) -> fullgraph, read as compiles start
        self.lock = threading.RLock()  # the builder is not thread-safe
        self._scanned: set[int] = set()
        self._bw_nodes = BackwardNodes() if provenance else None  # backward kernels' fused nodes
        self._pid = os.getpid()
        self._handler: TraceHandler | None = None
        self._autotune = AutotuneHook(self.on_record, failures)
        self._restore: list[Restore] = []
        writer.before_flush = self.write_held_frames

    def attach(self) -> None:
        """Copy what torch holds already, then listen on the trace logger."""
        self._seed_interned_strings()
        if self._bw_nodes is not None:
            self._bw_nodes.prime()  # what an earlier run in this process left in Inductor's table
        trace_log = logging.getLogger(torch_api.TRACE_LOGGER)
        old_level = trace_log.level
        if trace_log.level == logging.NOTSET or trace_log.level > logging.DEBUG:
            trace_log.setLevel(logging.DEBUG)
        self._restore.append(lambda: trace_log.setLevel(old_level))
        self._handler = TraceHandler(self.on_record)
        trace_log.addHandler(self._handler)

    def detach(self) -> None:
        """Stop listening; put the logger's level and Inductor's autotuning hooks back."""
        if self._handler is not None:
            logging.getLogger(torch_api.TRACE_LOGGER).removeHandler(self._handler)
            self._handler = None
        settings.undo(self._restore, self.failures.record_error)

    def abandon(self) -> None:
        """In a forked child: stop listening, keep nothing of the parent's report."""
        if self._handler is not None:
            logging.getLogger(torch_api.TRACE_LOGGER).removeHandler(self._handler)
            self._handler = None
        self.writer = None
        self.builder = None

    def emit(self, metadata: dict[str, Any], payload: str) -> None:
        """A record of capture's own (kernel times) enters the report like torch's."""
        with self.lock:
            if self.builder is not None:
                self.builder.feed(metadata, payload, time.time())

    def finish(self, *, interrupted: bool) -> None:
        """Close the frames still open; what the builder could not read becomes a failure."""
        if self.builder is None:
            return
        try:
            with self.lock:
                if interrupted:
                    self.builder.interrupted()
                self.builder.finish()
        except Exception as exc:  # noqa: BLE001 - recorded; the run is still written
            self.failures.record_error("finishing the frames", exc)
        for message in self.builder.errors:  # what the builder could not read (provenance...)
            self.failures.record(message)

    def on_record(self, metadata: dict[str, Any], payload: Any, created: float) -> None:
        """The trace handler's entry, from any thread; a forked child's records are dropped."""
        if os.getpid() != self._pid or self.builder is None:
            return
        with self.lock:
            self._feed(metadata, payload, created)

    def _feed(self, metadata: dict[str, Any], payload: Any, created: float) -> None:
        if self.builder is None:
            return
        try:
            self._autotune.hook(self._restore)
            text = payload if isinstance(payload, str) or payload is None else str(payload)
            if self.on_first_record is not None:  # any thread: process-wide hooks (Triton)
                call, self.on_first_record = self.on_first_record, None
                call()
            if self.before_first_compile is not None:
                # torch's first record: a frame starts compiling, or torch.export / an AOT
                # compile (no dynamo_start) begins; Inductor reads the switches later in it
                self._first_compile()
            if live.frame_started(metadata):  # its torch.compile call is alive now: fullgraph
                torch_config.note_fullgraph(self.fullgraph, self._scanned)
            for watch in self.watchers:
                watch(metadata, text)
            self.builder.feed(metadata, text, created)
            self._backward_nodes(metadata, text, created)
            if live.frame_ended(metadata) and self.writer is not None:
                self.builder.write_pending()
                self.writer.flush()  # a frame ended: keep it even if the process dies now
            if self.status is not None:
                self.status.update(metadata)
        except Exception as exc:  # noqa: BLE001 - recorded; capture never breaks the program
            self.failures.record_error("recording an event", exc)

    def _first_compile(self) -> None:
        # torch's config values are per thread (context variables): set where capture started
        if self.before_first_compile is not None and threading.get_ident() == self._thread:
            call, self.before_first_compile = self.before_first_compile, None
            call()

    def _backward_nodes(self, metadata: dict[str, Any], text: str | None, created: float) -> None:
        if self._bw_nodes is None or self.builder is None:
            return
        extra = self._bw_nodes.observe(metadata, text)
        if extra is not None:
            self.builder.feed(*extra, created)
        elif why := self._bw_nodes.take_missing():
            self.failures.record(f"fused nodes of backward kernels not recorded: {why}")

    def write_held_frames(self) -> None:
        """From the writer's flush thread: frames the builder held back, unless it is busy."""
        if not self.lock.acquire(blocking=False):
            return  # a record is being fed: its frames are written at the next flush
        try:
            if self.builder is not None:
                self.builder.write_pending()
        except Exception as exc:  # noqa: BLE001 - recorded; capture never breaks the program
            self.failures.record_error("writing frames", exc)
        finally:
            self.lock.release()

    def _seed_interned_strings(self) -> None:
        """Strings torch interned before we attached are never re-emitted: copy them."""
        strings = torch_api.interned_strings()
        if isinstance(strings, Missing):
            self.failures.record(f"file names interned before capture started not recorded: {strings.why}")
            return
        assert self.builder is not None
        for text, index in strings:
            self.builder.feed(*live.interned_string(text, index), time.time())
