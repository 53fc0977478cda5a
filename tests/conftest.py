"""Shared fixtures. Compiles are slow on two cores, so captured runs are shared by the session.

One temporary folder serves the whole test session, every pytest-xdist worker included (the
controller makes it and its workers inherit it through ``INSPECTC_TEST_SESSION``): Inductor's
and Triton's caches (never the user's ~/.cache, set before anything imports torch) and the
captured runs of :class:`Captures`, each made once by whichever worker asks first.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import zlib
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
REPORTS = SAMPLES / "reports"

_SESSION_ENV = "INSPECTC_TEST_SESSION"
_inherited = os.environ.get(_SESSION_ENV, "") if os.environ.get("PYTEST_XDIST_WORKER") else ""
_OWNER = not (_inherited and Path(_inherited).is_dir())  # the controller (or a lone session)
_SESSION_TMP = Path(tempfile.mkdtemp(prefix="inspectc-tests-")) if _OWNER else Path(_inherited)
os.environ[_SESSION_ENV] = str(_SESSION_TMP)  # xdist workers start after this: they inherit it
_CACHE = _SESSION_TMP / "inductor-cache"
os.environ["TORCHINDUCTOR_CACHE_DIR"] = str(_CACHE)
os.environ["TRITON_CACHE_DIR"] = str(_SESSION_TMP / "triton-cache")
# The per-user key capture signs reports with (store/origin.py): the session's, never the user's.
os.environ["XDG_CONFIG_HOME"] = str(_SESSION_TMP / "config")


def _compile_once() -> None:
    """Name tests/cxx_once.py (as ``g++``) Inductor's compiler for the session: a C++ build
    another run of the session made (a private cache's ISA probes, a kernel already
    compiled) is copied instead of compiled again. Made by the controller; workers inherit it."""
    real = os.environ.get("CXX", "g++")
    if not re.search(r"(?:^|/)g\+\+[-\d.]*$", real) or not shutil.which(real):
        return  # another compiler (clang): left as it is
    front = _SESSION_TMP / "cxx" / "g++"
    if _OWNER:
        front.parent.mkdir(exist_ok=True)
        front.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{ROOT / "tests" / "cxx_once.py"}" "$@"\n')
        front.chmod(0o755)
    os.environ.update(
        CXX=str(front),
        INSPECTC_TEST_REAL_CXX=str(shutil.which(real)),
        INSPECTC_TEST_CXX_STORE=str(_SESSION_TMP / "cxx" / "built"),
    )


if not os.environ.get("INSPECTC_TEST_REAL_CXX"):  # a worker inherits the controller's
    _compile_once()


def pytest_unconfigure(config: pytest.Config) -> None:
    if _OWNER:  # after the workers ended
        shutil.rmtree(_SESSION_TMP, ignore_errors=True)


# -- heaviest files first ---------------------------------------------------------------------
# `make pytest` hands whole files to two workers (`--dist loadfile --no-loadscope-reorder`),
# in collection order, each worker taking the next file when it is free. A heavy file taken
# last keeps one worker busy while the other idles, so the files measured heaviest go first
# (test time on two cores, most first); any other file keeps its place after them.
HEAVY_FIRST = (
    "test_reliability.py",
    "test_workloads.py",
    "test_hostile.py",
    "test_diff.py",
    "test_endings.py",
    "test_versions_identical_runs.py",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    rank = {name: n for n, name in enumerate(HEAVY_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: the rest keep order


# -- the slow lane ------------------------------------------------------------------------------
# `make pytest-quick` skips tests marked slow; `make pytest` (and `make test`) runs them. A family
# of like cases (one check, many planted values) keeps its first case in the quick lane.


def quick_first(cases: Iterable[Any], *, quick: int = 1) -> list[Any]:
    """Parameters for a family of like cases: the first *quick* run in the quick lane, the
    others carry the slow mark. A case given as a tuple is passed as its values."""
    out = []
    for n, case in enumerate(cases):
        values = case if isinstance(case, tuple) else (case,)
        out.append(pytest.param(*values, marks=() if n < quick else pytest.mark.slow))
    return out


# -- every test that compiles carries @pytest.mark.capture ---------------------------------
# so that `-m "not capture"` is a quick lane. Checked, not promised: a test without the mark
# fails if Dynamo compiled a frame in this process during it (torch's own frame counter), or
# if a CLI command it ran compiled one (run_cli points TORCH_TRACE at a probe folder and
# looks for a `dynamo_start` record there).
_CURRENT: list[pytest.Item] = []


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):  # type: ignore[no-untyped-def]
    _CURRENT[:] = [item]
    yield
    _CURRENT.clear()


def _unmarked() -> pytest.Item | None:
    item = _CURRENT[0] if _CURRENT else None
    return item if item is not None and item.get_closest_marker("capture") is None else None


def _frames_compiled() -> int:
    utils = sys.modules.get("torch._dynamo.utils")
    counters = getattr(utils, "counters", None)
    return sum(counters["frames"].values()) if counters is not None else 0


@pytest.fixture(autouse=True)
def _compiles_need_the_capture_mark(request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    before = _frames_compiled()
    yield
    if request.node.get_closest_marker("capture") is None and _frames_compiled() != before:
        pytest.fail(f"{request.node.nodeid} ran torch.compile but has no @pytest.mark.capture")


def shared_traces() -> Path | None:
    """``$INSPECTC_SHARED_TRACES``, else the nearest ``shared/traces`` beside the checkout or
    beside a folder above it (a git worktree in ``wt/NAME`` finds its main checkout's)."""
    named = os.environ.get("INSPECTC_SHARED_TRACES")
    if named:
        return Path(named) if Path(named).is_dir() else None
    for folder in ROOT.parents:
        candidate = folder / "shared" / "traces"
        if candidate.is_dir():
            return candidate
    return None


@pytest.fixture(scope="session")
def traces_dir() -> Path:
    found = shared_traces()
    if found is None:
        pytest.skip("shared TORCH_TRACE logs (../shared/traces or $INSPECTC_SHARED_TRACES) are not here")
    return found


def inspectc_cmd() -> list[str]:
    """The installed console script (end-to-end tests drive it as a user would)."""
    script = Path(sys.executable).parent / "inspectc"
    if script.exists():
        return [str(script)]
    found = shutil.which("inspectc")
    return [found] if found else [sys.executable, "-m", "inspectc"]


def default_sigint() -> None:
    """``preexec_fn`` for a child that a test interrupts: SIGINT back to its default.

    A test session started from a non-interactive shell's background job (``make test &``)
    inherits SIGINT ignored; Python then installs no KeyboardInterrupt handler in the child,
    and a test that sends SIGINT sees the program run on."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def plant_detail(db: sqlite3.Connection, kernel: str, payload: str) -> None:
    """Add an ``inspectc_kernel_detail`` event for *kernel* whose payload is *payload* (JSON
    text, possibly hostile) to an open report: hostile-input tests plant one this way."""
    seq = db.execute("SELECT max(seq) + 1 FROM events").fetchone()[0]
    db.execute(
        "INSERT INTO events(seq, ts, rank, compile_id, name, metadata, payload) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            seq,
            0.0,
            -1,
            None,
            "inspectc_kernel_detail",
            json.dumps({"inspectc_kernel_detail": {"name": kernel, "version": 1}}),
            zlib.compress(payload.encode()),
        ),
    )


def run_cli(
    *args: str,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 900,
    check: bool = False,
) -> subprocess.CompletedProcess[str]:
    full_env = dict(os.environ)
    full_env.update(env or {})
    unmarked, probe = _unmarked(), None
    if unmarked is not None and "TORCH_TRACE" not in full_env:
        probe = Path(tempfile.mkdtemp(prefix="probe-", dir=_SESSION_TMP))
        full_env["TORCH_TRACE"] = str(probe)
    proc = subprocess.run(
        [*inspectc_cmd(), *args],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if probe is not None:
        compiled = any("dynamo_start" in p.read_text(errors="replace") for p in probe.glob("*.log"))
        shutil.rmtree(probe, ignore_errors=True)
        if compiled and unmarked is not None:
            raise AssertionError(
                f"{unmarked.nodeid}: `inspectc {' '.join(args[:1])}` compiled, but the test has no"
                " @pytest.mark.capture (so -m 'not capture' would not be a quick lane)"
            )
    if check and proc.returncode != 0:
        raise AssertionError(
            f"inspectc {' '.join(args)} exited {proc.returncode}\n--- stdout\n{proc.stdout}"
            f"\n--- stderr\n{proc.stderr}"
        )
    return proc


@dataclass(frozen=True)
class CapturedRun:
    report: Path
    trace_dir: Path
    proc: subprocess.CompletedProcess[str]

    def trace_log(self) -> str:
        return "".join(p.read_text() for p in sorted(self.trace_dir.glob("*.log")))


class Captures:
    """Runs samples under ``inspectc run`` once per test session and hands out the reports.

    The session's xdist workers share the runs: the first worker to ask for one makes it (under
    a file lock), the others wait for it and read what it wrote. Runs that name the same
    private Inductor *cache* take turns, so the first of them is the cold one.
    """

    def __init__(self, base: Path) -> None:
        self.base = base
        self._done: dict[tuple[str, ...], CapturedRun] = {}

    def get(
        self,
        sample: str,
        *args: str,
        label: str = "",
        run_opts: tuple[str, ...] = (),
        cache: str | None = None,
    ) -> CapturedRun:
        """Capture *sample* once. *cache* names a private Inductor cache (cold on first use)."""
        key = (sample, label, cache or "", *run_opts, *args)
        unmarked = _unmarked()
        if unmarked is not None:  # every capture compiles
            raise AssertionError(f"{unmarked.nodeid} captures {sample} but has no @pytest.mark.capture")
        if key not in self._done:
            name = Path(sample).stem + (f"-{cache}" if cache else "") + (f"-{label}" if label else "")
            out = self.base / f"{name}-{hashlib.sha256(json.dumps(key).encode()).hexdigest()[:10]}"
            with _file_lock(self.base / (f"cache-{cache}.lock" if cache else f"{out.name}.lock")):
                self._done[key] = _made(out) or self._make(out, name, sample, args, run_opts, cache)
        return self._done[key]

    def _make(
        self,
        out: Path,
        name: str,
        sample: str,
        args: tuple[str, ...],
        run_opts: tuple[str, ...],
        cache: str | None,
    ) -> CapturedRun:
        shutil.rmtree(out, ignore_errors=True)  # what a worker killed midway left
        out.mkdir(parents=True)
        report = out / f"{name}.inspectc"
        trace_dir = out / "trace"
        proc = run_cli(
            "run",
            "-o",
            str(report),
            *run_opts,
            str(SAMPLES / sample),
            *args,
            cwd=out,
            env={
                "TORCH_TRACE": str(trace_dir),
                "TORCHINDUCTOR_CACHE_DIR": str(_SESSION_TMP / f"cache-{cache}" if cache else _CACHE),
            },
        )
        made = {"report": report.name, "args": proc.args, "returncode": proc.returncode}
        (out / "proc.json.tmp").write_text(json.dumps({**made, "stdout": proc.stdout, "stderr": proc.stderr}))
        (out / "proc.json.tmp").replace(out / "proc.json")  # last: the run is complete
        return CapturedRun(report=report, trace_dir=trace_dir, proc=proc)


def _made(out: Path) -> CapturedRun | None:
    """The run another worker of this session made in *out*, if it finished."""
    try:
        made = json.loads((out / "proc.json").read_text())
    except FileNotFoundError:
        return None
    proc = subprocess.CompletedProcess(made["args"], made["returncode"], made["stdout"], made["stderr"])
    return CapturedRun(report=out / made["report"], trace_dir=out / "trace", proc=proc)


@contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    with open(path, "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)  # released when the file closes, or its process dies
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


@pytest.fixture(scope="session")
def captures() -> Captures:
    pytest.importorskip("torch")
    base = _SESSION_TMP / "captures"
    base.mkdir(exist_ok=True)
    return Captures(base)


@pytest.fixture(scope="session")
def golden() -> Path:
    """Folder of golden reports produced by real capture (readers test on these, no torch)."""
    if not REPORTS.is_dir():
        pytest.skip("samples/reports is missing")
    return REPORTS


def torch_older_than(version: str) -> bool:
    """The installed torch (the version lanes install others) is older than *version*."""
    from importlib.metadata import version as installed

    have = tuple(int(p) for p in re.findall(r"\d+", installed("torch"))[:2])
    return have < tuple(int(p) for p in version.split(".")[:2])
