"""Issue 38: every command that writes ``-o`` takes the lock ``inspectc run`` takes.

On main two ``inspectc import -o same`` at once both exited 0 and the last silently won (only
``run`` had a lock). Now import, merge, accuracy, bench, export, share, repro and graph hold
the ``flock`` on ``.NAME.lock`` beside their output while they write it
(``store/runlock.py``), and a second writer of the same path refuses in one line (exit 2)
naming the holder's pid; the first finishes whole. Two real imports race here, and each other
command meets a held lock; everything runs as the installed CLI under ``ulimit -v``.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT, inspectc_cmd
from receiving import GOLDEN, cli, one_line, with_ranks

from inspectc.store.open import open_report

sys.path.insert(0, str(ROOT / "benchmarks"))
import make_hostile  # noqa: E402

BUSY = "is being written by another inspectc command (pid"


@pytest.mark.slow  # two imports of a 20,000-recompile log: ~18 s
def test_two_imports_of_one_output_refuse_each_other(tmp_path: Path) -> None:
    log = make_hostile.recompile_log(tmp_path / "storm.log.gz", 20_000)  # seconds to import
    out = tmp_path / "same.inspectc"
    first = subprocess.Popen(
        [*inspectc_cmd(), "import", str(log), "-o", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    lock = tmp_path / ".same.inspectc.lock"
    deadline = time.monotonic() + 120
    while not lock.exists() and first.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert first.poll() is None, "the first import ended before the second could start"
    line = one_line(cli("import", str(log), "-o", str(out)))
    assert BUSY in line and f"pid {first.pid})" in line, line
    _, err = first.communicate(timeout=600)
    assert first.returncode == 0, err
    with open_report(out) as report:  # the first import's report, whole
        assert len(report.frames) == 20_001
    assert not lock.exists()  # a clean end removes the lock file


@pytest.fixture
def held(tmp_path: Path):  # type: ignore[no-untyped-def]
    """Hold the run lock of paths in another process, as a live command would."""
    holders: list[subprocess.Popen[str]] = []

    def hold(path: Path) -> int:
        code = (
            "import sys, time\nfrom pathlib import Path\nfrom inspectc.store import runlock\n"
            "lock = runlock.acquire(Path(sys.argv[1]))\nprint('held', flush=True)\ntime.sleep(600)\n"
        )
        child = subprocess.Popen([sys.executable, "-c", code, str(path)], stdout=subprocess.PIPE, text=True)
        assert child.stdout is not None and child.stdout.readline().strip() == "held"
        holders.append(child)
        return child.pid

    yield hold
    for child in holders:
        child.kill()
        child.wait()


def test_every_writer_of_o_meets_the_lock(tmp_path: Path, held) -> None:  # type: ignore[no-untyped-def]
    ranks = with_ranks(tmp_path / "ranks")
    share_dir = tmp_path / "shared"
    share_dir.mkdir()
    cases = {
        "merge": (tmp_path / "m.inspectc", ["merge", *map(str, ranks), "-o", "{o}"]),
        "export": (tmp_path / "e.json", ["export", str(GOLDEN), "-o", "{o}"]),
        "perfetto": (tmp_path / "p.json", ["export", str(GOLDEN), "--perfetto", "{o}"]),
        "repro": (tmp_path / "r.py", ["repro", str(GOLDEN), "1", "-o", "{o}"]),
        "graph": (tmp_path / "g.dot", ["graph", str(GOLDEN), "-o", "{o}"]),
        "share": (share_dir / "graph_breaks.share.zip", ["share", str(GOLDEN), "-o", str(share_dir)]),
        "bench": (tmp_path / "b.inspectc", ["bench", str(GOLDEN), "--yes", "-o", "{o}"]),
    }
    for name, (target, args) in cases.items():
        pid = held(target)
        line = one_line(cli(*(a.format(o=target) for a in args), cwd=tmp_path))
        assert BUSY in line and f"pid {pid})" in line, (name, line)
        assert not target.exists(), name  # nothing was written


@pytest.mark.timeout(600)
def test_accuracy_meets_the_lock_before_its_script_runs(tmp_path: Path, held) -> None:  # type: ignore[no-untyped-def]
    script = tmp_path / "s.py"
    script.write_text("open('ran', 'w').write('yes')\n")
    out = tmp_path / "a.inspectc"
    pid = held(out)
    line = one_line(cli("accuracy", "-o", str(out), str(script), cwd=tmp_path, vmem=8 << 30, timeout=300))
    assert BUSY in line and f"pid {pid})" in line
    assert not (tmp_path / "ran").exists()
