"""Running a report's recorded code asks first when the report was made elsewhere.

``suggest`` re-runs the recorded command line and ``bench`` the recorded output code: a stranger's
code once a report leaves the machine that made it. Capture writes host, user and a random
report id (meta ``origin``); a report without them (older, imported, shared), or from another
host or user, makes these commands show what they would run and refuse without a terminal
unless ``--yes``.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from conftest import REPORTS, run_cli

from inspectc.report import origin


def _elsewhere(tmp_path: Path, name: str = "graph_breaks") -> Path:
    copy = tmp_path / f"{name}.inspectc"
    shutil.copyfile(REPORTS / f"{name}.inspectc", copy)
    db = sqlite3.connect(copy)
    with db:
        value = json.dumps({"host": "build-box-17", "user": "someone", "id": "0123456789abcdef"})
        db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('origin', ?)", (value,))
    db.close()
    return copy


@pytest.mark.timeout(120)
def test_suggest_shows_the_command_and_refuses_without_a_terminal(tmp_path: Path) -> None:
    report = _elsewhere(tmp_path)
    proc = run_cli("suggest", str(report), cwd=tmp_path, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert "made by someone on build-box-17" in proc.stderr
    assert "inspectc run" in proc.stderr and "graph_breaks.py" in proc.stderr  # the exact command
    assert proc.stderr.strip().splitlines()[-1] == (
        "inspectc: not run: suggest runs a stranger's code; read the command above, then add --yes"
    )
    assert not list(tmp_path.glob("*.baseline-*")) and not list(tmp_path.glob("*.suggest-*"))


@pytest.mark.timeout(120)
def test_suggest_list_runs_nothing_and_asks_nothing(tmp_path: Path) -> None:
    proc = run_cli("suggest", str(_elsewhere(tmp_path)), "--list", cwd=tmp_path, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "would try" in proc.stdout and "not made here" not in proc.stderr


@pytest.mark.timeout(120)
def test_yes_goes_past_the_question(tmp_path: Path) -> None:
    proc = run_cli("suggest", str(_elsewhere(tmp_path)), "--yes", cwd=tmp_path, timeout=60)
    # past consent it re-runs the recorded command (whose script is not in this folder)
    assert "not made here" not in proc.stderr and "stranger" not in proc.stderr
    assert proc.returncode == 0 and "can't open file 'samples/graph_breaks.py'" in proc.stdout


@pytest.mark.timeout(120)
def test_bench_asks_before_running_output_code(tmp_path: Path) -> None:
    report = _elsewhere(tmp_path, "mlp_train")
    before = report.read_bytes()
    proc = run_cli("bench", str(report), cwd=tmp_path, timeout=60)
    assert proc.returncode == 2 and "bench runs a stranger's code" in proc.stderr
    assert report.read_bytes() == before


def test_a_report_without_origin_is_from_elsewhere() -> None:
    assert not origin.made_here({})
    here = origin.current()
    assert origin.made_here({"origin": json.dumps(here)})
    assert not origin.made_here({"origin": json.dumps({**here, "user": here["user"] + "x"})})
    assert not origin.made_here({"origin": "not json"})


@pytest.mark.capture
def test_capture_records_where_the_report_was_made(captures) -> None:
    run = captures.get("graph_breaks.py", "--size", "64", cache="gb")
    with __import__("inspectc").open_report(run.report) as report:
        assert origin.made_here(report.meta)
        assert len(origin.recorded(report.meta)["id"]) == 16
