"""Following a run that is still writing its report, driven with Pilot: a real
``ReportWriter`` in another thread appends frames as capture does (commits every 0.2 s);
the app, told to follow, shows them as they land and the run's state when it ends."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
from pathlib import Path

from daily import LiveRun, daily_frames, daily_run, write_daily_report
from inspectc_tui.messages import ReportUpdated
from inspectc_tui.widgets.table import VirtualTable
from pilots import WAIT_S, RecordingApp, loaded, sync, text_of
from textual.message import Message

from inspectc.cli.tui import follow_command

SIZE = (140, 40)


class Updates:
    """The ``ReportUpdated`` messages the app received (a Pilot message hook)."""

    def __init__(self) -> None:
        self.frame_counts: list[int] = []
        self.ended = asyncio.Event()
        self._arrived = asyncio.Event()

    def __call__(self, message: Message) -> None:
        if isinstance(message, ReportUpdated):
            self.frame_counts.append(len(message.data.frames))
            self._arrived.set()
            if message.data.run.exit_code is not None:
                self.ended.set()

    async def next(self) -> None:
        """Wait for the next update."""
        self._arrived.clear()
        await asyncio.wait_for(self._arrived.wait(), WAIT_S)


@sync
async def test_frames_breaks_and_kernels_appear_as_they_land(tmp_path: Path) -> None:
    path = tmp_path / "live.inspectc"
    live = LiveRun(path)
    updates = Updates()
    app = RecordingApp(path, follow=True, follow_every_s=0.05)
    async with app.run_test(size=SIZE, message_hook=updates) as pilot:
        await loaded(pilot)
        assert app.data is not None and app.data.frames == []
        assert "ended without finishing" in text_of(app, "#run-header")  # elsewhere's pid: not ours
        live.start()
        live.go.set()
        await asyncio.wait_for(updates.ended.wait(), WAIT_S)
        await pilot.pause()
        total = len(daily_frames())
        assert updates.frame_counts[-1] == total
        assert len(set(updates.frame_counts)) > 2  # not all at once: as they landed
        assert updates.frame_counts == sorted(updates.frame_counts)
        table = app.screen.query_one("#frames", VirtualTable)
        assert table.row_count == total
        assert app.screen.query_one("#breaks", VirtualTable).row_count == len(app.data.groups) == 3
        assert app.screen.query_one("#top-kernels", VirtualTable).row_count == 1
        assert "exited 3" in text_of(app, "#run-header")
    live.join(WAIT_S)


@sync
async def test_the_cursor_stays_on_its_frame_while_frames_land(tmp_path: Path) -> None:
    path = tmp_path / "live.inspectc"
    live = LiveRun(path)
    updates = Updates()
    app = RecordingApp(path, follow=True, follow_every_s=0.05)
    async with app.run_test(size=SIZE, message_hook=updates) as pilot:
        await loaded(pilot)
        live.start()
        live.go.set()
        table = app.screen.query_one("#frames", VirtualTable)
        while table.row_count < 2:
            await updates.next()
            await pilot.pause()
        await pilot.press("down")
        chosen = table.current_object.compile_id
        await asyncio.wait_for(updates.ended.wait(), WAIT_S)
        await pilot.pause()
        assert table.current_object.compile_id == chosen
    live.join(WAIT_S)


@sync
async def test_a_report_not_written_yet_is_waited_for(tmp_path: Path) -> None:
    path = tmp_path / "later.inspectc"
    updates = Updates()
    app = RecordingApp(path, follow=True, follow_every_s=0.05)
    async with app.run_test(size=SIZE, message_hook=updates) as pilot:
        await pilot.pause()
        assert "waiting for the run to create" in text_of(app, "#loading-label")
        write_daily_report(path, frames=2)
        await loaded(pilot)
        assert app.data is not None and len(app.data.frames) == 2


@sync
async def test_a_run_of_this_machine_says_it_is_running(tmp_path: Path) -> None:
    run = daily_run(tmp_path, end_reason="running", exit_code=None)
    from dataclasses import replace

    path = write_daily_report(
        tmp_path / "mine.inspectc", frames=1, run=replace(run, pid=os.getpid(), hostname=socket.gethostname())
    )
    app = RecordingApp(path, follow=True)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        assert f"● running (pid {os.getpid()})" in text_of(app, "#run-header")


def test_the_follow_command_and_flag(tmp_path: Path) -> None:
    assert follow_command("out dir/r.inspectc") == "inspectc tui 'out dir/r.inspectc' --follow"
    result = subprocess.run(
        [sys.executable, "-m", "inspectc", "tui", "--help"], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0 and "--follow" in result.stdout
