"""One capture's lifecycle: the report opened at start, its parts started, all closed at stop.

A capture is made of parts, one concern each: the :class:`~inspectc.capture.recorder.Recorder`
(torch's structured-trace records into the report as they come), the kernel timings
(:mod:`~inspectc.capture.kernel_times`), the kernel details (:mod:`~inspectc.capture.details`),
fork handling (:mod:`~inspectc.capture.forks`) and the failures they all record into
(:mod:`~inspectc.capture.failures`). This module opens the report (one writer per path), says
who ran what where, starts the parts and torch's settings (:mod:`~inspectc.capture.settings`),
and at stop takes them down in order and writes how the run ended. Every private torch
internal is reached through :mod:`inspectc.capture.torch_api`.

Capture must never break the user's program: its own failures are recorded in the report
(``run.capture_errors``) and the program goes on.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from inspectc.capture import forks, run_record, settings, torch_api
from inspectc.capture.details import Details
from inspectc.capture.eager_calls import EagerCalls
from inspectc.capture.events import StatusLine
from inspectc.capture.failures import Failures
from inspectc.capture.kernel_times import KernelTimes
from inspectc.capture.recorder import Recorder
from inspectc.capture.report_file import ReportFile
from inspectc.capture.torch_api import Restore
from inspectc.model import PROFILE_WINDOW, RunOptions
from inspectc.trace.builder import Builder


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
        self.options = RunOptions(
            fresh=fresh,
            provenance=provenance,
            timings=timings,
            profile_window=tuple(profile_window),
            kernel_harness=kernel_harness,
        )
        self.config = dict(config or {})  # "dynamo.X" -> value; "dynamo.X+=" -> name to add
        self.failures = Failures()
        self._report = ReportFile(self.path)
        self._run = run_record.made(argv if argv is not None else sys.argv, mode, self.options)
        self._pid = os.getpid()
        self._status = StatusLine(status_line) if status_line is not None else None
        self._recorder: Recorder | None = None
        self._times = KernelTimes(profile_window, self.failures)
        self._details = Details(self.failures)
        self._eager = EagerCalls()  # calls run eagerly after a frame hit the recompile limit
        self._restore: list[Restore] = []  # torch settings to put back
        self._lock = threading.Lock()
        self._stopped = False

    @property
    def errors(self) -> list[str]:
        """Capture's own failures so far (``run.capture_errors``)."""
        return self.failures.messages

    @property
    def warning(self) -> str | None:
        """The line said on stderr where the report could not be (fully) written."""
        return self._report.warning

    @property
    def ok(self) -> bool:
        """The report was written to the end (no summary of a report that failed midway)."""
        return self._report.ok

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
        writer = self._report.open(refuse_busy=self._run.mode in ("script", "module"))
        if writer is None:
            return  # said in one line: the program runs without capture
        self.failures.attach(writer)
        self._run = run_record.started(writer, self._run, torch_version)
        builder = Builder(writer, rank=self._run.rank)
        builder.torch_version = torch_version
        provenance = bool(self.options.provenance)
        self._recorder = Recorder(writer, builder, self.failures, provenance=provenance, status=self._status)
        note = torch_api.untested_version()
        if note is not None:
            self.failures.record(note)
        self._restore += settings.configure(
            config=self.config, options=self.options, record=self.failures.record
        )
        self._recorder.before_first_compile = self._switch_inductor
        self._recorder.watchers.append(self._eager.observe)
        if self.options.timings:
            self._times.start(self._recorder, world_size=self._run.world_size)
        # Triton's hooks import Inductor: only once torch compiles (a program that compiles
        # nothing never loads it, on a CUDA install too)
        self._recorder.on_first_record = self._details.start
        self._recorder.attach()
        forks.track(self)
        writer.flush()

    def _switch_inductor(self) -> None:
        """Capture's Inductor switches, from torch's first trace record on (see settings)."""
        self._restore += settings.compile_switches(self.options, self.failures.record)

    def stop(
        self, *, end_reason: str = "exit", exit_code: int | None = None, exception: str | None = None
    ) -> None:
        with self._lock:
            if self._stopped or os.getpid() != self._pid:
                return
            self._stopped = True
        forks.untrack(self)
        recorder, writer = self._recorder, self._report.writer
        if recorder is not None:
            recorder.detach()
            self._times.stop(recorder)
            self._stop_eager(recorder)
        self._details.stop(writer, self._run.rank)
        settings.undo(self._restore, self.failures.record_error)
        if self._status is not None:
            self._status.clear()
        if writer is None or recorder is None:
            return
        recorder.finish(interrupted=end_reason in ("interrupt", "signal"))
        ended = run_record.ended(
            self._run, self.config, self.failures, recorder.fullgraph, end_reason, exit_code, exception
        )
        self._report.unfinished = run_record.write(writer, ended)
        self._report.close()

    def _stop_eager(self, recorder: Recorder) -> None:
        try:
            self._eager.stop()
            found = self._eager.record()
            if found is not None:
                recorder.emit(*found)
        except Exception as exc:  # noqa: BLE001 - recorded; the report is still finished
            self.failures.record_error("counting eager calls at the recompile limit", exc)

    def abandon_in_child(self) -> None:
        """In a forked child: never write into the parent's report, never profile."""
        if self._recorder is not None:
            self._recorder.abandon()
        self._times.abandon()
        self._eager.stop()
        self._report.abandon()
