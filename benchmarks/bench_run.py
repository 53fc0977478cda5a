"""Capture overhead: `inspectc run` against plain `python` and `TORCH_TRACE=dir python`.

Each round runs the same script four ways (plain, TORCH_TRACE, `inspectc run`, `inspectc run
--no-timings`) with a cold Inductor cache (a fresh cache folder per run), rotating the order
between rounds so drift hits all alike. Prints, per variant, the median wall time and the
median CPU time (user + sys of the run and every process it waited for: g++, compile workers;
steadier than wall time on a shared machine), their ratios to plain python, and the ratios the
targets name, also as the median of each round's own ratio (runs of one round are minutes
apart, so that one follows the machine's load better). Targets (issue 23): inspectc run <= 1.05x plain (samples/mlp_train.py, ~14 s
cold on two cores), --no-timings about TORCH_TRACE's cost.

--breakdown adds two runs of plain python with one of capture's Inductor switches each
(`cpp.enable_kernel_profile`: named C++ kernel ranges that kernel timings read, and
`trace.provenance_tracking_level=1`: fusion groups), so the table shows what torch itself
spends on the data capture asks for.

--loop: the training loop of benchmarks/loop_step.py under plain python and `inspectc run`; it
times its own steps after capture's timing window has closed. Target: within 2% of plain.

    python benchmarks/bench_run.py [--rounds 3] [--breakdown] [--script samples/mlp_train.py -- --steps 5]
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
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def timed(cmd: list[str], env: dict[str, str]) -> float:
    return timed_cpu(cmd, env)[0]


def timed_cpu(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall s, CPU s): CPU is user + sys of the command and the processes it waited for."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{proc.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, cpu


# plain python with one of capture's Inductor switches (--breakdown)
_WITH_SWITCH = (
    "import runpy, sys; import torch._inductor.config as c; {set}; "
    "sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__')"
)


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
    overhead = _logging_overhead(work / "r.inspectc")
    if overhead is not None:  # torch's own account: payloads built and handed to the handlers
        print(f"structured logging (torch's compilation_metrics, all compiles): {overhead:.3f} s")
    print(f"{'cumulative s':>12}  function")
    for cumulative, where in sorted(rows, reverse=True)[:25]:
        print(f"{cumulative:>12.3f}  {where}")


def _logging_overhead(report: Path) -> float | None:
    """Sum of ``structured_logging_overhead_s`` over the report's compilation metrics events."""
    import sqlite3

    try:
        db = sqlite3.connect(f"file:{report}?mode=ro", uri=True)
        rows = db.execute(
            "SELECT metadata FROM events WHERE name IN ('compilation_metrics', 'bwd_compilation_metrics')"
        ).fetchall()
        db.close()
    except sqlite3.Error:
        return None
    total = 0.0
    for (meta,) in rows:
        for record in json.loads(meta).values():
            if isinstance(record, dict) and isinstance(record.get("structured_logging_overhead_s"), float):
                total += record["structured_logging_overhead_s"]
    return total


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--script", default=str(ROOT / "samples" / "mlp_train.py"))
    parser.add_argument(
        "--breakdown", action="store_true", help="also plain python with each Inductor switch of capture"
    )
    parser.add_argument("--only", default="", help="comma-separated variants (python is always run)")
    parser.add_argument("-v", "--verbose", action="store_true", help="print each run as it ends")
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
    if opts.breakdown:
        for name, setting in (
            ("python +cpp ranges", "c.cpp.enable_kernel_profile = True"),
            ("python +provenance", "c.trace.provenance_tracking_level = 1"),
        ):
            code = _WITH_SWITCH.format(set=setting)
            variants[name] = lambda d, code=code: [sys.executable, "-c", code, opts.script, *opts.args]
    if opts.only:  # e.g. --only "python,inspectc run": more rounds of the pair the target names
        keep = {"python", *(n.strip() for n in opts.only.split(","))}
        variants = {n: v for n, v in variants.items() if n in keep}
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in variants}
    names = list(variants)
    load = [os.getloadavg()[0]]
    try:
        for i in range(opts.rounds):
            order = names[i % len(names) :] + names[: i % len(names)]
            for name in order:
                d = work / f"{i}-{name.replace(' ', '_').replace('+', '')}"
                d.mkdir()
                env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(d / "cache"))
                if name.startswith("TORCH_TRACE"):
                    env["TORCH_TRACE"] = str(d / "trace")
                times[name].append(timed_cpu(variants[name](d), env))
                load.append(os.getloadavg()[0])
                if opts.verbose:
                    wall, cpu = times[name][-1]
                    print(f"  round {i} {name:<22} wall {wall:6.2f} s  CPU {cpu:6.2f} s  load {load[-1]:.1f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    wall = {n: statistics.median(w for w, _ in t) for n, t in times.items()}
    cpu = {n: statistics.median(c for _, c in t) for n, t in times.items()}
    print(
        f"script: {opts.script} {' '.join(opts.args)}   rounds: {opts.rounds}, cold Inductor cache, "
        f"{os.cpu_count()} CPUs, 1-min load {min(load):.1f}-{max(load):.1f}"
    )
    print(
        f"{'variant':<24}{'wall s':>8}{'min':>8}{'max':>8}{'ratio':>8}"
        f"{'CPU s':>9}{'min':>8}{'max':>8}{'ratio':>8}"
    )
    for name in names:
        w = [x for x, _ in times[name]]
        c = [x for _, x in times[name]]
        print(
            f"{name:<24}{wall[name]:>8.2f}{min(w):>8.2f}{max(w):>8.2f}{wall[name] / wall['python']:>8.3f}"
            f"{cpu[name]:>9.2f}{min(c):>8.2f}{max(c):>8.2f}{cpu[name] / cpu['python']:>8.3f}"
        )
    for top, base, aim in (
        ("inspectc run", "python", "target <= 1.05"),
        ("inspectc --no-timings", "TORCH_TRACE python", "TORCH_TRACE's own cost"),
    ):
        if top not in wall or base not in wall:
            continue
        paired_wall = statistics.median(t[0] / b[0] for t, b in zip(times[top], times[base], strict=True))
        paired_cpu = statistics.median(t[1] / b[1] for t, b in zip(times[top], times[base], strict=True))
        print(
            f"{top} / {base}: wall {wall[top] / wall[base]:.3f}, CPU {cpu[top] / cpu[base]:.3f}"
            f" (ratio of medians of {opts.rounds}); median of the rounds' own ratios:"
            f" wall {paired_wall:.3f}, CPU {paired_cpu:.3f} ({aim})"
        )


if __name__ == "__main__":
    main()
