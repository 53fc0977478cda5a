"""Endings that hung `inspectc run` on CUDA (issue 23), one per mode: run each under `timeout`.

    python benchmarks/gpu_endings.py MODE            # plain torch (modes plain-*)
    python -m inspectc run -o r.inspectc benchmarks/gpu_endings.py MODE

Modes: sin_relu (a compiled function called twice, then the script returns), triton_only
(the timing window closes, then only Triton launches), queued (200 matmuls queued, no sync),
exit_in_window (``sys.exit(0)`` while the window is open), fork (a child forked after the
window ends with ``sys.exit(3)``); plain-stop (torch alone: profiler start/stop with
``TEARDOWN_CUPTI=1``, then exit) and plain-stop-sync (the same, then one CUDA runtime call).
Prints ``ENDED <mode>`` last; the exit status is the script's.
"""

from __future__ import annotations

import atexit
import os
import sys

import torch


def f(x: torch.Tensor) -> torch.Tensor:
    return (x.sin() + 1).relu()


def mm(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return (a @ b).relu()


def main(mode: str) -> int:
    atexit.register(print, f"ENDED {mode} (atexit)", flush=True)
    x = torch.randn(1024, device="cuda")
    if mode.startswith("plain-"):
        os.environ["TEARDOWN_CUPTI"] = "1"
        acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
        prof = torch.profiler.profile(activities=acts)
        prof.start()
        x.sin()
        prof.stop()
        if mode == "plain-stop-sync":
            torch.cuda.synchronize()
        return 0
    step = torch.compile(f)
    if mode == "sin_relu":
        step(x)
        step(x)
    elif mode == "triton_only":
        for _ in range(40):  # the window (10 calls) closes, then 30 launches through the driver
            step(x)
    elif mode == "queued":
        a = torch.randn(2048, 2048, device="cuda")
        g = torch.compile(mm)
        for _ in range(200):
            a = g(a, a) / 2048
    elif mode == "exit_in_window":
        for _ in range(3):
            step(x)
        sys.exit(0)
    elif mode == "fork":
        for _ in range(20):
            step(x)
        torch.cuda.synchronize()
        pid = os.fork()
        if pid == 0:
            sys.exit(3)
        code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
        print(f"child exit {code}", flush=True)
        return 0 if code == 3 else 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
