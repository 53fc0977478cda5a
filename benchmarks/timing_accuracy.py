"""Timing accuracy in one run (issue 16): in-run, isolated and an independent torch.profiler.

    python benchmarks/bench_timings.py --accuracy [--models block,resnet18] [--work DIR]

Per model:
  1. ``inspectc run --kernel-harness`` of this file's ``workload``: inspectc's in-run window
     (the first 11 calls), then, in the same process and on the same compiled model, a
     hand-run torch.profiler over N more calls: device time per kernel name (every launch)
     per call, written to a JSON file;
  2. ``inspectc bench`` of the report (its own process: isolated per-call medians, the
     kernel harness, the device bandwidth).
Then a table per kernel over 10 us: the three per-call figures, their ratios to the
profiler, and the roofline (GB per launch, GB/s, % of the measured copy bandwidth). Target:
every ratio within 15%.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve()
STEPS = 30


def build(name: str):  # noqa: ANN201 - (model, inputs)
    import torch

    torch.manual_seed(0)
    if name == "block":  # pre-norm attention + MLP (nn.TransformerEncoderLayer's eval fast path is one op)
        return _block_class()().cuda().eval(), (torch.randn(32, 256, 1024, device="cuda"),)
    if name in ("resnet18", "resnet18_train"):
        import timm

        model = timm.create_model("resnet18", pretrained=False).cuda()
        return model.train() if name.endswith("_train") else model.eval(), (
            torch.randn(32, 3, 224, 224, device="cuda"),
        )
    raise SystemExit(f"unknown model {name}")


def _block_class():  # noqa: ANN202 - defined lazily: torch is imported only in the workers
    import torch
    from torch import nn
    from torch.nn import functional

    class Block(nn.Module):
        def __init__(self, d: int = 1024, heads: int = 16) -> None:
            super().__init__()
            self.heads = heads
            self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
            self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
            self.fc1, self.fc2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            b, t, d = x.shape
            q, k, v = self.qkv(self.ln1(x)).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
            a = functional.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.proj(a.transpose(1, 2).reshape(b, t, d))
            return x + self.fc2(functional.gelu(self.fc1(self.ln2(x))))

    return Block


def steps(compiled, inputs, n: int, train: bool) -> None:  # noqa: ANN001
    import torch

    if train:  # forward and backward graphs
        for _ in range(n):
            compiled(*inputs).sum().backward()
    else:
        with torch.no_grad():
            for _ in range(n):
                compiled(*inputs)
    torch.cuda.synchronize()


def cmd_workload(opts: argparse.Namespace) -> None:
    import torch
    from torch.profiler import ProfilerActivity, profile

    model, inputs = build(opts.model)
    compiled = torch.compile(model)
    train = opts.model.endswith("_train")
    steps(compiled, inputs, 15, train)  # inspectc's window (skip 1, time 10) closes here
    with profile(activities=[ProfilerActivity.CUDA, ProfilerActivity.CPU]) as prof:
        steps(compiled, inputs, STEPS, train)
    per_name: dict[str, float] = defaultdict(float)
    launches: dict[str, int] = defaultdict(int)
    for ev in prof.events():
        if ev.device_type == torch.autograd.DeviceType.CUDA:
            per_name[ev.name] += ev.device_time_total
            launches[ev.name] += 1
        elif ev.name.startswith("aten::") and ev.cpu_parent is not None:
            parent = ev.cpu_parent.name
            if parent.startswith(("## Call CompiledFxGraph", "Torch-Compiled Region", "CompiledFunction")):
                per_name["extern:" + ev.name[6:]] += ev.device_time_total
    out = {n: {"per_call_us": t / STEPS, "launches": launches.get(n, 0) / STEPS} for n, t in per_name.items()}
    Path(opts.output).write_text(json.dumps(out, indent=1))


def sh(cmd: list[str], env: dict[str, str], log: Path) -> float:
    """Run *cmd* with its output in *log*; its wall time in seconds."""
    t0 = time.perf_counter()
    with open(log, "a") as fh:
        fh.write(f"$ {' '.join(cmd)}\n")
        fh.flush()
        proc = subprocess.run(cmd, env=env, stdout=fh, stderr=subprocess.STDOUT)
    if proc.returncode != 0:
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(cmd)}; see {log}")
    return time.perf_counter() - t0


def op_of(name: str) -> str:
    return name.removeprefix("extern_kernels.").removeprefix("torch.ops.aten.").split(":")[0].split(".")[0]


def compare(model: str, report_path: Path, prof_path: Path) -> list[str]:
    from inspectc.analysis.roofline import roofline
    from inspectc.store.open import open_report

    hand = json.loads(prof_path.read_text())
    lines = [
        f"\n{model}: per call, us (in-run: mean of the window; isolated: inspectc bench median; "
        "profiler: hand-run torch.profiler)",
        f"{'kernel':<46}{'lau':>4}{'in-run':>9}{'isol.':>9}{'prof.':>9}{'in/pr':>7}{'is/pr':>7}"
        f"{'GB':>8}{'GB/s':>8}{'%lim':>6}",
    ]
    within = big = 0
    externs: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    with open_report(report_path) as report:
        bench = report.bench
        limit = bench.run.bandwidth_gbps if bench.run else None
        by_name: dict[str, list] = defaultdict(list)  # one name can be a forward and a backward kernel
        for k in report.kernels:
            iso = bench.primary(k.compile_id, k.graph_kind, k.name)
            if k.language == "extern":
                externs[op_of(k.name)][0] += k.time.mean_us if k.time else 0.0
                externs[op_of(k.name)][1] += iso.median_us if iso else 0.0
            else:
                by_name[k.name].append((k, iso))
        for name, found in sorted(by_name.items()):
            ref = hand.get(name)
            if ref is None or ref["per_call_us"] <= 10.0:
                continue
            inrun = sum(k.time.mean_us if k.time else float("nan") for k, _ in found)
            isol = sum(iso.median_us if iso else float("nan") for _, iso in found)
            r = roofline(found[0][0], bench) if len(found) == 1 else None
            p = ref["per_call_us"]
            ok = abs(inrun / p - 1) <= 0.15 and abs(isol / p - 1) <= 0.15
            big += 1
            within += ok
            gb = f"{r.gb:.4f}" if r and r.gb is not None else "-"
            gbps = f"{r.gbps:.0f}" if r and r.gbps else "-"
            pct = f"{r.fraction * 100:.0f}" if r and r.fraction is not None else "-"
            lines.append(
                f"{name[:45]:<46}{ref['launches']:>4.0f}{inrun:>9.1f}{isol:>9.1f}{p:>9.1f}"
                f"{inrun / p:>7.2f}{isol / p:>7.2f}{gb:>8}{gbps:>8}{pct:>6}" + ("" if ok else "  !")
            )
    for op, (inrun, isol) in sorted(externs.items()):
        ref = hand.get("extern:" + op)
        if ref and ref["per_call_us"] > 10.0:
            p = ref["per_call_us"]
            ok = abs(inrun / p - 1) <= 0.15 and abs(isol / p - 1) <= 0.15
            big += 1
            within += ok
            lines.append(
                f"{'(extern) ' + op:<46}{'':>4}{inrun:>9.1f}{isol:>9.1f}{p:>9.1f}{inrun / p:>7.2f}{isol / p:>7.2f}"
                + ("" if ok else "  !")
            )
    lines.append(
        f"{model}: {within}/{big} kernels over 10 us agree within 15% (in-run and isolated vs profiler);"
        f" copy bandwidth {limit:.0f} GB/s"
        if limit
        else f"{model}: {within}/{big} within 15%; bandwidth not measured"
    )
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", default="block,resnet18,resnet18_train")
    parser.add_argument("--work", default=None)
    parser.add_argument("--budget", default="4")
    opts = parser.parse_args(argv)
    work = Path(opts.work or tempfile.mkdtemp(prefix="timing-accuracy-"))
    work.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(work / "cache"), PYTHONUNBUFFERED="1")
    log = work / "accuracy.log"
    out: list[str] = []
    for model in opts.models.split(","):
        report, prof = work / f"{model}.inspectc", work / f"{model}.profile.json"
        py = sys.executable
        run = [py, "-m", "inspectc", "run", "-q", "--kernel-harness", "-o", str(report)]
        sh([*run, str(HERE), "workload", model, str(prof)], env, log)
        took = sh([py, "-m", "inspectc", "bench", str(report), "--budget", opts.budget], env, log)
        out += compare(model, report, prof)
        out.append(f"{model}: inspectc bench took {took:.1f} s (budget {opts.budget} s per loop)")
        print("\n".join(out[-3:]), flush=True)
    print("\n".join(out))
    (work / "accuracy.txt").write_text("\n".join(out) + "\n")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "workload":
        cmd_workload(argparse.Namespace(model=sys.argv[2], output=sys.argv[3]))
    else:
        main()
