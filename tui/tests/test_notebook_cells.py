"""A notebook's cells by number in the TUI, driven with Pilot: a report whose run record maps
the file its code ran under to an execution count shows ``cell [N], line L`` in the overview's
tables and in a frame's break, as the summary does (tests/test_notebook.py runs a real
notebook; here the map is planted in a committed report's run record)."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

from inspectc_tui.widgets.table import VirtualTable
from pilots import RecordingApp, loaded, open_frame, sync, text_of

SIZE = (160, 48)
SCRIPT = "samples/graph_breaks.py"  # every frame and break of the golden report is in it


def _with_cells(graph_breaks_report: Path, tmp_path: Path, cells: object) -> Path:
    report = tmp_path / "cells.inspectc"
    shutil.copyfile(graph_breaks_report, report)
    db = sqlite3.connect(report)
    with db:
        (text,) = db.execute("SELECT value FROM meta WHERE key = 'run'").fetchone()
        run = json.loads(text)
        run["cells"] = cells
        db.execute("UPDATE meta SET value = ? WHERE key = 'run'", (json.dumps(run),))
    db.close()
    return report


def _column(table: VirtualTable) -> list[str]:
    return [" ".join(cell.plain for cell in table.cells_for(key)) for key in table.row_keys()]


@sync
async def test_the_tui_names_a_notebook_cell(graph_breaks_report: Path, tmp_path: Path) -> None:
    app = RecordingApp(_with_cells(graph_breaks_report, tmp_path, {SCRIPT: 7}))
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        assert app.data is not None
        breaks = _column(app.screen.query_one("#breaks", VirtualTable))
        for group in app.data.groups:
            assert any(f"cell [7], line {group.line}" in row for row in breaks), breaks
        frames = _column(app.screen.query_one("#frames", VirtualTable))
        assert any("cell [7], line 16" in row for row in frames), frames  # frame 0/0's def line
        assert not any("graph_breaks.py:" in row for row in breaks + frames)
        await open_frame(pilot, "0/0")
        assert "cell [7], line 18" in text_of(app, "#break-info")


@sync
async def test_a_bad_cell_map_shows_paths(graph_breaks_report: Path, tmp_path: Path) -> None:
    app = RecordingApp(_with_cells(graph_breaks_report, tmp_path, {SCRIPT: "7"}))
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        breaks = _column(app.screen.query_one("#breaks", VirtualTable))
        assert any("graph_breaks.py:18" in row for row in breaks) and not any("cell [" in r for r in breaks)
