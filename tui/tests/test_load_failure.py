"""Loading never hangs: any exception while reading the report shows as a load failure.

The loader runs in a worker whose errors do not end the app (``exit_on_error=False``): an
exception it did not turn into ``LoadFailed`` left the overview on "indexing 90%" forever.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import inspectc_tui.app
import pytest
from conftest import ROOT
from pilots import RecordingApp, loaded, sync, text_of

SIZE = (120, 30)
BENCH = ROOT / "tests" / "data" / "bench" / "resnet18-h200.inspectc"


@pytest.mark.parametrize(
    "error",
    [TypeError("unhashable type: 'dict'"), ZeroDivisionError("division by zero"), OverflowError("too large")],
    ids=lambda e: type(e).__name__,
)
@sync
async def test_unexpected_error_while_loading_shows_the_failure(
    sin_report: Path, monkeypatch: pytest.MonkeyPatch, error: Exception
) -> None:
    def broken(*args: Any, **kwargs: Any) -> None:
        raise error

    monkeypatch.setattr(inspectc_tui.app, "load_report", broken)
    app = RecordingApp(sin_report)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)  # the LoadFailed message, not "indexing" forever
        assert app.data is None
        want = f"cannot read the report ({type(error).__name__}: {error})"
        assert any(want in note for note in app.notes), app.notes
        assert want in text_of(app, "#loading-label")


@sync
async def test_report_with_a_hostile_bench_row_opens(tmp_path: Path) -> None:
    """A ``bench`` row whose method is an object (unhashable) hung the loader; it is left out."""
    if not BENCH.exists():
        pytest.skip(f"{BENCH.name} is missing")
    report = tmp_path / "bench.inspectc"
    shutil.copyfile(BENCH, report)
    with sqlite3.connect(report) as db:
        rowid, data = db.execute("SELECT rowid, data FROM bench LIMIT 1").fetchone()
        db.execute(
            "UPDATE bench SET data = ? WHERE rowid = ?",
            (json.dumps({**json.loads(data), "method": {}}), rowid),
        )
    db.close()
    app = RecordingApp(report)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        assert app.data is not None, app.notes
        assert app.data.bench.run is not None
