"""A run always returns (issue 23): every CPU ending of a program whose kernel timings ran.

Once torch's profiler has run in a process (the timing window, open or closed), a child
made by ``os.fork()`` hung for good in ``exit()`` (Kineto's ``ConfigLoader`` destructor),
and the parent in ``waitpid``. Each ending here is a real ``inspectc run`` (or
``inspectc.capture()``) of a tiny compiled program, under a hard timeout: a hang fails in
seconds instead of stalling the suite. Two runs given the same ``-o`` at once: the second is
refused before its script starts, and the first loses nothing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import inspectc_cmd, run_cli

from inspectc.store.open import open_report

pytestmark = [pytest.mark.capture, pytest.mark.timeout(420)]

ENV = {"TORCHINDUCTOR_COMPILE_THREADS": "1"}
HANG_S = 150  # far above a run's time (~10 s): reaching it means a hang

SCRIPT = """
import atexit, os, sys, time
import torch

def f(x):
    return torch.cos(x) * 2 + 1

class Data(torch.utils.data.Dataset):
    def __len__(self):
        return 4
    def __getitem__(self, i):
        return torch.full((4,), float(i))

def square(n):
    return n * n

def fork(code, raise_it=False):
    pid = os.fork()
    if pid == 0:
        atexit.register(print, f"child {code} atexit", flush=True)
        if raise_it:
            raise RuntimeError("child raised")
        sys.exit(code)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])

def main(mode):
    atexit.register(print, "parent atexit", flush=True)
    step = torch.compile(f)
    x = torch.ones(8)
    step(x)
    if mode == "never":  # compiled, never entered again: no window ever opened
        print("never", fork(3), flush=True)
        return
    for _ in range(3):  # the timing window is open now (10 calls)
        step(x)
    if mode == "forks":
        print("in window", fork(5), flush=True)
        for _ in range(20):
            step(x)
        print("after window", fork(3), fork(1, raise_it=True), flush=True)
        loader = torch.utils.data.DataLoader(Data(), batch_size=2, num_workers=2)
        print("batches", [float(step(b).sum()) for b in loader], flush=True)
        import multiprocessing as mp
        with mp.get_context("spawn").Pool(1) as pool:
            print("spawn", pool.map(square, [2, 3]), flush=True)
    elif mode == "exit":
        sys.exit(4)
    elif mode == "raise":
        raise ValueError("raised in the window")
    elif mode == "hold":  # for the same -o test: wait until told to go on
        print("ready", flush=True)
        deadline = time.monotonic() + 120
        while not os.path.exists(sys.argv[2]) and time.monotonic() < deadline:
            time.sleep(0.05)
    print("done", flush=True)

if __name__ == "__main__":
    if os.environ.get("ENDINGS_API"):
        import inspectc
        with inspectc.capture(os.environ["ENDINGS_API"]):
            main(sys.argv[1])
    else:
        main(sys.argv[1])
"""

# mode -> (exit code, end_reason, lines the program prints, in any order)
MODES: dict[str, tuple[int, str, tuple[str, ...]]] = {
    "forks": (
        0,
        "exit",
        (
            "child 5 atexit",
            "in window 5",
            "child 3 atexit",
            "child 1 atexit",
            "after window 3 1",
            "spawn [4, 9]",
            "done",
        ),
    ),
    "exit": (4, "exit", ("parent atexit",)),
    "raise": (1, "exception", ("parent atexit",)),
}
# A fork before any window and threads that compile: tests/test_reliability.py (procs).


@pytest.fixture(scope="module")
def script(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("endings") / "endings.py"
    path.write_text(textwrap.dedent(SCRIPT))
    return path


def _run(script: Path, mode: str, api: bool = False) -> tuple[subprocess.CompletedProcess[str], Path]:
    report = script.parent / f"{mode}{'-api' if api else ''}.inspectc"
    if api:  # inspectc.capture() in the program itself, run by plain python
        proc = subprocess.run(
            [sys.executable, str(script), mode],
            cwd=script.parent,
            env={**os.environ, **ENV, "ENDINGS_API": str(report)},
            capture_output=True,
            text=True,
            timeout=HANG_S,
        )
    else:
        proc = run_cli(
            "run", "-q", "-o", str(report), str(script), mode, cwd=script.parent, env=ENV, timeout=HANG_S
        )
    return proc, report


@pytest.fixture(scope="module")
def ended(script: Path) -> dict[str, tuple[subprocess.CompletedProcess[str], Path]]:
    jobs: dict[str, Callable[[], tuple[subprocess.CompletedProcess[str], Path]]] = {
        mode: (lambda m=mode: _run(script, m)) for mode in MODES
    }
    jobs["forks-api"] = lambda: _run(script, "forks", api=True)
    with ThreadPoolExecutor(max_workers=2) as pool:  # two cores
        futures = {name: pool.submit(job) for name, job in jobs.items()}
        return {name: future.result() for name, future in futures.items()}


@pytest.mark.parametrize("name", [*MODES, "forks-api"])
def test_every_ending_returns(
    name: str, ended: dict[str, tuple[subprocess.CompletedProcess[str], Path]]
) -> None:
    proc, report = ended[name]
    code, reason, lines = MODES[name.removesuffix("-api")]
    assert proc.returncode == code, proc.stderr[-3000:]
    out = proc.stdout.splitlines()
    for line in lines:
        assert line in out, (line, proc.stdout)
    with open_report(report) as r:
        assert r.run.end_reason == reason
        # the parent's frames (the DataLoader's batches recompile f), none from a child
        assert {f.function for f in r.frames} == {"f"} and all(f.status == "ok" for f in r.frames)
        # the window's timings are kept, and the exit path was armed
        assert [k for k in r.kernels if k.time is not None], r.run.capture_errors
        assert not [e for e in r.run.capture_errors if "exit path" in e]


def test_same_report_path_twice_at_once(script: Path, tmp_path: Path) -> None:
    report, go = tmp_path / "same.inspectc", tmp_path / "go"
    (tmp_path / ".same.inspectc.lock").write_text("999999\n")  # as a SIGKILLed run leaves it
    first = subprocess.Popen(
        [*inspectc_cmd(), "run", "-q", "-o", str(report), str(script), "hold", str(go)],
        cwd=tmp_path,
        env={**os.environ, **ENV},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert first.stdout is not None
        assert first.stdout.readline().strip() == "ready", first.stderr
        second = run_cli(
            "run", "-q", "-o", str(report), str(script), "never", cwd=tmp_path, env=ENV, timeout=HANG_S
        )
        go.touch()
        out, err = first.communicate(timeout=HANG_S)
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    assert second.returncode == 2 and second.stdout == ""  # its script never started
    lines = second.stderr.strip().splitlines()
    assert len(lines) == 1 and "is being written by another inspectc command (pid" in lines[0], second.stderr
    assert f"pid {first.pid})" in lines[0]
    assert first.returncode == 0 and out.split() == ["done", "parent", "atexit"], err
    with open_report(report) as r:  # nothing the first run captured is lost
        assert r.run.end_reason == "exit" and r.run.pid == first.pid
        assert [f.function for f in r.frames] == ["f"] and r.frames[0].status == "ok"
    assert not (tmp_path / ".same.inspectc.lock").exists()  # a clean end removes the lock file
    exported = json.loads(run_cli("export", str(report), "--json", check=True).stdout)
    assert exported["run_end"] == "exit 0"
