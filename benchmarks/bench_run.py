"""Capture overhead: `inspectc run` against plain `python` and `TORCH_TRACE=dir python`.

Each round runs the same script four ways (plain, TORCH_TRACE, `inspectc run`, `inspectc run
--no-timings`) with a cold Inductor cache (a fresh cache folder per run), rotating the order
between rounds so drift hits all alike. Prints the median wall time of each and the ratios to
plain python. Targets (issue 16): inspectc run <= 1.05x plain, --no-timings <= 1.03x.

--loop: the training loop of benchmarks/loop_step.py under plain python and `inspectc run`; it
times its own steps after capture's timing window has closed. Target: within 2% of plain.

    python benchmarks/bench_run.py [--rounds 3] [--script samples/mlp_train.py -- --steps 5]
    python benchmarks/bench_run.py --loop [--rounds 3] [-- --model mlp --steps 400]
    python benchmarks/bench_run.py --profile [--script ...]

--profile: one cold `inspectc run` under cProfile; prints where capture's own time goes (the
timing window: profiler start/stop, reading its events; the trace handler; start and stop),
cumulative seconds of the top entries in inspectc.capture and torch.profiler.
"""

from __future__ import annotations

import argparse
import json
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


def loop_step_ms(cmd: list[str], env: dict[str, str]) -> float:
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    found = [line for line in proc.stdout.splitlines() if line.startswith("LOOP ")]
    if proc.returncode != 0 or not found:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{proc.stderr[-2000:]}")
    return float(json.loads(found[-1][5:])["median_ms"])


def loop(opts: argparse.Namespace, inspectc: list[str], work: Path) -> None:
    script = str(ROOT / "benchmarks" / "loop_step.py")
    args = opts.args or ["--model", "mlp", "--steps", "400", "--after", "60"]
    variants = {
        "python": lambda d: [sys.executable, script, *args],
        "inspectc run": lambda d: [*inspectc, "run", "-q", "-o", str(d / "r.inspectc"), script, *args],
    }
    steps: dict[str, list[float]] = {name: [] for name in variants}
    for i in range(opts.rounds):
        for name in list(variants)[i % 2 :] + list(variants)[: i % 2]:
            d = work / f"loop-{i}-{name.replace(' ', '_')}"
            d.mkdir()
            env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(d / "cache"))
            steps[name].append(loop_step_ms(variants[name](d), env))
    base = statistics.median(steps["python"])
    print(
        f"loop: benchmarks/loop_step.py {' '.join(args)}   rounds: {opts.rounds}; step time after the window"
    )
    print(f"{'variant':<22}{'median ms':>10}{'min ms':>9}{'max ms':>9}{'ratio':>8}")
    for name, t in steps.items():
        med = statistics.median(t)
        print(f"{name:<22}{med:>10.3f}{min(t):>9.3f}{max(t):>9.3f}{med / base:>8.3f}")


def profile(opts: argparse.Namespace, work: Path) -> None:
    import pstats

    out = work / "run.prof"
    cmd = [sys.executable, "-m", "cProfile", "-o", str(out), "-m", "inspectc", "run", "-q"]
    cmd += ["-o", str(work / "r.inspectc"), opts.script, *opts.args]
    timed(cmd, dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(work / "cache")))
    stats = pstats.Stats(str(out))
    rows = []
    for (filename, line, name), (_, _, _, cumulative, _) in stats.stats.items():  # type: ignore[attr-defined]
        if "inspectc/capture/" in filename or "torch/profiler/" in filename:
            rows.append((cumulative, f"{Path(filename).name}:{line}({name})"))
    print(f"script: {opts.script} {' '.join(opts.args)}; cProfile of one cold inspectc run")
    print(f"{'cumulative s':>12}  function")
    for cumulative, where in sorted(rows, reverse=True)[:25]:
        print(f"{cumulative:>12.3f}  {where}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--script", default=str(ROOT / "samples" / "graph_breaks.py"))
    parser.add_argument("--loop", action="store_true", help="step time of a training loop after the window")
    parser.add_argument("--profile", action="store_true", help="where capture's own time goes (cProfile)")
    parser.add_argument("args", nargs="*")
    opts = parser.parse_args()
    inspectc = [str(Path(sys.executable).parent / "inspectc")]
    if not Path(inspectc[0]).exists():
        inspectc = [sys.executable, "-m", "inspectc"]
    work = Path(tempfile.mkdtemp(prefix="bench-run-"))
    if opts.loop or opts.profile:
        try:
            if opts.loop:
                loop(opts, inspectc, work)
            else:
                profile(opts, work)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        return
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
        "inspectc --no-timings": lambda d: [
            *inspectc,
            "run",
            "-q",
            "--no-timings",
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
            order = names[i % len(names) :] + names[: i % len(names)]
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
