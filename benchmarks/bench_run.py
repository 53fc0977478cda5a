"""Capture overhead: `inspectc run` against plain `python` and `TORCH_TRACE=dir python`.

Each round runs the same script three ways with a cold Inductor cache (a fresh cache folder
per run), alternating the order between rounds so drift hits all three alike. Prints the
median wall time of each and the ratios to plain python. Target: inspectc <= 1.03x plain.

    python benchmarks/bench_run.py [--rounds 3] [--script samples/mlp_train.py -- --steps 5]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def timed(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{proc.stderr[-2000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--script", default=str(ROOT / "samples" / "graph_breaks.py"))
    parser.add_argument("args", nargs="*")
    opts = parser.parse_args()
    inspectc = [str(Path(sys.executable).parent / "inspectc")]
    if not Path(inspectc[0]).exists():
        inspectc = [sys.executable, "-m", "inspectc"]
    work = Path(tempfile.mkdtemp(prefix="bench-run-"))
    variants = {
        "python": lambda d: [sys.executable, opts.script, *opts.args],
        "TORCH_TRACE python": lambda d: [sys.executable, opts.script, *opts.args],
        "inspectc run": lambda d: [
            *inspectc,
            "run",
            "-q",
            "-o",
            str(d / "r.inspectc"),
            opts.script,
            *opts.args,
        ],
    }
    times: dict[str, list[float]] = {name: [] for name in variants}
    names = list(variants)
    try:
        for i in range(opts.rounds):
            order = names[i % 3 :] + names[: i % 3]
            for name in order:
                d = work / f"{i}-{name.replace(' ', '_')}"
                d.mkdir()
                env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(d / "cache"))
                if name.startswith("TORCH_TRACE"):
                    env["TORCH_TRACE"] = str(d / "trace")
                times[name].append(timed(variants[name](d), env))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    base = statistics.median(times["python"])
    print(f"script: {opts.script} {' '.join(opts.args)}   rounds: {opts.rounds}, cold Inductor cache")
    print(f"{'variant':<22}{'median s':>10}{'min s':>9}{'max s':>9}{'ratio':>8}")
    for name in names:
        t = times[name]
        print(
            f"{name:<22}{statistics.median(t):>10.2f}{min(t):>9.2f}{max(t):>9.2f}{statistics.median(t) / base:>8.3f}"
        )


if __name__ == "__main__":
    main()
