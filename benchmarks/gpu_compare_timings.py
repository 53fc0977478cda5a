"""GPU check of inspectc's kernel timings against a hand-run torch.profiler (issue 3).

Three steps, each its own process so the two measurements do not disturb each other:

    python benchmarks/gpu_compare_timings.py workload --model resnet18          # run under inspectc run
    python benchmarks/gpu_compare_timings.py profile --model resnet18 -o p.json # hand-run torch.profiler
    python benchmarks/gpu_compare_timings.py compare REPORT p.json              # table + verdict

The profile step compiles the same model the same way (same Inductor cache, so the same
kernels), warms up, then records CUDA activity for N steps and averages device time per
kernel name. compare matches kernels by name and reports the ratio for kernels whose mean
is over 10 us; the target is within 15%.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path


def build(model_name: str, device: str):  # noqa: ANN201 - returns (callable, inputs)
    import torch

    torch.manual_seed(0)
    if model_name in ("resnet18", "resnext26ts"):
        import timm

        model = timm.create_model(model_name, pretrained=False).to(device).eval()
        x = torch.randn(16, 3, 224, 224, device=device)
        return model, (x,)
    if model_name == "bert":
        from transformers import BertConfig, BertModel

        cfg = BertConfig(
            hidden_size=256,
            num_hidden_layers=4,
            num_attention_heads=4,
            intermediate_size=1024,
            vocab_size=1000,
        )
        model = BertModel(cfg).to(device).eval()
        ids = torch.randint(0, 1000, (16, 128), device=device)
        return model, (ids,)
    raise SystemExit(f"unknown model {model_name}")


def run_steps(model, inputs, steps: int) -> None:  # noqa: ANN001
    import torch

    compiled = torch.compile(model)
    with torch.no_grad():
        for _ in range(steps):
            compiled(*inputs)
    torch.cuda.synchronize()
    return compiled


def cmd_workload(opts: argparse.Namespace) -> None:
    model, inputs = build(opts.model, "cuda")
    run_steps(model, inputs, opts.steps)
    print(f"{opts.model}: {opts.steps} compiled steps done")


def cmd_profile(opts: argparse.Namespace) -> None:
    import torch
    from torch.profiler import ProfilerActivity, profile

    model, inputs = build(opts.model, "cuda")
    compiled = run_steps(model, inputs, 5)
    with torch.no_grad(), profile(activities=[ProfilerActivity.CUDA, ProfilerActivity.CPU]) as prof:
        for _ in range(opts.steps):
            compiled(*inputs)
        torch.cuda.synchronize()
    totals: dict[str, list[float]] = defaultdict(list)
    for ev in prof.events():
        if ev.device_type == torch.autograd.DeviceType.CUDA:
            totals[ev.name].append(ev.device_time_total)  # us, one kernel launch
    out = {name: {"calls": len(v), "mean_us": sum(v) / len(v)} for name, v in totals.items()}
    Path(opts.output).write_text(json.dumps(out, indent=1))
    print(f"profiled {opts.steps} steps: {len(out)} kernel names -> {opts.output}")


def cmd_compare(opts: argparse.Namespace) -> None:
    from inspectc.store.open import open_report

    hand = json.loads(Path(opts.profile).read_text())
    rows = []
    with open_report(opts.report) as report:
        for k in report.kernels:
            if k.time is None or k.language != "triton":
                continue
            ref = hand.get(k.name)
            if ref is None:
                continue
            rows.append((k.name, k.time.calls, k.time.mean_us, ref["mean_us"]))
        timed = sum(1 for k in report.kernels if k.time)
        total = len(report.kernels)
    big = [r for r in rows if r[3] > 10.0]
    within = [r for r in big if abs(r[2] / r[3] - 1) <= 0.15]
    print(f"{'kernel':<58}{'calls':>6}{'inspectc us':>13}{'profiler us':>13}{'ratio':>8}")
    for name, calls, mine, ref in sorted(rows, key=lambda r: -r[3])[:40]:
        print(f"{name[:57]:<58}{calls:>6}{mine:>13.2f}{ref:>13.2f}{mine / ref:>8.3f}")
    print(
        f"\n{total} kernels in the report, {timed} timed, {len(rows)} matched by name; "
        f"{len(big)} over 10 us, {len(within)} of them within 15% of the hand-run profiler"
    )
    if big and len(within) != len(big):
        sys.exit(1)


def main() -> None:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="cmd", required=True)
    for name in ("workload", "profile"):
        p = sub.add_parser(name)
        p.add_argument("--model", default="resnet18")
        p.add_argument("--steps", type=int, default=20)
        if name == "profile":
            p.add_argument("-o", "--output", required=True)
    p = sub.add_parser("compare")
    p.add_argument("report")
    p.add_argument("profile")
    opts = parser.parse_args()
    {"workload": cmd_workload, "profile": cmd_profile, "compare": cmd_compare}[opts.cmd](opts)


if __name__ == "__main__":
    main()
