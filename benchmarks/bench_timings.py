"""Kernel-timing overhead: a 200-step training loop under `inspectc run`, timings on vs off.

Both variants run under inspectc (same capture, same warm Inductor cache), alternating, so
the ratio isolates the profiler windows. The script times its own loop (compile excluded:
the first step runs before the clock starts). Target: timings on <= 1.05x timings off.

    python benchmarks/bench_timings.py [--rounds 5] [--steps 200] [--width 256]
    python benchmarks/bench_timings.py --accuracy [--models block,resnet18]   # CUDA: timing_accuracy.py
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

LOOP = textwrap.dedent(
    """
    import sys, time, torch
    from torch import nn
    steps, width = int(sys.argv[1]), int(sys.argv[2])
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(width, 2 * width), nn.GELU(), nn.LayerNorm(2 * width),
                          nn.Linear(2 * width, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    step = torch.compile(model)
    x, y = torch.randn(64, width), torch.randint(0, 10, (64,))
    def one():
        opt.zero_grad()
        nn.functional.cross_entropy(step(x), y).backward()
        opt.step()
    one()  # compiles forward and backward
    t0 = time.perf_counter()
    for _ in range(steps - 1):
        one()
    print(f"LOOP {time.perf_counter() - t0:.6f}")
    """
)


def run(cmd: list[str], env: dict[str, str]) -> float:
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(proc.stderr[-2000:])
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("LOOP ")][-1]
    return float(line.split()[1])


def main() -> None:
    if "--accuracy" in sys.argv[1:]:  # in-run vs isolated vs torch.profiler, on CUDA
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from timing_accuracy import main as accuracy

        accuracy([a for a in sys.argv[1:] if a != "--accuracy"])
        return
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--width", type=int, default=256)
    opts = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-timings-"))
    script = work / "loop.py"
    script.write_text(LOOP)
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(work / "cache"))
    base = [sys.executable, "-m", "inspectc", "run", "-q"]
    variants = {
        "timings off": [*base, "--no-timings", "-o", str(work / "off.inspectc")],
        "timings on (1:10)": [*base, "-o", str(work / "on.inspectc")],
    }
    args = [str(script), str(opts.steps), str(opts.width)]
    for cmd in variants.values():  # warm the cache for both
        run([*cmd, *args], env)
    times: dict[str, list[float]] = {name: [] for name in variants}
    for i in range(opts.rounds):
        names = list(variants) if i % 2 == 0 else list(reversed(variants))
        for name in names:
            times[name].append(run([*variants[name], *args], env))
    base_t = statistics.median(times["timings off"])
    print(
        f"{opts.steps}-step loop, width {opts.width}, {opts.rounds} alternating rounds (loop time, compile excluded)"
    )
    print(f"{'variant':<20}{'median s':>10}{'min s':>9}{'max s':>9}{'ratio':>8}")
    for name, t in times.items():
        print(
            f"{name:<20}{statistics.median(t):>10.3f}{min(t):>9.3f}{max(t):>9.3f}{statistics.median(t) / base_t:>8.3f}"
        )


if __name__ == "__main__":
    main()
