"""Throughput of inspectc.trace.records on a ~100 MB TORCH_TRACE log.

The log is simple.log from the shared traces (tlparse's test input) repeated to the target
size. Baselines in the same run: reading the file line by line and doing nothing, and the
same loop that also json-decodes every record line (the least any parser must do).

Usage: python benchmarks/bench_tracefile.py [--mb 100] [--trace PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from inspectc.trace.records import iter_records, parse_file  # noqa: E402

_CANDIDATES = (
    Path(__file__).resolve().parents[1] / ".." / "shared" / "traces" / "simple.log",
    Path("/work/shared/traces/simple.log"),
)


def build_log(source: Path, megabytes: int, directory: str) -> Path:
    chunk = source.read_text(encoding="utf-8")
    copies = max(1, megabytes * 1024 * 1024 // len(chunk.encode("utf-8")))
    path = Path(directory) / "big.log"
    with path.open("w", encoding="utf-8") as out:
        for _ in range(copies):
            out.write(chunk)
    return path


def read_lines(path: Path) -> int:
    with path.open(encoding="utf-8", newline="\n") as stream:
        return sum(1 for _ in stream)


def decode_headers(path: Path) -> int:
    count = 0
    with path.open(encoding="utf-8", newline="\n") as stream:
        for line in stream:
            if not line.startswith("\t"):
                json.loads(line[line.find("] {") + 2 :])
                count += 1
    return count


def stream_records(path: Path) -> int:
    with path.open(encoding="utf-8", newline="\n") as stream:
        return sum(1 for _ in iter_records(stream))


def whole_file(path: Path) -> int:
    records, _ = parse_file(path)
    return len(records)


def timed(run: Callable[[Path], int], path: Path, repeat: int) -> tuple[float, int]:
    best, result = float("inf"), 0
    for _ in range(repeat):
        start = time.perf_counter()
        result = run(path)
        best = min(best, time.perf_counter() - start)
    return best, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--trace", type=Path, default=next((p for p in _CANDIDATES if p.exists()), None))
    args = parser.parse_args()
    if args.trace is None or not args.trace.exists():
        sys.exit("simple.log not found: pass --trace PATH")
    with tempfile.TemporaryDirectory() as directory:
        path = build_log(args.trace, args.mb, directory)
        size_mb = os.path.getsize(path) / 1e6
        print(f"log: {size_mb:.1f} MB ({args.trace.name} repeated), best of {args.repeat}")
        print(f"{'method':<30} {'seconds':>8} {'MB/s':>8} {'items':>9} {'vs read':>8}")
        baseline = None
        for name, run in (
            ("read lines (baseline)", read_lines),
            ("json.loads each record", decode_headers),
            ("iter_records (stream)", stream_records),
            ("parse_file (+timestamps)", whole_file),
        ):
            seconds, items = timed(run, path, args.repeat)
            baseline = baseline or seconds
            print(f"{name:<30} {seconds:8.2f} {size_mb / seconds:8.0f} {items:9d} {seconds / baseline:7.1f}x")


if __name__ == "__main__":
    main()
