"""`r` in the TUI: the rank differences of a real 3-rank torchrun log (tests/data/logs/ranks3_diverge)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT
from inspectc_tui.dialogs.ranks import RanksScreen
from pilots import RecordingApp, loaded, screen_text, settle, sync

SIZE = (200, 60)


@pytest.fixture(scope="module")
def ranks_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("ranks") / "ranks3.inspectc"
    logs = ROOT / "tests" / "data" / "logs" / "ranks3_diverge"
    subprocess.run(
        [sys.executable, "-m", "inspectc", "import", str(logs), "-o", str(out)],
        check=True,
        capture_output=True,
    )
    return out


@sync
async def test_r_lists_every_rank_difference(ranks_report: Path) -> None:
    app = RecordingApp(ranks_report)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("r")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, RanksScreen)
        assert screen.rank_count == 3
        kinds = {d.kind for d in screen.diffs}
        assert {
            "cache",
            "collective_schedule",
            "collectives_parity",
            "execution_order",
            "tensor_meta",
        } <= kinds
        assert "recompile_reason" not in kinds  # object ids are normalised
        text = screen_text(app)
        assert "collectives_parity" in text and "not recorded (FX graph cache hit)" in text
        # below the table: the ranks grouped by collective sequence, per rank (rank_runtime.py)
        screen.query_one("#rank-runtime").scroll_visible(animate=False)
        await settle(pilot)
        text = screen_text(app)
        assert "Collective schedules" in text and "rank 1: 4 ops" in text and "rank 2: 2 ops" in text
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, RanksScreen)


@sync
async def test_r_on_one_rank_says_so(sin_report: Path) -> None:
    app = RecordingApp(sin_report)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("r")
        await settle(pilot)
        assert isinstance(app.screen, RanksScreen)
        assert "One rank: nothing to compare." in screen_text(app)
