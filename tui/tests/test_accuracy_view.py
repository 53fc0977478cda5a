"""`a`: inspectc accuracy's view per graph, on the golden report of the planted mish fault
(samples/reports/accuracy_fault.inspectc): the diverging row, the jump to its kernel, the
user line's source; and a report without accuracy says how to get it."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import golden
from inspectc_tui.dialogs.accuracy import AccuracyScreen
from inspectc_tui.dialogs.source import SourceDialog
from inspectc_tui.frame.kernels import KernelTable
from inspectc_tui.frame.screen import FrameScreen
from pilots import RecordingApp, loaded, screen_text, settle, sync
from textual.widgets import DataTable

SIZE = (200, 50)


@pytest.fixture
def accuracy_report() -> Path:
    return golden("accuracy_fault")


@sync
async def test_a_lists_graphs_and_jumps_to_the_kernel(accuracy_report: Path) -> None:
    app = RecordingApp(accuracy_report)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("a")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, AccuracyScreen)
        assert screen.query_one(DataTable).row_count == 1
        text = screen_text(app)
        assert "diverges" in text and "cpp_fused_mish_0" in text and "aot_eager_decomp_partition" in text
        assert "accuracy_fault.py:" in text
        await pilot.press("s")  # the user line
        await settle(pilot)
        assert isinstance(app.screen, SourceDialog)
        assert "nn.functional.mish" in screen_text(app)
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("enter")  # the kernel that computes the diverging node
        await settle(pilot)
        frame_screen = app.screen
        assert isinstance(frame_screen, FrameScreen) and frame_screen.active_tab == "kernels"
        table = frame_screen.query_one(KernelTable)
        assert table.current_object is not None and table.current_object.name == "cpp_fused_mish_0"


@sync
async def test_a_without_accuracy_says_how(sin_report: Path) -> None:
    app = RecordingApp(sin_report)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(app.screen, AccuracyScreen)
        assert "run inspectc accuracy" in screen_text(app)
