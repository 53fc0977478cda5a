"""`m`: the summary screen shows the report's one section model, as every other output does:
the same headline, section titles and suggestions as ``inspectc summary`` prints."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from inspectc_tui.overview.summary import SummaryScreen
from pilots import RecordingApp, loaded, settle, sync
from textual.widgets import Static

SIZE = (160, 48)


def _terminal_summary(report: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "inspectc", "summary", str(report)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@sync
async def test_m_shows_the_summary_every_output_shows(graph_breaks_report: Path) -> None:
    printed = _terminal_summary(graph_breaks_report)
    app = RecordingApp(graph_breaks_report)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("m")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SummaryScreen)
        shown = "\n".join(str(w.render()) for w in screen.query(Static))
        headline = printed.splitlines()[0].removeprefix("inspectc: ")
        assert headline in shown
        for title in ("Graph breaks (4 unique, 6 total)", "Recompiles (4", "Suggestions (7"):
            assert title in printed and title in shown, title
        for line in printed.splitlines():
            if line.startswith("  try   "):  # every suggestion the terminal prints, the screen shows
                assert line.strip().split("   ")[1] in shown
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, SummaryScreen)
