"""Regenerate the golden reports in samples/reports/ with real capture (needs torch).

Reader tests (TUI, graphviz, share, diff) open these without torch. A golden report keeps
no absolute path of the machine that made it (tests/test_golden.py checks): the checkout
becomes relative (``samples/mlp_train.py``), the venv ``<venv>``, the home ``~``, the
temporary Inductor cache ``<cache>``, the host ``<host>`` (share's copy, with these prefixes
as the private parts). Run from anywhere:

    python samples/make_reports.py            # all
    python samples/make_reports.py sin_sin    # one
"""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

from inspectc.render.share.copy import redacted_copy
from inspectc.render.share.redact import Redactor

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
            relocate(out, cache)


class MachinePaths(Redactor):
    """Replaces this machine's folders (longest first) by names that mean the same anywhere."""

    def __init__(self, folders: dict[str, str]) -> None:
        super().__init__()
        object.__setattr__(self, "_folders", folders)

    @property
    def pattern(self) -> re.Pattern[str]:
        parts = sorted(self._folders, key=len, reverse=True)
        return re.compile("|".join(re.escape(p) for p in parts))

    def _replacement(self, match: re.Match[str]) -> str:
        self.counts["machine folder"] += 1
        return self._folders[match.group(0)]

    def describe(self) -> list[str]:
        return []


def relocate(report: Path, cache: str) -> None:
    """Rewrite *report* in place without this machine's folders."""
    home = os.path.expanduser("~")
    folders = {
        str(ROOT) + os.sep: "",
        str(ROOT): ".",
        sys.prefix: "<venv>",
        os.path.realpath(sys.prefix): "<venv>",
        cache: "<cache>",
        **({home: "~"} if home not in ("", "/", "~") else {}),
    }
    tmp = report.with_suffix(".relocated")
    redacted_copy(report, tmp, MachinePaths(folders))
    db = sqlite3.connect(tmp)
    with db:
        db.execute("DELETE FROM meta WHERE key = 'redaction'")  # not a shared copy: nothing left out
    db.execute("VACUUM")
    db.close()
    tmp.replace(report)


if __name__ == "__main__":
    main()
