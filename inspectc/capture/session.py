"""One capture: listens on the ``torch.__trace`` logger and writes the report as the run goes.

torch emits every compile event through ``trace_structured`` on the ``torch.__trace``
logger (what ``TORCH_TRACE`` writes and tlparse reads). A :class:`logging.Handler` added to
that logger receives each event's metadata and payload; we hand them to the builder, which
writes the report as the run goes. ``TORCH_TRACE``/``TORCH_LOGS`` keep their own handlers.
Every private torch internal is reached through :mod:`inspectc.capture.torch_api`.

Capture must never break the user's program: its own failures are recorded in the report
(``run.capture_errors``) and the program goes on.
"""

from __future__ import annotations

import logging
import os
import platform
import socket
import sys
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from inspectc.capture import settings, torch_api, torch_config
from inspectc.capture.backward_nodes import BackwardNodes
from inspectc.capture.eager_calls import EagerCalls
from inspectc.capture.events import StatusLine, TraceHandler, autotune_event, package_version
from inspectc.capture.torch_api import Missing, Restore
from inspectc.errors import ReportBusy, ReportError
from inspectc.model import PROFILE_WINDOW, Run, RunOptions, secrets
from inspectc.store import origin, runlock
from inspectc.store.origin import origin_meta
from inspectc.store.writer import ReportWriter, WriteError
from inspectc.trace.builder import Builder
from inspectc.version import __version__

MAX_ERRORS = 100  # capture errors kept in one report


class Capture:
    """Records torch.compile activity into a report file; use as a context manager.

    ``with inspectc.capture("run.inspectc"): model(x)`` -- the report is complete when
    the block ends, and holds everything up to the last flush if the process dies.
    """

    def __init__(
        self,
        path: str | os.PathLike[str] = "run.inspectc",
        *,
        fresh: bool = False,
        provenance: bool = True,
        timings: bool = True,
        kernel_harness: bool = False,
        profile_window: tuple[int, int] = PROFILE_WINDOW,
        argv: list[str] | None = None,
        mode: str = "api",
        config: dict[str, Any] | None = None,
        status_line: Callable[[str], None] | None = None,
    ) -> None:
        self.path = Path(path)
        self.fresh = fresh
        self.provenance = provenance
        self.timings = timings
        self.config = dict(config or {})  # "dynamo.X" -> value; "dynamo.X+=" -> name to add
        self.kernel_harness = kernel_harness
        self.profile_window = profile_window
        self.status_line = status_line
        self.errors: list[str] = []
        self.warning: str | None = None
        self._pid = os.getpid()
        self._writer: ReportWriter | None = None
        self._builder: Builder | None = None
        self._handler: TraceHandler | None = None
        self._restore: list[Restore] = []
        self._run = Run(
            argv=tuple(argv if argv is not None else sys.argv),
            cwd=os.getcwd(),
            mode=mode,
            python_version=platform.python_version(),
            platform=platform.platform(),
            hostname=socket.gethostname(),
            pid=os.getpid(),
            options=RunOptions(
                fresh=fresh,
                provenance=provenance,
                timings=timings,
                profile_window=tuple(profile_window),
                kernel_harness=kernel_harness,
            ),
        )
        self._lock = threading.Lock()
        self._feed_lock = threading.RLock()  # the builder is not thread-safe
        self._stopped = False
        self._status = StatusLine(status_line) if status_line is not None else None
        self._autotune_hooked = False
        self._timer: Any = None  # inspectc.capture.timing.KernelTimer while timings are on
        self._details: Any = None  # inspectc.capture.triton_detail.KernelDetails (Triton only)
        self._bw_nodes = BackwardNodes() if provenance else None  # backward kernels' fused nodes
        self._eager = EagerCalls()  # calls run eagerly after a frame hit the recompile limit
        self._unfinished: str | None = None  # why the report's end could not be written
        self._fullgraph: dict[int, bool] = {}  # id(backend) -> fullgraph, read as compiles start
        self._scanned: set[int] = set()
        self._report_lock: runlock.ReportLock | None = None  # one writer per report path

    # -- lifecycle ---------------------------------------------------------------------
    def __enter__(self) -> Capture:
        self.start()
        return self

    def __exit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> None:
        if exc is None:
            self.stop(end_reason="exit", exit_code=0)
        else:
            self.stop(end_reason="exception", exception=f"{exc_type.__name__}: {exc}")

    def start(self) -> None:
        torch_version = torch_api.torch_version()  # no torch: fails here, before any file
        try:
            self._report_lock = runlock.acquire(self.path)
        except ReportBusy as exc:
            if self._run.mode in ("script", "module"):
                raise  # inspectc run: refused in one line, before the script starts
            self.warning = f"inspectc: {exc}; running without capture"
            print(self.warning, file=sys.stderr)
            return
        try:
            self._writer = ReportWriter(self.path)
        except (ReportError, OSError) as exc:
            why = (
                str(exc) if isinstance(exc, ReportError) else f"cannot write report {self.path}: {_why(exc)}"
            )
            self.warning = f"inspectc: {why}; running without capture"
            print(self.warning, file=sys.stderr)
            if self._report_lock is not None:
                self._report_lock.release()
                self._report_lock = None
            return
        self._writer.set_meta("inspectc_version", __version__)
        self._writer.set_meta("source", "capture")
        for key, value in origin_meta().items():  # who made it where: consent before re-running
            self._writer.set_meta(key, value)
        rank, world = torch_api.dist_rank()
        self._run = replace(
            self._run,
            started=time.time(),
            end_reason="running",
            torch_version=torch_version,
            triton_version=package_version("triton"),
            cuda_version=torch_api.cuda_version(),
            rank=rank,
            world_size=world,
        )
        self._writer.set_meta("run", self._run)
        # Salted hashes of the run's secrets (argv flags, environment), so share can remove them.
        self._writer.set_meta(
            secrets.META_KEY, secrets.hashed(secrets.secret_values(self._run.argv, os.environ))
        )
        self._builder = Builder(self._writer, rank=rank)
        self._writer.before_flush = self._write_held_frames
        self._builder.torch_version = torch_version
        note = torch_api.untested_version()
        if note is not None:
            self._record(note)
        self._seed_interned_strings()
        self._restore += settings.configure(
            config=self.config,
            fresh=self.fresh,
            provenance=self.provenance,
            timings=self.timings,
            kernel_harness=self.kernel_harness,
            record=self._record,
        )
        if self._bw_nodes is not None:
            self._bw_nodes.prime()  # what an earlier run in this process left in Inductor's table
        if self.timings and (world or 1) > 1:
            # A profiler window left open in a gloo/NCCL process group run can hang the
            # process group's teardown at exit; until that is solved, no timings there.
            self._record("kernel timings not taken: multi-process run (WORLD_SIZE > 1)")
        elif self.timings:
            self._start_timer()
        self._start_details()
        self._attach()
        _LIVE.add(self)
        self._writer.flush()

    def stop(
        self,
        *,
        end_reason: str = "exit",
        exit_code: int | None = None,
        exception: str | None = None,
    ) -> None:
        with self._lock:
            if self._stopped or os.getpid() != self._pid:
                return
            self._stopped = True
        _LIVE.discard(self)
        self._detach()
        self._stop_timer()
        self._stop_details()
        self._stop_eager()
        settings.undo(self._restore, self._record_error)
        if self._status is not None:
            self._status.clear()
        if self._writer is None or self._builder is None:
            return
        try:
            with self._feed_lock:
                if end_reason in ("interrupt", "signal"):
                    self._builder.interrupted()
                self._builder.finish()
        except Exception as exc:  # noqa: BLE001 - recorded; the run is still written below
            self._record_error("finishing the frames", exc)
        for message in self._builder.errors:  # what the builder could not read (provenance...)
            self._record(message)
        self._run = replace(
            self._run,
            ended=time.time(),
            exit_code=exit_code,
            exception=exception,
            end_reason=end_reason,
            devices=settings.devices(self._record),
            options=replace(
                self._run.options, **settings.options_used(self.config, self._record, self._fullgraph)
            ),
            capture_errors=tuple(self.errors),
        )
        try:
            self._writer.set_meta("run", self._run)
            origin.mark(self._writer)  # last: this user's mark over what the report could run
        except WriteError as exc:  # a reader held the file past the timeout, a bad row
            self._unfinished = f"writing its run details failed ({_why(exc)})"
        self._writer.close()
        if self._report_lock is not None:
            self._report_lock.release()
            self._report_lock = None
        failure = self._writer.failure or self._unfinished
        if failure is not None:  # disk full, file removed... while the program ran
            self.warning = (
                f"inspectc: report {self.path} is incomplete: writing it failed ({failure});"
                " it holds what was saved before that"
            )
            print(self.warning, file=sys.stderr)

    @property
    def ok(self) -> bool:
        """The report was written to the end (no summary of a report that failed midway)."""
        return self._writer is not None and self._writer.failure is None and self._unfinished is None

    # -- torch side --------------------------------------------------------------------
    def _start_timer(self) -> None:
        try:
            from inspectc.capture.timing import KernelTimer

            skip, count = self.profile_window
            self._timer = KernelTimer(skip, count, self._emit, enable_cpp_kernel_profile=False)
            self._timer.start()
        except Exception as exc:  # noqa: BLE001 - recorded; no timings, the run goes on
            self._timer = None
            self._record_error("starting kernel timings", exc)

    def _start_details(self) -> None:
        from inspectc.capture.triton_detail import start_details

        self._details = start_details(self._record)

    def _stop_details(self) -> None:
        """Write what :meth:`_start_details` collected, and the C++ kernels' build."""
        from inspectc.capture.triton_detail import finish_details

        details, self._details = self._details, None
        events = finish_details(details, self._record, self._record_error)
        if self._writer is None:
            return
        for metadata, payload in events:
            self._writer.add_event(
                name=next(iter(metadata)),
                metadata=metadata,
                payload=payload,
                compile_id=None,
                rank=self._run.rank,
                ts=time.time(),
            )

    def _emit(self, metadata: dict[str, Any], payload: str) -> None:
        """Measurements of our own enter the report as events, like torch's."""
        if self._builder is not None:
            self._builder.feed(metadata, payload, time.time())

    def _stop_timer(self) -> None:
        timer, self._timer = self._timer, None
        if timer is None:
            return
        try:
            with self._feed_lock:
                timer.stop()
        except Exception as exc:  # noqa: BLE001 - recorded; the report is still finished
            self._record_error("stopping kernel timings", exc)
        for error in timer.errors:
            self._record(f"kernel timings: {error}")

    def _stop_eager(self) -> None:
        try:
            self._eager.stop()
            found = self._eager.record()
            if found is not None:
                with self._feed_lock:
                    self._emit(*found)
        except Exception as exc:  # noqa: BLE001 - recorded; the report is still finished
            self._record_error("counting eager calls at the recompile limit", exc)

    def _seed_interned_strings(self) -> None:
        """Strings torch interned before we attached are never re-emitted: copy them."""
        strings = torch_api.interned_strings()
        if isinstance(strings, Missing):
            self._record(f"file names interned before capture started not recorded: {strings.why}")
            return
        assert self._builder is not None
        for text, index in strings:
            self._builder.feed({"str": [text, index]}, None, time.time())

    def _attach(self) -> None:
        trace_log = logging.getLogger(torch_api.TRACE_LOGGER)
        old_level = trace_log.level
        if trace_log.level == logging.NOTSET or trace_log.level > logging.DEBUG:
            trace_log.setLevel(logging.DEBUG)
        self._restore.append(lambda: trace_log.setLevel(old_level))
        self._handler = TraceHandler(self)
        trace_log.addHandler(self._handler)

    def _detach(self) -> None:
        if self._handler is not None:
            logging.getLogger(torch_api.TRACE_LOGGER).removeHandler(self._handler)
            self._handler = None

    def _abandon_in_child(self) -> None:
        """In a forked child: never write into the parent's report, never profile."""
        self._detach()
        if self._timer is not None:
            self._timer.abandon()
            self._timer = None
        self._eager.stop()
        if self._writer is not None:
            self._writer.abandon()
        if self._report_lock is not None:
            self._report_lock.abandon()
            self._report_lock = None
        self._writer = None
        self._builder = None

    def _write_held_frames(self) -> None:
        """From the writer's flush thread: frames the builder held back, unless it is busy."""
        if not self._feed_lock.acquire(blocking=False):
            return  # a record is being fed: its frames are written at the next flush
        try:
            if self._builder is not None:
                self._builder.write_pending()
        except Exception as exc:  # noqa: BLE001 - recorded; capture never breaks the program
            self._record_error("writing frames", exc)
        finally:
            self._feed_lock.release()

    def _on_record(self, metadata: dict[str, Any], payload: Any, created: float) -> None:
        if os.getpid() != self._pid or self._builder is None:
            return
        with self._feed_lock:  # records come from every thread that compiles (or autotunes)
            self._feed(metadata, payload, created)

    def _feed(self, metadata: dict[str, Any], payload: Any, created: float) -> None:
        if self._builder is None:
            return
        try:
            if not self._autotune_hooked:
                self._hook_autotuning()
            text = payload if isinstance(payload, str) or payload is None else str(payload)
            if "dynamo_start" in metadata:  # its torch.compile call is alive now: fullgraph
                torch_config.note_fullgraph(self._fullgraph, self._scanned)
            if self._timer is not None:
                self._timer.observe(metadata, text)
            self._eager.observe(metadata, text)
            self._builder.feed(metadata, text, created)
            extra = self._bw_nodes.observe(metadata, text) if self._bw_nodes is not None else None
            if extra is not None:
                self._builder.feed(*extra, created)
            elif self._bw_nodes is not None and (why := self._bw_nodes.take_missing()):
                self._record(f"fused nodes of backward kernels not recorded: {why}")
            if "compilation_metrics" in metadata and self._writer is not None:
                self._builder.write_pending()
                self._writer.flush()  # a frame ended: keep it even if the process dies now
            if self._status is not None:
                self._status.update(metadata)
        except Exception as exc:  # noqa: BLE001 - recorded; capture never breaks the program
            self._record_error("recording an event", exc)

    # -- autotuning: Inductor's feedback hook sees every benchmarked choice ------------------
    def _hook_autotuning(self) -> None:
        # Set first: creating Inductor's selector cache emits trace events, which come back here.
        self._autotune_hooked = True
        remove = torch_api.add_autotune_feedback(self._on_autotune)
        if remove is None:
            self._autotune_hooked = False  # not yet: Inductor has not imported select_algorithm
        else:
            self._restore.append(remove)

    def _on_autotune(self, timings: dict[Any, float], name: str, *rest: Any) -> None:
        """Feedback hook: one synthetic ``inspectc_autotune`` event per autotuned op."""
        try:
            meta, payload = autotune_event(timings, name, torch_api.current_compile_id())
        except Exception as exc:  # noqa: BLE001 - recorded; capture never breaks the compile
            self._record_error("recording autotuning results", exc)
            return
        self._on_record(meta, payload, time.time())

    # -- capture's own failures: into run.capture_errors -------------------------------------
    def _record_error(self, what: str, exc: BaseException) -> None:
        self._record(f"{what}: {type(exc).__name__}: {exc}")

    def _record(self, message: str) -> None:
        if message in self.errors or len(self.errors) >= MAX_ERRORS:
            return
        self.errors.append(message)
        if self._writer is not None:
            try:
                self._writer.set_meta("capture_errors", list(self.errors))
            except WriteError:
                pass  # noqa: S110 - kept in self.errors: stop() writes them with the run


# Captures started and not yet stopped. Fork handlers are registered once per process (a
# handler per start would keep every capture, and its builder, alive for good); the set
# holds its captures weakly, and stop() takes them out.
_LIVE: weakref.WeakSet[Capture] = weakref.WeakSet()


def _after_fork_in_child() -> None:
    for capture in list(_LIVE):
        capture._abandon_in_child()
    _LIVE.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _why(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__
