"""The TUI counts as the summary and the JSON do (issue 15): the run screen (`i`) shows the
trace records kept raw, the Guards tab lists every failed guard of a recompile, the overview
counts recompiles as torch logged them. Reports imported from real torch 2.13 logs
(tests/data/logs), one with records no torch writes added."""

from __future__ import annotations

import json
from pathlib import Path

from inspectc_tui.dialogs.run import RunScreen
from pilots import RecordingApp, loaded, open_frame, screen_text, settle, sync, text_of

from inspectc.analysis.views import totals
from inspectc.capture.importer import import_logs
from inspectc.store.open import open_report

LOGS = Path(__file__).resolve().parents[2] / "tests" / "data" / "logs"
SIZE = (160, 48)


def _with_plugin_records(tmp_path: Path) -> Path:
    text = (LOGS / "messages" / "trace.log").read_text()
    extra = {"my_plugin_event": {"n": 1}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0}
    log = tmp_path / "trace.log"
    log.write_text(text + "V1203 10:00:00.000000 4242 my_plugin.py:1] " + json.dumps(extra) + "\n" * 1)
    report = tmp_path / "crafted.inspectc"
    import_logs(log, report)
    return report


@sync
async def test_the_run_screen_shows_the_records_kept_raw(tmp_path: Path) -> None:
    report = _with_plugin_records(tmp_path)
    with open_report(report) as opened:
        account = opened.account
    app = RecordingApp(report)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("i")
        assert isinstance(app.screen, RunScreen)
        text = screen_text(app)
        assert "Trace records" in text
        assert f"{account.records:,} records: {account.used_count:,} used, 1 kept raw" in text
        assert "my_plugin_event ×1" in text


@sync
async def test_a_recompile_shows_each_failed_guard(tmp_path: Path) -> None:
    report = tmp_path / "multi.inspectc"
    import_logs(LOGS / "multi_recompile" / "trace.log", report)
    app = RecordingApp(report)
    async with app.run_test(size=SIZE) as pilot:
        data = (await loaded(pilot)).data
        assert data is not None and data.totals.recompiles == 3 == totals(data.frames).recompiles
        await open_frame(pilot, "0/3")
        await pilot.press("2")
        await settle(pilot)
        info = text_of(app, "#recompile-info")
        assert "the guards of 3 cache entries failed" in info
        for earlier, expected in (("0/2", 4), ("0/1", 3), ("0/0", 2)):
            assert (
                f"failed guard of {earlier}: tensor 'x' size mismatch at index 0. expected {expected}" in info
            )
        await open_frame(pilot, "0/0")
        await pilot.press("2")
        await settle(pilot)
        later = text_of(app, "#recompile-info")
        assert later.count("Guard failed later") == 3  # 0/1, 0/2 and 0/3 each failed 0/0's guard


@sync
async def test_four_ranks_count_as_the_summary_does(tmp_path: Path) -> None:
    report = tmp_path / "ranks.inspectc"
    import_logs(LOGS / "ranks4", report)
    with open_report(report) as opened:
        kernels, frames = len(opened.kernels), len(opened.frames)
    app = RecordingApp(report)
    async with app.run_test(size=SIZE) as pilot:
        data = (await loaded(pilot)).data
        assert data is not None
        assert (data.totals.kernels, data.totals.frames) == (kernels, frames)
        assert sorted({f.rank for f in data.frames}) == [0, 1, 2, 3]
        assert f"{kernels} kernels" in screen_text(app)
