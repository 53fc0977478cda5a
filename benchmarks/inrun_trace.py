"""Every kernel launch of a workload as CUPTI saw it: duration, grid, block, the GPU's idle gap
before it and how long after its host launch it started (was the GPU behind?).

    python benchmarks/inrun_trace.py --out launches.json [--workload resnet_sample|block|resnet18]

The workloads are the ones ``inspectc run`` measured (``samples/timm_resnet.py``'s inference and
training steps; ``benchmarks/loop_step.py``'s models), compiled with torch.compile and profiled
for ``--steps`` calls after three warm-up calls, without inspectc. Used to find out why a
``repro`` time differs from the in-run median (benchmarks/repro_resnet18_h200.md).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))


def workload(name: str, steps: int):  # noqa: ANN201 - (phase, callable) pairs
    if name == "resnet_sample":
        import timm

        torch.manual_seed(0)
        model = timm.create_model("resnet18", pretrained=False, num_classes=10).cuda()
        compiled = torch.compile(model)
        images = torch.randn(8, 3, 96, 96, device="cuda")
        labels = torch.randint(0, 10, (8,), device="cuda")
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

        def infer() -> None:
            model.eval()
            with torch.no_grad():
                compiled(images)

        def train() -> None:
            model.train()
            loss = torch.nn.functional.cross_entropy(compiled(images), labels)
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)

        return [("inference", infer), ("training", train)]
    from loop_step import make

    net, x, y = make(name, "cuda")
    opt2 = torch.optim.SGD(net.parameters(), lr=0.01)
    compiled2 = torch.compile(net)

    def step() -> None:
        opt2.zero_grad(set_to_none=True)
        torch.nn.functional.cross_entropy(compiled2(x), y).backward()
        opt2.step()

    return [("training", step)]


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--workload", default="resnet_sample")
    p.add_argument("--steps", type=int, default=10)
    opts = p.parse_args()
    from torch.profiler import ProfilerActivity, profile

    rows = []
    for phase, fn in workload(opts.workload, opts.steps):
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            for _ in range(opts.steps):
                fn()
            torch.cuda.synchronize()
        path = tempfile.mktemp(suffix=".json")
        prof.export_chrome_trace(path)
        with open(path) as fh:
            events = json.load(fh)["traceEvents"]
        os.unlink(path)
        launches = {
            e["args"].get("correlation"): e
            for e in events
            if e.get("cat") == "cuda_runtime" and "Launch" in e.get("name", "")
        }
        kernels = sorted(
            (e for e in events if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")),
            key=lambda e: e["ts"],
        )
        prev_end = None
        for e in kernels:
            a = e.get("args", {})
            launch = launches.get(a.get("correlation"))
            rows.append(
                {
                    "phase": phase,
                    "name": e["name"],
                    "dur": e["dur"],
                    "grid": a.get("grid"),
                    "block": a.get("block"),
                    "gap": None if prev_end is None else round(e["ts"] - prev_end, 3),
                    "after_launch": None
                    if launch is None
                    else round(e["ts"] - (launch["ts"] + launch["dur"]), 3),
                }
            )
            prev_end = e["ts"] + e["dur"] if prev_end is None else max(prev_end, e["ts"] + e["dur"])
    Path(opts.out).write_text(json.dumps(rows))
    by: dict[str, list[float]] = {}
    for r in rows:
        if r["name"].startswith("triton_"):
            by.setdefault(r["phase"] + " " + r["name"], []).append(r["dur"])
    print(f"{len(rows)} device activities, {len(by)} Triton kernels; median µs per launch:")
    for key, durs in sorted(by.items()):
        print(f"  {key}: {statistics.median(durs):.2f} (n={len(durs)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
