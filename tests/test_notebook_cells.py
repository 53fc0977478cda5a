"""A notebook's cells by number, read from a report (no torch): the run record's ``cells`` map is
a stranger's data, checked as it is read; a location in a cell reads ``cell [N], line L`` in the
summary and the JSON export keeps the file name beside the number.

The real notebook run (nbclient on an ipykernel, a compiled break in a cell) is in
tests/test_notebook.py; here the map is planted in a committed report's run record.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from conftest import REPORTS, run_cli

from inspectc.model import Run
from inspectc.model.cells import MAX_CELLS, MAX_COUNT, MAX_NAME, checked_cells

SAMPLE = REPORTS / "graph_breaks.inspectc"
SCRIPT = "samples/graph_breaks.py"  # the file every frame and break of SAMPLE is in


def planted(tmp_path: Path, cells: Any) -> Path:
    """A copy of SAMPLE whose run record holds *cells* (any JSON value) as its ``cells``."""
    report = tmp_path / "planted.inspectc"
    shutil.copyfile(SAMPLE, report)
    db = sqlite3.connect(report)
    with db:
        (text,) = db.execute("SELECT value FROM meta WHERE key = 'run'").fetchone()
        run = json.loads(text)
        run["cells"] = cells
        db.execute("UPDATE meta SET value = ? WHERE key = 'run'", (json.dumps(run),))
    db.close()
    return report


# -- the map as the model checks it ------------------------------------------------------------


@pytest.mark.parametrize("value", [None, [], ["a.py", 3], "a.py", 3, 3.5, True, {}])
def test_a_value_that_is_no_map_is_not_recorded(value: Any) -> None:
    assert checked_cells(value) is None
    assert Run(cells=value).cells is None


def test_entries_that_are_no_cell_are_left_out() -> None:
    value = {
        "/tmp/ipykernel_1/11.py": 3,  # kept
        "/tmp/ipykernel_1/12.py": True,  # a bool is no count
        "/tmp/ipykernel_1/13.py": 0,
        "/tmp/ipykernel_1/14.py": -2,
        "/tmp/ipykernel_1/15.py": MAX_COUNT + 1,
        "/tmp/ipykernel_1/16.py": 10**400,  # json.loads reads 400 digits as an int
        "/tmp/ipykernel_1/17.py": 4.0,
        "/tmp/ipykernel_1/18.py": "5",
        "/tmp/ipykernel_1/19.py": None,
        "": 6,
        "x" * (MAX_NAME + 1): 7,
        "x" * MAX_NAME: 8,  # kept: at the limit
        7: 9,  # a key not a string
    }
    assert checked_cells(value) == {"/tmp/ipykernel_1/11.py": 3, "x" * MAX_NAME: 8}
    assert checked_cells({"a.py": False, "b.py": 0}) is None  # nothing left: not recorded


def test_a_huge_map_keeps_its_first_entries() -> None:
    value = {f"/tmp/ipykernel_1/{n}.py": n + 1 for n in range(MAX_CELLS * 3)}
    kept = checked_cells(value)
    assert kept is not None and len(kept) == MAX_CELLS
    assert list(kept) == list(value)[:MAX_CELLS]


def test_a_run_with_cells_is_still_hashable_and_names_its_cells() -> None:
    run = Run(cwd="/home/me", cells={"/tmp/ipykernel_1/11.py": 3})
    hash(run)  # a dict field would make it unhashable: left out of the hash
    assert run.cell("/tmp/ipykernel_1/11.py") == 3
    assert run.cell("/home/me/train.py") is None and run.cell(None) is None


# -- a report that holds the map ---------------------------------------------------------------


@pytest.mark.timeout(120)
def test_a_planted_map_names_the_cell_in_summary_and_export(tmp_path: Path) -> None:
    report = planted(tmp_path, {SCRIPT: 7})
    summary = run_cli("summary", str(report), check=True).stdout
    data = json.loads(run_cli("export", str(report), check=True).stdout)
    assert data["run"]["cells"] == {SCRIPT: 7}
    groups = data["graph_breaks"]
    assert groups and all(g["filename"] == SCRIPT and g["cell"] == 7 for g in groups)
    for g in groups:  # the summary names each break's line as the notebook would
        assert f"cell [7], line {g['line']}" in summary
    assert f"{SCRIPT}:" not in summary and "graph_breaks.py:" not in summary
    frame = data["frames"][0]
    assert frame["cell"] == 7 and frame["graph_breaks"][0]["cell"] == 7


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    "cells",
    [
        "not a map",
        [SCRIPT, 7],
        {SCRIPT: "7"},
        {SCRIPT: True},
        {SCRIPT: -7},
        {SCRIPT: 10**30},
        {SCRIPT: {"nested": [1, 2, 3]}},
        {"x" * 100_000: 7},
    ],
    ids=["text", "list", "count-text", "bool", "negative", "huge", "nested", "long-key"],
)
def test_a_bad_map_reads_as_not_recorded(tmp_path: Path, cells: Any) -> None:
    """A stranger's report whose run record holds a bad ``cells``: every reader runs, no cell is
    named and the locations are paths as before; never a traceback."""
    report = planted(tmp_path, cells)
    summary = run_cli("summary", str(report))
    assert summary.returncode == 0, summary.stderr
    assert "Traceback" not in summary.stderr
    assert "cell [" not in summary.stdout and "graph_breaks.py:18" in summary.stdout
    export = run_cli("export", str(report))
    assert export.returncode == 0, export.stderr
    data = json.loads(export.stdout)
    assert data["run"]["cells"] is None
    assert all(g["cell"] is None for g in data["graph_breaks"])


@pytest.mark.timeout(120)
def test_share_keeps_the_cells_its_copy_names_and_no_other(tmp_path: Path) -> None:
    """The map holds every cell the session ran, each under a hash of its code (ipykernel's
    file names): share's copy keeps the cells a location in it names, and leaves the rest out."""
    other = "/tmp/ipykernel_4242/1234567.py"  # a cell no frame, break or kernel of SAMPLE is in
    report = planted(tmp_path, {SCRIPT: 7, other: 9})
    out = tmp_path / "share"
    run_cli("share", str(report), "-o", str(out), check=True)
    assert "cell [7], line 18" in (out / "planted.share.md").read_text(encoding="utf-8")
    shared = json.loads(run_cli("export", str(out / "planted.share.zip"), check=True).stdout)
    assert shared["run"]["cells"] == {SCRIPT: 7}
    assert other not in json.dumps(shared) and "1234567" not in (out / "planted.share.md").read_text()


@pytest.mark.timeout(120)
def test_graph_suggest_and_check_name_the_cell(tmp_path: Path) -> None:
    report = planted(tmp_path, {SCRIPT: 7})
    dot = tmp_path / "breaks.dot"
    run_cli("graph", str(report), "--breaks", "-o", str(dot), check=True)
    assert "cell [7], line 18" in dot.read_text(encoding="utf-8")
    suggest = run_cli("suggest", str(report), "--list", check=True).stdout
    assert "at break cell [7], line 31" in suggest  # the graph_break() call's line
    check = run_cli("check", str(report), "--max-graph-breaks", "0")
    assert check.returncode == 1 and "cell [7], line 24:" in check.stdout
    for out in (suggest, check.stdout):  # (the graph keeps the path in its nodes' tooltips)
        assert "graph_breaks.py:" not in out
