"""Fixtures for the TUI tests: golden reports from real capture, purpose-made reports.

Tests import the helpers beside them (``reports``, ``pilots``) as plain modules: pytest puts
this folder on the path (it has no ``__init__.py``), and ``inspectc_tui`` is installed.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from daily import write_daily_report
from reports import write_fusion_report

HERE = Path(__file__).parent
ROOT = HERE.parents[1]
GOLDEN = ROOT / "samples" / "reports"


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
def daily(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """daily.py's report of real torch outputs (read only by the tests that use it)."""
    return write_daily_report(tmp_path_factory.mktemp("daily") / "daily.inspectc")


@pytest.fixture(scope="session")
def fusion_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("fusion")
    return write_fusion_report(base / "fusion.inspectc", base / "user_model.py")


@pytest.fixture(scope="session")
def large_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A scaled-down benchmark report, made by the benchmark's own script."""
    path = tmp_path_factory.mktemp("large") / "large.inspectc"
    script = ROOT / "benchmarks" / "make_large_report.py"
    args = ["--frames", "120", "--kernels-per-frame", "5", "--source-mb", "6"]
    subprocess.run(
        [sys.executable, str(script), str(path), *args], check=True, capture_output=True, timeout=300
    )
    return path
