"""Capture: the only module that touches torch. Listens on the ``torch.__trace`` logger.

torch emits every compile event through ``trace_structured`` on the ``torch.__trace``
logger (what ``TORCH_TRACE`` writes and tlparse reads). A :class:`logging.Handler` added to
that logger receives each event's metadata and payload; we hand them to the builder, which
writes the report as the run goes. ``TORCH_TRACE``/``TORCH_LOGS`` keep their own handlers.

Capture must never break the user's program: its own failures are recorded in the report
(``run.capture_errors``) and the program goes on.
"""

from __future__ import annotations

import json
import logging
import math
import os
import platform
import socket
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from inspectc import __version__
from inspectc.errors import ReportError
from inspectc.report.model import Run
from inspectc.report.writer import ReportWriter
from inspectc.trace.builder import Builder

TRACE_LOGGER = "torch.__trace"


class _TraceHandler(logging.Handler):
    """Receives structured-trace records; drops records from forked children."""

    def __init__(self, owner: Capture) -> None:
        super().__init__(level=logging.DEBUG)
        self.owner = owner

    def emit(self, record: logging.LogRecord) -> None:
        metadata = getattr(record, "metadata", None)
        if not isinstance(metadata, dict):
            return
        self.owner._on_record(metadata, getattr(record, "payload", None), record.created)

    def handleError(self, record: logging.LogRecord) -> None:  # noqa: N802 - logging API
        pass  # _on_record records its own failures; never print into the user's stderr


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
        profile_window: tuple[int, int] = (1, 10),
        argv: list[str] | None = None,
        mode: str = "api",
        status_line: Callable[[str], None] | None = None,
    ) -> None:
        self.path = Path(path)
        self.fresh = fresh
        self.provenance = provenance
        self.timings = timings
        self.profile_window = profile_window
        self.status_line = status_line
        self.errors: list[str] = []
        self.warning: str | None = None
        self._pid = os.getpid()
        self._writer: ReportWriter | None = None
        self._builder: Builder | None = None
        self._handler: _TraceHandler | None = None
        self._restore: list[Callable[[], None]] = []
        self._run = Run(
            argv=tuple(argv if argv is not None else sys.argv),
            cwd=os.getcwd(),
            mode=mode,
            python_version=platform.python_version(),
            platform=platform.platform(),
            hostname=socket.gethostname(),
            pid=os.getpid(),
            options={
                "fresh": fresh,
                "provenance": provenance,
                "timings": timings,
                "profile_window": list(profile_window),
            },
        )
        self._lock = threading.Lock()
        self._feed_lock = threading.RLock()  # the builder is not thread-safe
        self._stopped = False
        self._compiling: str | None = None
        self._autotune_hooked = False
        self._timer: Any = None  # inspectc.capture.timing.KernelTimer while timings are on

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
        import torch

        try:
            self._writer = ReportWriter(self.path)
        except (ReportError, OSError, Exception) as exc:  # noqa: BLE001 - capture degrades
            why = (
                str(exc) if isinstance(exc, ReportError) else f"cannot write report {self.path}: {_why(exc)}"
            )
            self.warning = f"inspectc: {why}; running without capture"
            print(self.warning, file=sys.stderr)
            return
        self._writer.set_meta("inspectc_version", __version__)
        self._writer.set_meta("source", "capture")
        rank, world = _dist_rank()
        self._run = replace(
            self._run,
            started=time.time(),
            end_reason="running",
            torch_version=torch.__version__,
            triton_version=_package_version("triton"),
            cuda_version=getattr(torch.version, "cuda", None),
            rank=rank,
            world_size=world,
        )
        self._writer.set_meta("run", self._run)
        self._builder = Builder(self._writer, rank=rank)
        self._builder.torch_version = torch.__version__
        self._seed_interned_strings()
        self._configure(torch)
        if self.timings and (world or 1) > 1:
            # A profiler window left open in a gloo/NCCL process group run can hang the
            # process group's teardown at exit; until that is solved, no timings there.
            self.errors.append("kernel timings not taken: multi-process run (WORLD_SIZE > 1)")
        elif self.timings:
            self._start_timer()
        self._attach()
        os.register_at_fork(after_in_child=self._after_fork_in_child)
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
        self._detach()
        self._stop_timer()
        for undo in reversed(self._restore):
            try:
                undo()
            except Exception as exc:  # noqa: BLE001
                self._record_error("restoring torch config", exc)
        self._clear_status()
        if self._writer is None or self._builder is None:
            return
        try:
            with self._feed_lock:
                self._builder.finish()
            self._run = replace(
                self._run,
                ended=time.time(),
                exit_code=exit_code,
                exception=exception,
                end_reason=end_reason,
                devices=_devices(),
                options={**self._run.options, **_compile_backends()},
                capture_errors=tuple(self.errors),
            )
            self._writer.set_meta("run", self._run)
            self._writer.close()
        except Exception as exc:  # noqa: BLE001 - never break the user's exit
            print(f"inspectc: could not finish report {self.path}: {_why(exc)}", file=sys.stderr)
        if self._writer.failure is not None:  # disk full, file removed... while the program ran
            self.warning = (
                f"inspectc: report {self.path} is incomplete: writing it failed"
                f" ({self._writer.failure}); it holds what was saved before that"
            )
            print(self.warning, file=sys.stderr)

    @property
    def ok(self) -> bool:
        """The report was written to the end (no summary of a report that failed midway)."""
        return self._writer is not None and self._writer.failure is None

    # -- torch side --------------------------------------------------------------------
    def _configure(self, torch: Any) -> None:
        del torch  # imported by the caller; the config module is what we change
        try:
            import torch._inductor.config as inductor_config
        except Exception as exc:  # noqa: BLE001
            self._record_error("importing torch._inductor.config", exc)
            return
        if self.fresh:
            self._patch(inductor_config, "force_disable_caches", True)
        if self.provenance:
            # Fusion groups: Inductor emits kernel <-> FX node mappings per compiled graph.
            self._patch(inductor_config.trace, "provenance_tracking_level", 1)
        if self.provenance or self.timings:
            # Named profiler ranges for C++ kernels. The flag is part of the FX graph cache
            # key and changes no numerics, so it also keeps our compiles apart from cache
            # entries of plain runs that were built without provenance (torch <= 2.11 leaves
            # the provenance level out of the key).
            self._patch(inductor_config.cpp, "enable_kernel_profile", True)

    def _start_timer(self) -> None:
        try:
            from inspectc.capture.timing import KernelTimer

            skip, count = self.profile_window
            self._timer = KernelTimer(skip, count, self._emit, enable_cpp_kernel_profile=False)
            self._timer.start()
        except Exception as exc:  # noqa: BLE001 - no timings, the run goes on
            self._timer = None
            self._record_error("starting kernel timings", exc)

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
            for error in timer.errors:
                self.errors.append(f"kernel timings: {error}")
        except Exception as exc:  # noqa: BLE001
            self._record_error("stopping kernel timings", exc)

    def _patch(self, obj: Any, name: str, value: Any) -> None:
        if not hasattr(obj, name):
            self.errors.append(f"config {name} not recorded: this torch has no such option")
            return
        old = getattr(obj, name)
        setattr(obj, name, value)
        self._restore.append(lambda: setattr(obj, name, old))

    def _seed_interned_strings(self) -> None:
        """Strings torch interned before we attached are never re-emitted: copy them."""
        try:
            from torch._logging.structured import INTERN_TABLE
        except Exception:  # noqa: BLE001 - older torch: nothing to seed
            return
        assert self._builder is not None
        for text, index in list(INTERN_TABLE.items()):
            self._builder.feed({"str": [text, index]}, None, time.time())

    def _attach(self) -> None:
        trace_log = logging.getLogger(TRACE_LOGGER)
        old_level = trace_log.level
        if trace_log.level == logging.NOTSET or trace_log.level > logging.DEBUG:
            trace_log.setLevel(logging.DEBUG)
        self._restore.append(lambda: trace_log.setLevel(old_level))
        self._handler = _TraceHandler(self)
        trace_log.addHandler(self._handler)

    def _detach(self) -> None:
        if self._handler is not None:
            logging.getLogger(TRACE_LOGGER).removeHandler(self._handler)

    def _after_fork_in_child(self) -> None:
        # A forked child must never write into the parent's report.
        self._detach()
        if self._writer is not None:
            self._writer.abandon()
        self._writer = None
        self._builder = None

    def _on_record(self, metadata: dict[str, Any], payload: Any, created: float) -> None:
        if os.getpid() != self._pid or self._builder is None:
            return
        with self._feed_lock:  # records come from every thread that compiles (or autotunes)
            self._feed(metadata, payload, created)

    def _feed(self, metadata: dict[str, Any], payload: Any, created: float) -> None:
        if self._builder is None:
            return
        try:
            if not self._autotune_hooked and _SELECT_ALGORITHM in sys.modules:
                self._hook_autotuning()
            text = payload if isinstance(payload, str) or payload is None else str(payload)
            if self._timer is not None:
                self._timer.observe(metadata, text)
            self._builder.feed(metadata, text, created)
            if "compilation_metrics" in metadata and self._writer is not None:
                self._writer.flush()  # a frame ended: keep it even if the process dies now
            if self.status_line is not None:
                self._update_status(metadata)
        except Exception as exc:  # noqa: BLE001 - capture never breaks the program
            self._record_error("recording an event", exc)

    # -- autotuning: Inductor's feedback hook sees every benchmarked choice ------------------
    def _hook_autotuning(self) -> None:
        # Only once Inductor imported select_algorithm itself: importing it costs ~1 s.
        module = sys.modules[_SELECT_ALGORITHM]
        add = getattr(module, "add_feedback_saver", None)
        selector = getattr(module, "get_algorithm_selector_cache", None)
        if add is None or selector is None:
            return  # still importing, or a torch without the hook
        self._autotune_hooked = True
        add(self._on_autotune)

        def remove() -> None:
            savers = getattr(selector(), "feedback_saver_fns", None)
            if isinstance(savers, list) and self._on_autotune in savers:
                savers.remove(self._on_autotune)

        self._restore.append(remove)

    def _on_autotune(self, timings: dict[Any, float], name: str, *rest: Any) -> None:
        """Feedback hook: one synthetic ``inspectc_autotune`` event per autotuned op."""
        try:
            import torch

            cid = torch._guards.CompileContext.current_compile_id()
            meta: dict[str, Any] = {"inspectc_autotune": {"op": name}}
            for key in ("frame_id", "frame_compile_id", "compiled_autograd_id"):
                value = getattr(cid, key, None)
                if value is not None:
                    meta[key] = value
            choices = [
                {
                    "name": str(getattr(choice, "name", choice)),
                    "desc": str(getattr(choice, "description", "") or ""),
                    "ms": float(ms) if math.isfinite(ms) else None,
                }
                for choice, ms in timings.items()
            ]
            payload = json.dumps({"op": name, "choices": choices})
        except Exception as exc:  # noqa: BLE001 - capture never breaks the compile
            self._record_error("recording autotuning results", exc)
            return
        self._on_record(meta, payload, time.time())

    def _record_error(self, what: str, exc: BaseException) -> None:
        message = f"{what}: {type(exc).__name__}: {exc}"
        if message not in self.errors and len(self.errors) < 100:
            self.errors.append(message)
            if self._writer is not None:
                try:
                    self._writer.set_meta("capture_errors", list(self.errors))
                except Exception:  # noqa: BLE001, S110 - the report itself is failing
                    pass

    # -- live status line (terminal only) ----------------------------------------------
    def _update_status(self, metadata: dict[str, Any]) -> None:
        assert self.status_line is not None
        if "dynamo_start" in metadata:
            stack = metadata["dynamo_start"].get("stack") or [{}]
            top = stack[-1] if isinstance(stack[-1], dict) else {}
            cid = f"{metadata.get('frame_id')}/{metadata.get('frame_compile_id')}"
            self._compiling = cid
            self.status_line(f"compiling {cid} {top.get('name', '?')}() line {top.get('line', '?')}")
        elif "compilation_metrics" in metadata and self._compiling:
            self._clear_status()

    def _clear_status(self) -> None:
        if self.status_line is not None and self._compiling is not None:
            self.status_line("")
        self._compiling = None


_SELECT_ALGORITHM = "torch._inductor.select_algorithm"


def _compile_backends() -> dict[str, Any]:
    """The backends the run's torch.compile calls asked for, and the registered ones."""
    dynamo = sys.modules.get("torch._dynamo")
    eval_frame = sys.modules.get("torch._dynamo.eval_frame")
    if dynamo is None or eval_frame is None:
        return {}  # nothing was compiled
    used: list[dict[str, Any]] = []
    try:
        for backend in list(getattr(eval_frame, "cached_backends", {}).values()):
            if backend is None:
                continue
            name = getattr(backend, "compiler_name", None) or getattr(backend, "__name__", None)
            entry: dict[str, Any] = {"name": str(name or type(backend).__name__)}
            config = getattr(backend, "config", None) or getattr(backend, "kwargs", None)
            if isinstance(config, dict) and config:
                entry["options"] = {str(k): _plain_value(v) for k, v in config.items()}
            if getattr(backend, "dynamic", None) is not None:
                entry["dynamic"] = bool(backend.dynamic)
            if entry not in used:
                used.append(entry)
        registered = [str(b) for b in dynamo.list_backends()]
    except Exception:  # noqa: BLE001 - informational only
        return {"compile_backends": used} if used else {}
    return {"compile_backends": used, "registered_backends": registered}


def _plain_value(value: Any) -> Any:
    return value if isinstance(value, (bool, int, float, str, type(None))) else repr(value)


def _why(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


def _package_version(name: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def _dist_rank() -> tuple[int | None, int | None]:
    rank = os.environ.get("RANK")
    world = os.environ.get("WORLD_SIZE")
    try:
        return (int(rank) if rank else None, int(world) if world else None)
    except ValueError:
        return None, None


def _devices() -> tuple[str, ...]:
    import torch

    names: list[str] = []
    try:
        if torch.cuda.is_initialized():
            names = [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]
    except Exception:  # noqa: BLE001 - device names are informational
        names = []
    cpu = platform.processor() or platform.machine()
    return tuple(names) + (f"cpu: {cpu}",)
