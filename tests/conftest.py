"""Shared fixtures. Compiles are slow on two cores, so captured runs are session-scoped.

Inductor's and Triton's caches live in a temporary folder for the whole test session (never
the user's ~/.cache), set before anything imports torch.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
REPORTS = SAMPLES / "reports"

_SESSION_TMP = Path(tempfile.mkdtemp(prefix="inspectc-tests-"))
_CACHE = _SESSION_TMP / "inductor-cache"
os.environ["TORCHINDUCTOR_CACHE_DIR"] = str(_CACHE)
os.environ["TRITON_CACHE_DIR"] = str(_SESSION_TMP / "triton-cache")
os.environ.setdefault("INSPECTC_PROVENANCE_CACHE", str(_SESSION_TMP / "provenance-cache"))


def pytest_unconfigure(config: pytest.Config) -> None:
    shutil.rmtree(_SESSION_TMP, ignore_errors=True)


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
    """Runs samples under ``inspectc run`` once per session and hands out the reports."""

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
            name += f"-{len(self._done)}" if (self.base / name).exists() else ""
            out = self.base / name
            out.mkdir(parents=True, exist_ok=True)
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
            self._done[key] = CapturedRun(report=report, trace_dir=trace_dir, proc=proc)
        return self._done[key]


@pytest.fixture(scope="session")
def captures(tmp_path_factory: pytest.TempPathFactory) -> Captures:
    pytest.importorskip("torch")
    return Captures(tmp_path_factory.mktemp("captures"))


@pytest.fixture(scope="session")
def golden() -> Path:
    """Folder of golden reports produced by real capture (readers test on these, no torch)."""
    if not REPORTS.is_dir():
        pytest.skip("samples/reports is missing")
    return REPORTS
