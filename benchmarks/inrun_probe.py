"""Why does a kernel run slower (or faster) in the user's loop than its ``inspectc repro``?

    python benchmarks/inrun_probe.py --out probe.json [--only REGEX] [--max 24]

One process, the ``samples/timm_resnet.py`` resnet18 workload (inference and training steps, as
``benchmarks/inrun_trace.py``) compiled with torch.compile. Every Triton kernel object of the
loaded output code is wrapped to keep the arguments of its first launch in a step. Then, per
kernel (the same compiled object, the same launcher):

  in_step   median device time of its launches over 10 profiled steps (the in-run figure)
  same      the kernel alone on the very tensors of the step, a cuDNN convolution and a sort
            between launches (the repro's ``mixed`` state, the run's own tensors)
  clone     the same on fresh copies of those tensors (the repro's situation: new allocations)
  idle      the run's tensors, GPU synchronised and ~40 µs idle before each launch, nothing else

``same`` near ``in_step`` and ``clone`` far: the tensors (their placement) make the difference;
``same`` far from ``in_step``: what runs before the kernel in the step does. CUPTI device time
under torch.profiler throughout, 100 launches a figure.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from inrun_trace import workload  # noqa: E402


class Keeper:
    """Wraps a kernel's ``run``: keeps the first launch's arguments of the current step."""

    def __init__(self, kernel) -> None:  # noqa: ANN001
        self.kernel, self.args, self.kwargs, self.armed = kernel, None, None, False

    def run(self, *args, **kwargs):  # noqa: ANN002, ANN003, ANN201
        if self.armed:
            self.args, self.kwargs, self.armed = args, kwargs, False
        return self.kernel.run(*args, **kwargs)

    def __getattr__(self, name: str):  # noqa: ANN204
        return getattr(self.kernel, name)


def device_medians(prof, names: set[str]) -> dict[str, list[float]]:  # noqa: ANN001
    out: dict[str, list[float]] = {}
    for e in prof.events():
        if str(e.device_type).endswith("CUDA") and e.name in names and e.time_range.elapsed_us() > 0:
            out.setdefault(e.name, []).append(e.time_range.elapsed_us())
    return out


def profiled(name: str, batch) -> float | None:  # noqa: ANN001
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        batch()
        torch.cuda.synchronize()
    got = device_medians(prof, {name}).get(name)
    return round(statistics.median(got), 3) if got else None


def others():  # noqa: ANN201 - a cuDNN convolution and a sort, as the repro's mixed state
    x = torch.randn(8, 64, 56, 56, device="cuda")
    w = torch.randn(64, 64, 3, 3, device="cuda")
    keys = torch.randn(1 << 18, device="cuda")

    def run() -> None:
        torch.nn.functional.conv2d(x, w, padding=1)
        torch.sort(keys)

    return run


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--only", default="")
    p.add_argument("--max", type=int, default=24)
    p.add_argument("--reps", type=int, default=100)
    opts = p.parse_args()
    from torch._inductor.codecache import PyCodeCache

    phases = workload("resnet_sample", 10)
    for _phase, fn in phases:
        for _ in range(3):
            fn()
    torch.cuda.synchronize()
    keepers: dict[str, Keeper] = {}
    for mod in list(PyCodeCache.modules):
        for name, obj in list(vars(mod).items()):
            if name.startswith("triton_") and callable(getattr(obj, "run", None)):
                keepers[name] = Keeper(obj)
                setattr(mod, name, keepers[name])
    print(
        f"{len(keepers)} kernels wrapped, launcher types:",
        sorted({type(k.kernel).__name__ for k in keepers.values()}),
        flush=True,
    )
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _phase, fn in phases:
            for _ in range(10):
                for k in keepers.values():
                    k.armed = True
                fn()
        torch.cuda.synchronize()
    in_step = device_medians(prof, set(keepers))
    picked = [n for n in keepers if re.search(opts.only, n) and keepers[n].args is not None]
    picked = sorted(picked, key=lambda n: -statistics.median(in_step.get(n, [0])))[: opts.max]
    between = others()
    stream = torch.cuda.current_stream().cuda_stream
    rows = []
    for name in picked:
        k = keepers[name]
        args, kwargs = list(k.args), dict(k.kwargs)
        kwargs["stream"] = stream
        clones = [
            torch.empty_strided(a.size(), a.stride(), dtype=a.dtype, device=a.device).copy_(a)
            if isinstance(a, torch.Tensor)
            else a
            for a in args
        ]
        reps = opts.reps

        def mixed(use, reps=reps, k=k, kwargs=kwargs):  # noqa: ANN001, ANN202
            def batch() -> None:
                for _ in range(reps):
                    between()
                    k.kernel.run(*use, **kwargs)

            return batch

        def idle(reps=reps, k=k, args=args, kwargs=kwargs):  # noqa: ANN202
            def batch() -> None:
                for _ in range(reps):
                    torch.cuda.synchronize()
                    t0 = time.perf_counter()
                    while time.perf_counter() - t0 < 40e-6:
                        pass
                    k.kernel.run(*args, **kwargs)

            return batch

        row = {
            "name": name,
            "in_step_us": round(statistics.median(in_step[name]), 3) if name in in_step else None,
            "in_step_n": len(in_step.get(name, [])),
            "same_us": profiled(name, mixed(args)),
            "clone_us": profiled(name, mixed(clones)),
            "idle_us": profiled(name, idle()),
            "ptr_mod_2mib": [a.data_ptr() % (2 << 20) for a in args if isinstance(a, torch.Tensor)],
            "launcher": type(k.kernel).__name__,
        }
        rows.append(row)
        print(json.dumps(row), flush=True)
        del clones
    Path(opts.out).write_text(json.dumps(rows, indent=1))
    print("| kernel | in step | same | clone | idle |\n|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['name'][:70]} | {r['in_step_us']} | {r['same_us']} | {r['clone_us']} | {r['idle_us']} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
