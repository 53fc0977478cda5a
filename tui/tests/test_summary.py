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


def _costly_report(path: Path) -> Path:
    """Two breaks, one measured at 20 ms per call and one at 40 µs (capture's gap record)."""
    import json

    from inspectc.model import CompileId, Frame, GraphBreak, Run
    from inspectc.model.costs import GAPS_EVENT
    from inspectc.store.factory import ReportFactory

    def timed(us: float) -> dict[str, object]:
        samples = [us * (1 + 0.01 * n) for n in range(8)]
        return {"calls": 8, "total_us": sum(samples), "mean_us": sum(samples) / 8, "min_us": min(samples),
                "max_us": max(samples), "median_us": samples[4], "cv": 0.02, "samples": samples}  # fmt: skip

    made = ReportFactory(path, Run(argv=("inspectc", "run", "t.py"), cwd=str(path.parent), exit_code=0))
    made.frame(
        Frame(
            compile_id=CompileId.parse("0/0"),
            function="step",
            filename="t.py",
            line=10,
            status="graph_break",
            graph_breaks=(
                GraphBreak(reason="Skip calling disabled function", filename="t.py", line=12),
                GraphBreak(reason="print", filename="t.py", line=13),
            ),
        )
    )
    for n, line in ((1, 12), (2, 13)):
        made.frame(
            Frame(
                compile_id=CompileId.parse(f"{n}/0"),
                function=f"torch_dynamo_resume_in_step_at_{line}",
                filename="t.py",
                line=line,
            )
        )
    gaps = {
        "version": 1,
        "time_base": "cpu",
        "gaps": [
            {"before": "0/0", "after": "1/0", "host": timed(20_000)},
            {"before": "0/0", "after": "2/0", "host": timed(40)},
        ],
        "calls": [{"compile_id": "0/0", "host": timed(50_000)}],
    }
    made.event(GAPS_EVENT, json.dumps(gaps), metadata={GAPS_EVENT: {"version": 1}})
    return made.close()


@sync
async def test_the_breaks_table_ranks_by_measured_cost(tmp_path: Path) -> None:
    from inspectc_tui.overview.tables import BreaksTable

    report = _costly_report(tmp_path / "costly.inspectc")
    app = RecordingApp(report)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        table = app.screen.query_one(BreaksTable)
        rows = [table.object_for(k) for k in table.row_keys()]
        assert [g.line for g in rows] == [12, 13]  # the dearest first
        assert [c.key for c in table.columns][:2] == ["count", "cost"]  # a Cost column when measured
        await pilot.press("m")
        await settle(pilot)
        shown = "\n".join(str(w.render()) for w in app.screen.query(Static))
        assert "What to fix first" in shown and "costs 20.80 ms per call" in shown and "cheap" in shown
