"""Import speed: `inspectc import` of a ~100 MB TORCH_TRACE log against tlparse on the same log.

The log is real shared logs (../shared/traces) concatenated and repeated until it reaches
--size-mb, fixed up in nothing (repeated compile ids are fine: the builder merges them). Each
round times, on the same file: plain line reading in Python (the floor for any Python
parser), `tracefile.iter_records` alone (parsing, no report), `inspectc import` (the CLI, as a
user runs it) and `tlparse` (Rust, from PyPI's `tlparse` wheel, writing its HTML report) when
it is installed. Prints the median of each, MB/s, and ratios to tlparse and to line reading.

    python benchmarks/bench_import.py [--size-mb 100] [--rounds 3]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = (
    "simple.log",
    "cache_hit_miss.log",
    "inductor_provenance_jit_log.txt",
    "comp_failure.log",
    "artifacts.log",
    "multi_rank_logs/dedicated_log_torch_trace_rank_1.log",
)


def traces_dir() -> Path:
    for candidate in (ROOT.parent / "shared" / "traces", Path("/work/shared/traces")):
        if candidate.is_dir():
            return candidate
    raise SystemExit("shared TORCH_TRACE logs (../shared/traces) not found")


def build_log(path: Path, size_mb: float) -> int:
    chunk = b""
    for name in SOURCES:
        data = (traces_dir() / name).read_bytes()
        chunk += data if data.endswith(b"\n") else data + b"\n"
    written = 0
    with path.open("wb") as out:
        while written < size_mb * 1e6:
            out.write(chunk)
            written += len(chunk)
    return written


def command(name: str) -> list[str] | None:
    for candidate in (Path(sys.executable).parent / name, shutil.which(name)):
        if candidate and Path(candidate).exists():
            return [str(candidate)]
    return None


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def run(cmd: list[str]) -> None:
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{proc.stderr[-2000:]}")


def read_lines(log: Path) -> int:
    n = 0
    with log.open(encoding="utf-8", errors="replace", newline="\n") as fh:
        for _ in fh:
            n += 1
    return n


def parse_only(log: Path) -> int:
    from inspectc.trace.records import iter_records

    n = 0
    with log.open(encoding="utf-8", errors="replace", newline="\n") as fh:
        for _ in iter_records(fh):
            n += 1
    return n


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size-mb", type=float, default=100.0)
    parser.add_argument("--rounds", type=int, default=3)
    opts = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-import-"))
    try:
        log = work / "big.log"
        size = build_log(log, opts.size_mb)
        inspectc = command("inspectc") or [sys.executable, "-m", "inspectc"]
        tlparse = command("tlparse")
        variants: dict[str, Callable[[], object]] = {
            "read lines (python)": lambda: read_lines(log),
            "tracefile parse only": lambda: parse_only(log),
            "inspectc import": lambda: run(
                [*inspectc, "import", "-q", str(log), "-o", str(work / "r.inspectc")]
            ),
        }
        if tlparse:
            variants["tlparse"] = lambda: run(
                [*tlparse, str(log), "-o", str(work / "tl_out"), "--overwrite", "--no-browser"]
            )
        times: dict[str, list[float]] = {name: [] for name in variants}
        names = list(variants)
        for i in range(opts.rounds):
            for name in names[i % len(names) :] + names[: i % len(names)]:
                times[name].append(timed(variants[name]))
        report_mb = (work / "r.inspectc").stat().st_size / 1e6
    finally:
        shutil.rmtree(work, ignore_errors=True)
    mb = size / 1e6
    base = statistics.median(times["read lines (python)"])
    tl = statistics.median(times["tlparse"]) if "tlparse" in times else None
    print(
        f"log: {mb:.1f} MB of real TORCH_TRACE logs, repeated; rounds: {opts.rounds}; report {report_mb:.1f} MB"
    )
    if tl is None:
        print("tlparse: not installed (pip install tlparse): ratios against line reading only")
    header = f"{'variant':<24}{'median s':>10}{'MB/s':>9}{'vs lines':>10}"
    print(header + (f"{'vs tlparse':>12}" if tl else ""))
    for name in names:
        t = statistics.median(times[name])
        row = f"{name:<24}{t:>10.2f}{mb / t:>9.1f}{t / base:>9.2f}x"
        if tl:
            row += f"{t / tl:>11.2f}x"
        print(row)
    if tl:
        ours = statistics.median(times["inspectc import"])
        print(
            f"inspectc import is {tl / ours:.2f}x as fast as tlparse on this log (time ratio {ours / tl:.2f})"
        )


if __name__ == "__main__":
    main()
