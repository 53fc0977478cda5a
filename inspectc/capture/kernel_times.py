"""A capture's kernel timings: the timer started before the first compile, stopped at the end.

:class:`~inspectc.capture.timing.KernelTimer` opens short profiler windows after compiles;
this part starts it, lets it watch the record stream (compile spans, FX graph keys), and at
the end stops it, which emits one ``inspectc_kernel_times`` record per compile id through
the recorder. The timer's own failures become capture failures. The timer module (and with
it ``torch.profiler``) is imported only when timings are on.

A measurement of what runs between compiled regions (a graph break's cost) joins here: a
:class:`~inspectc.capture.timing.WindowReader` given to the timer (``readers``) reads the same
closed windows, whose raw events :meth:`KernelTimer.stop` hands to each reader after the
program ended, out of the user's loop; it emits its records through ``recorder.emit``.
"""

from __future__ import annotations

from typing import Any

from inspectc.capture.failures import Failures
from inspectc.capture.recorder import Recorder

MULTI_PROCESS = "kernel timings not taken: multi-process run (WORLD_SIZE > 1)"


class KernelTimes:
    def __init__(self, window: tuple[int, int], failures: Failures) -> None:
        self.window = window
        self.failures = failures
        self.timer: Any = None  # inspectc.capture.timing.KernelTimer while timings run

    def start(self, recorder: Recorder, *, world_size: int | None) -> None:
        if (world_size or 1) > 1:
            # A profiler window left open in a gloo/NCCL process group run can hang the
            # process group's teardown at exit; until that is solved, no timings there.
            self.failures.record(MULTI_PROCESS)
            return
        try:
            from inspectc.capture.timing import KernelTimer

            skip, count = self.window
            self.timer = KernelTimer(skip, count, recorder.emit, enable_cpp_kernel_profile=False)
            self.timer.start()
        except Exception as exc:  # noqa: BLE001 - recorded; no timings, the run goes on
            self.timer = None
            self.failures.record_error("starting kernel timings", exc)
            return
        recorder.watchers.append(self.timer.observe)

    def stop(self, recorder: Recorder) -> None:
        """Close the window, emit the results; on the thread that started it (the profiler's rule)."""
        timer, self.timer = self.timer, None
        if timer is None:
            return
        try:
            with recorder.lock:
                timer.stop()
        except Exception as exc:  # noqa: BLE001 - recorded; the report is still finished
            self.failures.record_error("stopping kernel timings", exc)
        for error in timer.errors:
            self.failures.record(f"kernel timings: {error}")

    def abandon(self) -> None:
        """In a forked child: no window is stopped, read or emitted."""
        if self.timer is not None:
            self.timer.abandon()
            self.timer = None
