"""What recording Triton kernels' stages and launches costs at compile time (issue 29).

    TORCHINDUCTOR_CACHE_DIR=$(mktemp -d) TRITON_CACHE_DIR=$(mktemp -d) \\
        python benchmarks/detail_overhead.py --detail on|off [--workload resnet_sample|block]

Compiles the workload from cold caches (first inference call and first training step of
``samples/timm_resnet.py``'s resnet18, or ``loop_step.py``'s block) and prints one JSON line:
the wall time of those first calls (compile included); with ``--detail on``, capture's
``KernelDetails`` hook is installed as ``inspectc run`` installs it, and the line also holds the
time spent inside the hook (the first-launch reads of the stages, the launch signatures) and at
stop (SASS disassembly, the events), measured directly. Compare ``on`` with ``off`` over fresh
caches for the end-to-end figure; the hook's own time is the low-noise one.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--detail", choices=("on", "off"), required=True)
    p.add_argument("--workload", default="resnet_sample")
    opts = p.parse_args()
    from inrun_trace import workload

    spent = [0.0, 0]
    details = None
    if opts.detail == "on":
        from inspectc.capture import triton_detail

        details = triton_detail.KernelDetails(lambda msg: print("recorded:", msg, file=sys.stderr))
        orig_seen = triton_detail.KernelDetails._seen

        def timed_seen(self, tuner, args):  # noqa: ANN001, ANN202 - a timer around capture's hook
            t0 = time.perf_counter()
            try:
                return orig_seen(self, tuner, args)
            finally:
                spent[0] += time.perf_counter() - t0
                spent[1] += 1

        triton_detail.KernelDetails._seen = timed_seen  # type: ignore[method-assign]
        details.start()
    t0 = time.perf_counter()
    phases = {}
    for phase, fn in workload(opts.workload, 1):
        t1 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        phases[phase] = round(time.perf_counter() - t1, 3)
    compile_s = time.perf_counter() - t0
    stop_s = 0.0
    n_kernels = None
    if details is not None:
        t2 = time.perf_counter()
        details.stop()
        events = details.events()
        stop_s = time.perf_counter() - t2
        n_kernels = len(events)
    print(
        "OVERHEAD "
        + json.dumps(
            {
                "detail": opts.detail,
                "workload": opts.workload,
                "first_calls_s": round(compile_s, 3),
                "phases_s": phases,
                "hook_s": round(spent[0], 4),
                "hook_calls": spent[1],
                "stop_s": round(stop_s, 3),
                # of it, the wait for SASS still running (background disassembly; None before)
                "sass_wait_s": getattr(details, "sass_wait_s", None),
                "kernels": n_kernels,
            }
        ),
        flush=True,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
