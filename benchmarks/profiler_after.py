"""Does a closed torch.profiler window leave the loop slower? (one process, no inspectc)

    python benchmarks/profiler_after.py --model block --device cuda

Median step time of 100 steps before a 10-step profiler window (CPU + CUDA activities, as
capture's) and of 100 steps after it: a ratio above 1 is what the profiler leaves behind
(e.g. CUPTI callbacks still subscribed), not inspectc.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import torch
from loop_step import make


def steps(n: int, step, sync) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(n):
        sync()
        t0 = time.perf_counter()
        step()
        sync()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--model", default="mlp")
    p.add_argument("--device", default="cpu")
    opts = p.parse_args()
    net, x, y = make(opts.model, opts.device)
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    compiled = torch.compile(net)
    sync = torch.cuda.synchronize if opts.device.startswith("cuda") else (lambda: None)

    def step() -> None:
        opt.zero_grad(set_to_none=True)
        torch.nn.functional.cross_entropy(compiled(x), y).backward()
        opt.step()

    steps(20, step, sync)  # compile and warm up
    before = steps(100, step, sync)
    acts = [torch.profiler.ProfilerActivity.CPU]
    if opts.device.startswith("cuda"):
        acts.append(torch.profiler.ProfilerActivity.CUDA)
    prof = torch.profiler.profile(activities=acts)
    prof.start()
    steps(10, step, sync)
    prof.stop()
    after = steps(100, step, sync)
    print("PROFILER_AFTER " + json.dumps({"before_ms": before, "after_ms": after, "ratio": after / before}))


if __name__ == "__main__":
    main()
