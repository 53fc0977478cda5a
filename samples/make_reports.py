"""Regenerate the golden reports in samples/reports/ with real capture (needs torch).

Reader tests (TUI, graphviz, share, diff) open these without torch. Run from anywhere:

    python samples/make_reports.py            # all
    python samples/make_reports.py sin_sin    # one
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNS = {
    "graph_breaks": ["samples/graph_breaks.py", "--size", "64"],
    "mlp_train": ["samples/mlp_train.py", "--steps", "12"],
    "sin_sin": ["samples/sin_sin.py", "--device", "cpu", "--calls", "12"],
    "accuracy_fault": ["samples/accuracy_fault.py", "--fault", "--dim", "64"],
}
COMMAND = {"accuracy_fault": "accuracy"}  # inspectc accuracy's report (default: inspectc run)


def main() -> None:
    wanted = sys.argv[1:] or list(RUNS)
    with tempfile.TemporaryDirectory(prefix="inspectc-golden-") as cache:
        for name in wanted:
            out = ROOT / "samples" / "reports" / f"{name}.inspectc"
            env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=cache)
            command = COMMAND.get(name, "run")
            fresh = ["--fresh"] if command == "run" else []
            cmd = [sys.executable, "-m", "inspectc", command, "-q", *fresh, "-o", str(out), *RUNS[name]]
            print("+", " ".join(cmd[1:]), flush=True)
            subprocess.run(cmd, cwd=ROOT, env=env, check=True)


if __name__ == "__main__":
    main()
