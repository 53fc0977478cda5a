"""`i`: the run in full: command, where and when, versions, how it ended, capture's options
(every one, "not recorded" when the report has none), what capture could not record, and the
account of the trace records it was built from (the ones kept raw, by name)."""

from __future__ import annotations

import shlex
import time

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from inspectc.model import Run
from inspectc.model.account import Account
from inspectc.render.options import NOT_RECORDED, option_rows
from inspectc_tui.text import literal, run_state, seconds


def _when(stamp: float | None) -> str:
    # UTC: the run may come from another machine's time zone.
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(stamp)) if stamp else NOT_RECORDED


def run_table(run: Run, account: Account | None = None) -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold cyan", no_wrap=True)
    table.add_column()

    def section(title: str) -> None:
        table.add_row(Text(title, style="bold underline"), "")

    def row(name: str, value: str | Text | None) -> None:
        shown = value if isinstance(value, Text) else literal(value, empty=NOT_RECORDED)
        table.add_row(name, shown)

    section("Run")
    row("command", shlex.join(run.argv) if run.argv else None)
    row("directory", run.cwd)
    row("mode", run.mode)
    row("started", _when(run.started))
    row("ended", _when(run.ended))
    if run.started and run.ended and run.ended >= run.started:
        row("took", seconds(run.ended - run.started))
    row("state", run_state(run))
    if run.exception:
        row("exception", run.exception)
    row("host", " · ".join(x for x in (run.hostname, f"pid {run.pid}" if run.pid else None) if x) or None)
    if run.world_size:
        row("rank", f"{run.rank} of {run.world_size}")
    table.add_row("", "")
    section("Versions")
    for name, value in (
        ("torch", run.torch_version),
        ("python", run.python_version),
        ("triton", run.triton_version),
        ("cuda", run.cuda_version),
        ("platform", run.platform),
    ):
        row(name, value)
    row("devices", ", ".join(run.devices) if run.devices else None)
    table.add_row("", "")
    section("Options")
    for name, value in option_rows(run.options):
        row(name, value)
    table.add_row("", "")
    section("Capture problems")
    if run.capture_errors:
        for error in run.capture_errors:
            row("", Text("• ") + literal(error, "red"))
    else:
        row("", Text("none recorded", style="green"))
    if account is not None:
        table.add_row("", "")
        section("Trace records")  # what the report was built from: used, or kept raw
        row("", account.figures())
        for name, count in sorted(account.kept_raw.items(), key=lambda kv: (-kv[1], kv[0])):
            row("kept raw", Text("• ") + literal(f"{name} ×{count:,}", "yellow"))
    return table


class RunScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,i", "dismiss", "Close")]

    def __init__(self, run: Run, account: Account | None = None) -> None:
        super().__init__()
        self.run = run
        self.account = account

    def compose(self) -> ComposeResult:
        with VerticalScroll() as scroll:
            scroll.border_title = "the run"
            scroll.border_subtitle = "Esc to close"
            yield Static(run_table(self.run, self.account), id="run-details")
