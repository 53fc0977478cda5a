"""Cost of ``inspectc accuracy`` against one ``inspectc run`` of the same script.

Each command runs as a subprocess with its own empty Inductor cache (so each compiles for
real, as a first run would), on samples/accuracy_fault.py: inference without the fault (no
divergence: the check alone), training with dropout (forward and backward checked), and the
planted fault (check plus stage bisection, CompilerBisector and node localisation). Prints
wall seconds (n runs, min and max) and the ratio of medians; target: accuracy <= 5x run.

    python benchmarks/bench_accuracy.py [--repeat N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "samples" / "accuracy_fault.py"
CASES = {
    "inference": ["--dim", "256"],
    "train+dropout": ["--dim", "256", "--train", "2", "--dropout", "0.3"],
    "fault": ["--dim", "256", "--fault"],
}


def _inspectc() -> list[str]:
    script = Path(sys.executable).parent / "inspectc"
    return [str(script)] if script.exists() else [sys.executable, "-m", "inspectc"]


def timed(command: str, args: list[str]) -> float:
    with tempfile.TemporaryDirectory(prefix="bench-acc-") as tmp:
        env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(Path(tmp) / "cache"))
        start = time.perf_counter()
        subprocess.run(
            [*_inspectc(), command, "-q", "-o", str(Path(tmp) / "r.inspectc"), str(SAMPLE), *args],
            env=env,
            check=True,
            capture_output=True,
        )
        return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=1)
    opts = parser.parse_args()
    print(f"{'case':<15} {'run s (n, min-max)':<24} {'accuracy s (n, min-max)':<26} ratio")
    for name, args in CASES.items():
        runs = [timed("run", args) for _ in range(opts.repeat)]
        accs = [timed("accuracy", args) for _ in range(opts.repeat)]
        r, a = statistics.median(runs), statistics.median(accs)
        print(
            f"{name:<15} {r:6.1f} ({len(runs)}, {min(runs):.1f}-{max(runs):.1f}){'':<8}"
            f" {a:6.1f} ({len(accs)}, {min(accs):.1f}-{max(accs):.1f}){'':<8} {a / r:4.1f}x"
        )


if __name__ == "__main__":
    main()
