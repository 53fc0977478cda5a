"""Time and peak memory of every reader on hostile sizes (issue 38): each must finish within
60 s and 1 GB, or stop at a documented limit with one line and exit 2.

Builds the inputs with ``make_hostile.py`` (once, in ``--dir``), then runs the installed CLI
on each as a child process and prints one row per case: exit status, wall seconds, the
child's peak RSS (``wait4``'s ``ru_maxrss``) and the first line it wrote to stderr. The
TUI's load path (``inspectc_tui.data.load_report``, what the app's loader thread runs) is
timed the same way. Say the machine's load beside the figures (it is printed too).

    python benchmarks/bench_hostile.py --dir /tmp/hostile [--only share] [--n 1000000]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import make_hostile

HERE = Path(__file__).resolve().parent
CLI = [str(Path(sys.executable).with_name("inspectc"))]
TUI_LOAD = [  # what the TUI's loader thread runs; an InspectcError is its one line (LoadFailed)
    sys.executable,
    "-c",
    "import sys\nfrom inspectc.errors import InspectcError\nfrom inspectc_tui.data import load_report\n"
    "try:\n    d = load_report(sys.argv[1])\nexcept InspectcError as e:\n"
    "    sys.exit(print(f'inspectc: {e}', file=sys.stderr) or 2)\nprint(len(d.frames), len(d.kernels))",
]


def cases(inputs: dict[str, Path], out: Path) -> list[tuple[str, list[str]]]:
    found: list[tuple[str, list[str]]] = []
    for name in ("kernels", "frames", "kernels_under", "frames_under"):
        report = str(inputs[name])
        found += [(f"summary {name}", [*CLI, "summary", report])]
        found += [(f"kernels {name}", [*CLI, "kernels", report])]
        found += [(f"export {name}", [*CLI, "export", report, "-o", str(out / f"{name}.json")])]
        found += [(f"tui load {name}", [*TUI_LOAD, report])]
    found += [
        ("import recompiles", [*CLI, "import", str(inputs["recompiles"]), "-o", str(out / "rec.inspectc")])
    ]
    for name in ("bombs", "bombs_many", "bombs_under"):
        found += [(f"share {name}", [*CLI, "share", "-o", str(out / name), str(inputs[name])])]
    for name in ("bundle", "bundle_many", "bundle_under"):
        found += [(f"share --check {name}", [*CLI, "share", "--check", str(inputs[name])])]
    return found


def measure(command: list[str], timeout: float) -> tuple[int | None, float, float, float, str]:
    """(exit status or None when killed at *timeout*, wall seconds, CPU seconds, peak RSS in MB,
    first stderr line). CPU seconds say what wall time a quiet machine would show."""
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=err)
        deadline = start + timeout
        status = rusage = None
        while status is None:
            pid, raw, usage = os.wait4(child.pid, os.WNOHANG)
            if pid:
                status, rusage = os.waitstatus_to_exitcode(raw), usage
            elif time.perf_counter() > deadline:
                child.kill()
                _, _, rusage = os.wait4(child.pid, 0)
                break
            else:
                time.sleep(0.05)
        child.returncode = status  # already reaped
        seconds = time.perf_counter() - start
        err.seek(0)
        first = (err.read().decode(errors="replace").strip().splitlines() or [""])[0]
    cpu = rusage.ru_utime + rusage.ru_stime if rusage else 0.0
    return status, seconds, cpu, (rusage.ru_maxrss / 1024 if rusage else 0.0), first


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "inspectc-hostile")
    parser.add_argument("--n", type=int, default=make_hostile.MILLION)
    parser.add_argument("--only", default="", help="run only the cases whose name contains this")
    parser.add_argument("--timeout", type=float, default=300.0)
    args = parser.parse_args()
    inputs = _named(args.dir)
    if not all(path.exists() for path in inputs.values()):
        make_hostile.build_all(args.dir, args.n)
    out = Path(tempfile.mkdtemp(prefix="bench-hostile-"))
    try:
        print(f"load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} CPUs; inputs in {args.dir}")
        print(f"| {'case':28} | exit | wall s | CPU s | peak MB | first line on stderr |")
        print(f"| {'-' * 28} | ---- | ------ | ----- | ------- | --- |")
        for name, command in cases(inputs, out):
            if args.only and args.only not in name:
                continue
            status, seconds, cpu, peak, first = measure(command, args.timeout)
            shown = "killed" if status is None else str(status)
            print(
                f"| {name:28} | {shown:>4} | {seconds:6.1f} | {cpu:5.1f} | {peak:7.0f} | {first[:110]} |",
                flush=True,
            )
    finally:
        shutil.rmtree(out, ignore_errors=True)


def _named(folder: Path) -> dict[str, Path]:
    """The inputs build_all wrote in *folder*, by the names it gives them."""
    names = {
        "kernels": "kernels.inspectc",
        "frames": "frames.inspectc",
        "recompiles": "recompiles.log.gz",
        "bombs": "bombs.inspectc",
        "bundle": "bombs.zip",
        "bombs_many": "bombs_many.inspectc",
        "bundle_many": "bombs_many.zip",
        "bombs_under": "bombs_under.inspectc",
        "bundle_under": "bombs_under.zip",
        "kernels_under": "kernels_under.inspectc",
        "frames_under": "frames_under.inspectc",
    }
    return {name: folder / file for name, file in names.items()}


if __name__ == "__main__":
    main()
