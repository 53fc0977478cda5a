"""Capture overhead: `inspectc run` against plain `python` and `TORCH_TRACE=dir python`.

Each round runs the same script four ways (plain, TORCH_TRACE, `inspectc run`, `inspectc run
--no-timings`) with a cold Inductor cache (a fresh cache folder per run), rotating the order
between rounds so drift hits all alike. A warm-up round comes first and is not counted:
Inductor keeps its precompiled C++ headers outside the cache folder, per compiler flags, and
the first run of a flag set builds them (seconds of g++). Prints, per variant, the median
wall time and the median CPU time (user + sys of the run and every process it waited for:
g++, compile workers; steadier than wall time on a shared machine), their ratios to the
baseline, and for each target pair the median of the rounds' own ratios with their spread
(min-max; runs of one round are minutes apart, so a round's own ratio follows the machine's
load better) and the 1-minute load average seen. Targets (issue 44): `inspectc run` <= 1.05x
plain on samples/mlp_train.py (~14 s cold on two quiet cores), <= 1.02x on a ~2-minute
script; `--no-timings` <= 1.02x TORCH_TRACE.

--phases runs every variant through benchmarks/phase_probe.py and splits each run into start
(to the script's first line, torch imported, capture started), compile (torch's own compile
seconds), steady (the script's other seconds: its loop, capture's timing window) and exit
(capture's stop, the interpreter's end): the medians per phase, against plain python's.

--breakdown adds runs of plain python with one of capture's Inductor switches each
(`cpp.enable_kernel_profile`: named C++ kernel ranges that kernel timings read;
`trace.provenance_tracking_level=1`: fusion groups; level 2, torch's "basic" provenance), so
the table shows what torch itself spends on the data capture asks for.

--loop: the training loop of benchmarks/loop_step.py under plain python and `inspectc run`; it
times its own steps after capture's timing window has closed. Target: within 2% of plain.

--profile: one cold run of plain python and one of `inspectc run` under cProfile; prints each
one's total and the cumulative seconds of the top entries in inspectc (capture, trace,
store) and torch.profiler, and the torch entries whose time differs most between the two.

    python benchmarks/bench_run.py [--rounds 5] [--phases] [--breakdown] [--script S -- ARGS]
    python benchmarks/bench_run.py --baseline ../main --only "inspectc run"   # before/after, same rounds
    python benchmarks/bench_run.py --loop [--rounds 3] [-- --model mlp --steps 400]
    python benchmarks/bench_run.py --profile [--script ...]
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
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROBE = str(ROOT / "benchmarks" / "phase_probe.py")
PHASES = ("start", "compile", "steady", "exit")
Command = Callable[[Path], list[str]]


def timed(cmd: list[str], env: dict[str, str]) -> float:
    return timed_cpu(cmd, env)[0]


def timed_cpu(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall s, CPU s): CPU is user + sys of the command and the processes it waited for."""
    return _timed(cmd, env)[:2]


def _timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float, float, float]:
    """(wall s, CPU s, start, end): start and end as ``time.time()`` (phases are cut by them)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began, start = time.time(), time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{proc.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, cpu, began, began + elapsed


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


def profile(opts: argparse.Namespace, inspectc: list[str], work: Path) -> None:
    import pstats

    runs = {
        "python": [sys.executable, "-m", "cProfile", "-o", str(work / "python.prof"), opts.script],
        "inspectc run": [
            *(sys.executable, "-m", "cProfile", "-o", str(work / "run.prof"), "-m", "inspectc"),
            *("run", "-q", "-o", str(work / "r.inspectc"), opts.script),
        ],
    }
    stats: dict[str, dict[str, float]] = {}
    print(f"script: {opts.script} {' '.join(opts.args)}; cProfile of one cold run each, load {_load():.1f}")
    for i, (name, cmd) in enumerate(runs.items()):
        wall = timed([*cmd, *opts.args], dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(work / f"cache{i}")))
        prof = pstats.Stats(str(work / ("python.prof" if name == "python" else "run.prof")))
        stats[name] = {
            f"{_short(fn)}:{line}({func})": cumulative
            for (fn, line, func), (_, _, _, cumulative, _) in prof.stats.items()  # type: ignore[attr-defined]
        }
        print(f"{name}: {wall:.2f} s wall under cProfile, {prof.total_tt:.2f} s profiled")  # type: ignore[attr-defined]
    overhead = _logging_overhead(work / "r.inspectc")
    if overhead is not None:  # torch's own account: payloads built and handed to the handlers
        print(f"structured logging (torch's compilation_metrics, all compiles): {overhead:.3f} s")
    own = sorted(
        ((s, w) for w, s in stats["inspectc run"].items() if w.startswith(("inspectc/", "torch/profiler/"))),
        reverse=True,
    )
    print(f"\n{'cumulative s':>12}  inspectc run: capture's own entries")
    for cumulative, where in own[:25]:
        print(f"{cumulative:>12.3f}  {where}")
    base, run = stats["python"], stats["inspectc run"]
    diff = sorted(
        ((run[w] - base.get(w, 0.0), w) for w in run if w.startswith("torch/") and run[w] > 0.2), reverse=True
    )
    print(f"\n{'python s':>9}{'inspectc s':>11}  torch entries that cost more under inspectc run")
    for delta, where in diff[:15]:
        print(f"{base.get(where, 0.0):>9.3f}{run[where]:>11.3f}  {where} (+{delta:.3f})")


def _short(filename: str) -> str:
    """``inspectc/capture/session.py``, ``torch/_inductor/graph.py``: the package path only."""
    parts = Path(filename).parts
    for root in ("inspectc", "torch"):
        if root in parts:
            return "/".join(parts[len(parts) - 1 - parts[::-1].index(root) :])
    return filename


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


def _load() -> float:
    return os.getloadavg()[0]


def variants(opts: argparse.Namespace, inspectc: list[str]) -> dict[str, Command]:
    """name -> command in a run folder; with --phases each runs the script through the probe."""

    def script(d: Path) -> list[str]:
        return (
            [PROBE, str(d / "phases.json"), opts.script, *opts.args]
            if opts.phases
            else [opts.script, *opts.args]
        )

    def run(*flags: str) -> Command:
        return lambda d: [*inspectc, "run", "-q", *flags, "-o", str(d / "r.inspectc"), *script(d)]

    found: dict[str, Command] = {
        "python": lambda d: [sys.executable, *script(d)],
        "TORCH_TRACE python": lambda d: [sys.executable, *script(d)],
        "inspectc run": run(),
        "inspectc --no-timings": run("--no-timings"),
    }
    if opts.breakdown:
        for name, setting in (
            ("python +cpp ranges", "c.cpp.enable_kernel_profile = True"),
            ("python +provenance", "c.trace.provenance_tracking_level = 1"),
            ("python +provenance basic", "c.trace.provenance_tracking_level = 2"),
        ):
            code = _WITH_SWITCH.format(set=setting)
            found[name] = lambda d, code=code: [sys.executable, "-c", code, *script(d)]
    if opts.baseline:  # the same runs of another checkout's inspectc (PYTHONPATH), in the same rounds
        for name in ("inspectc run", "inspectc --no-timings"):
            found[f"{name} @base"] = found[name]
    if opts.only:  # e.g. --only "inspectc run": more rounds of the pair the target names
        keep = {"python", *(n.strip() for n in opts.only.split(","))}
        keep |= {n for n in found if n.startswith("python +")}  # --breakdown's own runs
        keep |= {f"{n} @base" for n in keep}
        if "inspectc --no-timings" in keep:
            keep.add("TORCH_TRACE python")
        found = {n: v for n, v in found.items() if n in keep}
    return found


Sample = dict[str, float]  # wall, cpu, load; with --phases start, compile, steady, exit


def one_run(name: str, command: Command, d: Path, opts: argparse.Namespace) -> Sample:
    d.mkdir()
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(d / "cache"))
    if name.endswith("@base"):
        env["PYTHONPATH"] = opts.baseline
    if name.startswith("TORCH_TRACE"):
        env["TORCH_TRACE"] = str(d / "trace")
    wall, cpu, began, ended = _timed(command(d), env)
    sample = {"wall": wall, "cpu": cpu, "load": _load()}
    if opts.phases:
        stamps = json.loads((d / "phases.json").read_text())
        script_s = stamps["end"] - stamps["torch"]
        sample.update(
            start=stamps["torch"] - began,
            compile=stamps["compile"],
            steady=script_s - stamps["compile"],
            exit=ended - stamps["end"],
        )
    shutil.rmtree(d, ignore_errors=True)  # a cold cache per run; the disk stays small
    return sample


def measure(opts: argparse.Namespace, found: dict[str, Command], work: Path) -> dict[str, list[Sample]]:
    names = list(found)
    for name in names[: len(names) if opts.warmup else 0]:  # builds each flag set's C++ headers
        one_run(name, found[name], work / f"warmup-{names.index(name)}", opts)
    samples: dict[str, list[Sample]] = {name: [] for name in names}
    for i in range(opts.rounds):
        for name in names[i % len(names) :] + names[: i % len(names)]:
            samples[name].append(one_run(name, found[name], work / f"{i}-{names.index(name)}", opts))
            if opts.verbose:
                s = samples[name][-1]
                print(
                    f"  round {i} {name:<24} wall {s['wall']:6.2f} s  CPU {s['cpu']:6.2f} s  load {s['load']:.1f}"
                )
    return samples


def report(opts: argparse.Namespace, samples: dict[str, list[Sample]], load0: float) -> None:
    loads = [load0, *(s["load"] for runs in samples.values() for s in runs)]
    print(
        f"script: {opts.script} {' '.join(opts.args)}   rounds: {opts.rounds} (+{int(opts.warmup)} warm-up), "
        f"cold Inductor cache, {os.cpu_count()} CPUs, 1-min load {min(loads):.1f}-{max(loads):.1f}"
        f" (median {statistics.median(loads):.1f})"
    )
    med = {n: {k: statistics.median(s[k] for s in runs) for k in runs[0]} for n, runs in samples.items()}
    print(
        f"{'variant':<24}{'wall s':>8}{'min':>8}{'max':>8}{'ratio':>8}{'CPU s':>9}{'min':>8}{'max':>8}{'ratio':>8}"
    )
    for name, runs in samples.items():
        w, c = [s["wall"] for s in runs], [s["cpu"] for s in runs]
        print(
            f"{name:<24}{med[name]['wall']:>8.2f}{min(w):>8.2f}{max(w):>8.2f}{med[name]['wall'] / med['python']['wall']:>8.3f}"
            f"{med[name]['cpu']:>9.2f}{min(c):>8.2f}{max(c):>8.2f}{med[name]['cpu'] / med['python']['cpu']:>8.3f}"
        )
    if opts.phases:
        print(f"\n{'phase medians, s':<24}" + "".join(f"{p:>16}" for p in PHASES))
        for name in samples:
            cells = [f"{med[name][p]:>7.2f} ({med[name][p] - med['python'][p]:+5.2f})" for p in PHASES]
            print(f"{name:<24}" + "".join(f"{c:>16}" for c in cells))
        print("(in brackets: against plain python's median)")
    print()
    for top, base, aim in (
        ("inspectc run", "python", "target <= 1.05 on the 14 s script, <= 1.02 on a 2-minute one"),
        ("inspectc --no-timings", "TORCH_TRACE python", "target <= 1.02"),
        ("inspectc run @base", "python", "the baseline checkout"),
        ("inspectc --no-timings @base", "TORCH_TRACE python", "the baseline checkout"),
    ):
        if top not in samples or base not in samples:
            continue
        pairs = list(zip(samples[top], samples[base], strict=True))
        for what in ("wall", "cpu"):
            own = sorted(t[what] / b[what] for t, b in pairs)
            print(
                f"{top} / {base}, {what}: median of the rounds' ratios {statistics.median(own):.3f}"
                f" (min {own[0]:.3f}, max {own[-1]:.3f}, n={len(own)}); ratio of medians"
                f" {med[top][what] / med[base][what]:.3f}" + (f"  [{aim}]" if what == "wall" else "")
            )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--script", default=str(ROOT / "samples" / "mlp_train.py"))
    parser.add_argument("--phases", action="store_true", help="split each run into start/compile/steady/exit")
    parser.add_argument(
        "--breakdown", action="store_true", help="also plain python with each Inductor switch of capture"
    )
    parser.add_argument("--only", default="", help="comma-separated variants (python is always run)")
    parser.add_argument(
        "--baseline", metavar="DIR", help="also run another checkout's inspectc (e.g. a worktree of main)"
    )
    parser.add_argument("--no-warmup", dest="warmup", action="store_false", help="no uncounted first round")
    parser.add_argument("-v", "--verbose", action="store_true", help="print each run as it ends")
    parser.add_argument("--loop", action="store_true", help="step time of a training loop after the window")
    parser.add_argument("--profile", action="store_true", help="where capture's own time goes (cProfile)")
    parser.add_argument("args", nargs="*")
    opts = parser.parse_args()
    if opts.baseline:
        opts.baseline = str(Path(opts.baseline).resolve())
    inspectc = [str(Path(sys.executable).parent / "inspectc")]
    if not Path(inspectc[0]).exists():
        inspectc = [sys.executable, "-m", "inspectc"]
    work = Path(tempfile.mkdtemp(prefix="bench-run-"))
    load0 = _load()
    try:
        if opts.loop:
            loop(opts, inspectc, work)
        elif opts.profile:
            profile(opts, inspectc, work)
        else:
            report(opts, measure(opts, variants(opts, inspectc), work), load0)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
