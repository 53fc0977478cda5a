"""Disassembling cubins to SASS in the background (capture; no torch).

:class:`Disassembler` runs ``nvdisasm -g -c`` (keeps the Python lines), else ``cuobjdump
-sass``, in at most ``SASS_WORKERS`` daemon threads started on demand that each run one
subprocess at a time and end after ``SASS_IDLE_S`` without work: nothing blocks the user's loop
or the exit. ``close`` waits for given jobs until a deadline and kills what still runs.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import threading
import time

SASS_WORKERS = 4  # disassembly processes at once, in the background
SASS_IDLE_S = 2.0  # a worker thread ends after this long without a cubin


class Job:
    """One cubin's disassembly: its result once ``done`` is set, the process while it runs."""

    __slots__ = ("cubin", "done", "result", "proc", "cancelled")

    def __init__(self, cubin: bytes) -> None:
        self.cubin = cubin
        self.done = threading.Event()
        self.result: tuple[str | None, str] = (None, "not disassembled")
        self.proc: subprocess.Popen[str] | None = None
        self.cancelled = False


class Disassembler:
    """Disassembles cubins in the background: at most ``workers`` subprocesses at once, in
    daemon threads started on demand that end when idle (nothing blocks the loop or the exit)."""

    def __init__(self, tools: list[str], workers: int = SASS_WORKERS) -> None:
        self.tools = tools
        self._workers = workers
        self._lock = threading.Lock()
        self._queue: list[Job] = []
        self._threads = 0
        self._wake = threading.Condition(self._lock)
        self._closed = False

    def submit(self, cubin: bytes) -> Job:
        job = Job(cubin)
        with self._lock:
            self._queue.append(job)
            if self._threads < self._workers:
                self._threads += 1
                threading.Thread(target=self._work, name="inspectc-sass", daemon=True).start()
            self._wake.notify()
        return job

    def _work(self) -> None:
        while True:
            with self._lock:
                if not self._queue and not self._closed:
                    self._wake.wait(SASS_IDLE_S)
                if not self._queue or self._closed:
                    self._threads -= 1
                    return
                job = self._queue.pop(0)
            try:
                job.result = disassemble_any(self.tools, job)
            except Exception as exc:  # noqa: BLE001 - recorded as the stage's reason
                job.result = (None, f"disassembly failed: {type(exc).__name__}: {exc}")
            job.done.set()

    def close(self, jobs: list[Job], wait_s: float) -> float:
        """Wait until *jobs* are done or *wait_s* passed; kill what still runs. Seconds waited."""
        start = time.monotonic()
        for job in jobs:
            job.done.wait(max(0.0, start + wait_s - time.monotonic()))
        with self._lock:
            self._closed = True
            self._queue.clear()
            self._wake.notify_all()
        for job in jobs:
            if not job.done.is_set():
                job.cancelled = True
                proc = job.proc
                if proc is not None and proc.poll() is None:
                    proc.kill()
        return time.monotonic() - start


def disassemble_any(tools: list[str], job: Job) -> tuple[str | None, str]:
    """nvdisasm -g (keeps the Python lines), else cuobjdump -sass."""
    whys = []
    for tool in tools:
        if job.cancelled:
            return None, "cancelled at stop"
        text, why = _disassemble(tool, job)
        if text is not None:
            return text, ""
        whys.append(why)
    return None, "; ".join(whys)


def _disassemble(tool: str, job: Job) -> tuple[str | None, str]:
    with tempfile.TemporaryDirectory(prefix="inspectc-sass-") as tmp:
        path = os.path.join(tmp, "k.cubin")
        with open(path, "wb") as fh:
            fh.write(job.cubin)
        cmd = [tool, "-g", "-c", path] if tool.endswith("nvdisasm") else [tool, "-sass", path]
        try:
            proc = subprocess.Popen(  # noqa: S603
                cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True
            )
        except OSError as exc:
            return None, f"{os.path.basename(tool)}: {exc}"
        job.proc = proc
        try:
            out, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            return None, f"{os.path.basename(tool)}: no answer in 60 s"
        if proc.returncode != 0:
            return None, f"{os.path.basename(tool)} exited {proc.returncode}: {err.strip()[:200]}"
        return out, ""
