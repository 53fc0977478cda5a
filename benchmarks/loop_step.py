"""A compiled training loop that reports its own step times (the workload of bench_run.py --loop).

    python benchmarks/loop_step.py --model mlp --steps 300 --after 60
    inspectc run -q benchmarks/loop_step.py --model block --device cuda --mode reduce-overhead

Prints one JSON line: the median and quartiles of the step times (ms) of steps --after onward,
i.e. after capture's timing window has closed (the window takes the first SKIP + COUNT = 11
calls of each frame by default), and the loss so runs can be compared.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import torch


def make(model: str, device: str) -> tuple[torch.nn.Module, torch.Tensor, torch.Tensor]:
    torch.manual_seed(0)
    if model == "mlp":
        net: torch.nn.Module = torch.nn.Sequential(
            torch.nn.Linear(256, 512), torch.nn.GELU(), torch.nn.LayerNorm(512), torch.nn.Linear(512, 10)
        )
        x, y = torch.randn(64, 256), torch.randint(0, 10, (64,))
    elif model == "block":  # one transformer block: SDPA (a fallback op), LayerNorm, MLP
        net = torch.nn.Sequential(
            torch.nn.TransformerEncoderLayer(512, 8, 2048, batch_first=True, norm_first=True, dropout=0.0),
            torch.nn.Flatten(),
            torch.nn.LazyLinear(10),
        )
        x, y = torch.randn(16, 128, 512), torch.randint(0, 10, (16,))
    elif model == "resnet18":
        import timm

        net = timm.create_model("resnet18", num_classes=10)
        x, y = torch.randn(32, 3, 224, 224), torch.randint(0, 10, (32,))
    else:
        raise SystemExit(f"unknown model {model}")
    net = net.to(device)
    with torch.no_grad():
        net(x[:2].to(device))  # materialise lazy modules before compiling
    return net, x.to(device), y.to(device)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--model", default="mlp", choices=("mlp", "block", "resnet18"))
    p.add_argument("--device", default="cpu")
    p.add_argument("--mode", default=None)
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--after", type=int, default=60)
    opts = p.parse_args()
    net, x, y = make(opts.model, opts.device)
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    compiled = torch.compile(net, mode=opts.mode)
    sync = torch.cuda.synchronize if opts.device.startswith("cuda") else (lambda: None)
    times = []
    loss = torch.zeros(())
    for _ in range(opts.steps):
        sync()
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(compiled(x), y)
        loss.backward()
        opt.step()
        sync()
        times.append((time.perf_counter() - t0) * 1e3)
    tail = sorted(times[opts.after :])
    q = statistics.quantiles(tail, n=4)
    out = {"median_ms": statistics.median(tail), "q1_ms": q[0], "q3_ms": q[2], "steps": len(tail)}
    print("LOOP " + json.dumps({**out, "loss": round(float(loss), 6)}))


if __name__ == "__main__":
    main()
