"""Fixtures for the TUI tests: golden reports from real capture, purpose-made reports."""

from __future__ import annotations

import asyncio
import functools
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).parent
ROOT = HERE.parents[1]
GOLDEN = ROOT / "samples" / "reports"
sys.path.insert(0, str(HERE))  # tests import the `reports` helper module

from reports import write_fusion_report  # noqa: E402


def golden(name: str) -> Path:
    path = GOLDEN / f"{name}.inspectc"
    if not path.exists():
        pytest.skip(f"golden report {path.name} is missing")
    return path


@pytest.fixture
def graph_breaks_report() -> Path:
    return golden("graph_breaks")


@pytest.fixture
def mlp_report() -> Path:
    return golden("mlp_train")


@pytest.fixture
def sin_report() -> Path:
    return golden("sin_sin")


@pytest.fixture(scope="session")
def fusion_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("fusion")
    return write_fusion_report(base / "fusion.inspectc", base / "user_model.py")


@pytest.fixture(scope="session")
def large_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A scaled-down benchmark report (the full one is benchmarks/make_large_report.py)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from make_large_report import build

    path = tmp_path_factory.mktemp("large") / "large.inspectc"
    build(path, frames=120, kernels_per_frame=5, source_mb=6)
    return path


def sync(test: Callable[..., Awaitable[None]]) -> Callable[..., None]:
    """Run an async Pilot test with asyncio.run (no async pytest plugin needed)."""

    @functools.wraps(test)
    def run(*args: Any, **kwargs: Any) -> None:
        asyncio.run(test(*args, **kwargs))

    return run


async def settle(pilot: Any) -> None:
    """Wait until the screen is still: the active frame tab built, workers done, idle."""
    from inspectc_tui.frame.screen import FrameScreen

    for _ in range(2):  # twice: a worker's result may start another (a row, then its source)
        screen = pilot.app.screen
        if isinstance(screen, FrameScreen):
            pane = screen.pane(screen.active_tab)
            for _ in range(400):
                if pane.built:
                    break
                await pilot.pause(0.01)
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
