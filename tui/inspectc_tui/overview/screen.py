"""The overview: the run, its frames, its graph breaks (deduplicated) and its top kernels.

It paints at once with the run's header and a progress bar; the tables fill when the
app's loader worker hands over the :class:`ReportData`, and fill again (keeping their sort
and cursor) each time a followed run writes more. Choosing a row opens that frame.
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Vertical
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import Footer, Header, Label, ProgressBar, Static

from inspectc.model import Frame, Kernel, Run
from inspectc_tui.data import ReportData, frame_key, kernel_key
from inspectc_tui.messages import OpenFrame
from inspectc_tui.overview.tables import BreaksTable, FramesTable, TopKernelsTable
from inspectc_tui.text import literal, run_state, seconds
from inspectc_tui.widgets.table import VirtualTable

Location = tuple[str | None, int | None]


def run_header(run: Run, data: ReportData | None) -> Text:
    """Three lines: the command, versions and outcome, totals (each cut to the width)."""
    out = Text(no_wrap=True, overflow="ellipsis")
    out.append("$ ", style="dim")
    out.append_text(literal(run.command_text or "(command not recorded)", "bold"))
    out.append("\n")
    parts = [
        ("torch", run.torch_version),
        ("python", run.python_version),
        ("triton", run.triton_version),
        ("cuda", run.cuda_version),
    ]
    out.append_text(
        Text("  ·  ", style="dim").join(literal(f"{n} {v}") for n, v in parts if v)
        or Text("versions not recorded", style="dim")
    )
    out.append("  ·  ", style="dim")
    out.append_text(run_state(run))
    if run.started and run.ended and run.ended >= run.started:
        out.append(f"  ·  ran {seconds(run.ended - run.started)}", style="dim")
    if run.exception:
        out.append("  ·  ")
        out.append_text(literal(run.exception, "red", one_line=True))
    if data is not None:
        t = data.totals
        out.append("\n")
        for value, label, style in (
            (t.frames, "frames", "bold"),
            (t.graph_breaks, f"graph breaks ({t.unique_breaks} unique)", "bold yellow"),
            (t.recompiles, "recompiles", "bold magenta"),
            (t.failed, "failed", "bold red"),
            (t.kernels, "kernels", "bold"),
        ):
            out.append(f"{value:,}", style=style if value else "dim")
            out.append(f" {label}   ")
        out.append(seconds(t.compile_time_s), style="bold")
        out.append(" compiling")
    return out


class OverviewScreen(Screen[None]):
    """The first screen: what happened in this run, at a glance."""

    BINDINGS = [
        Binding("f", "focus_table('#frames')", "Frames"),
        Binding("b", "focus_table('#breaks')", "Breaks"),
        Binding("k", "focus_table('#top-kernels')", "Kernels"),
    ]
    # The report read (again on each reload of a followed run): watch_data fills the tables.
    data: var[ReportData | None] = var(None, init=False, always_update=True)

    def __init__(self, title: str) -> None:
        super().__init__()
        self._title = title
        self._mounted = False
        self._pending: ReportData | None = None

    def compose(self) -> ComposeResult:
        yield Header(icon="◆")
        yield Static(id="run-header")
        with Vertical(id="loading"):
            yield Label("Opening report…", id="loading-label")
            yield ProgressBar(total=1.0, show_eta=False, id="loading-bar")
        with Grid(id="overview-body", classes="-hidden"):
            with Vertical(id="frames-box", classes="box"):
                yield FramesTable(id="frames")
                yield Static("No frames were compiled in this run.", id="no-frames", classes="empty")
            with Vertical(id="kernels-box", classes="box"):
                yield TopKernelsTable(id="top-kernels")
                yield Static("No kernels.", id="no-kernels", classes="empty")
            with Vertical(id="breaks-box", classes="box"):
                yield BreaksTable(id="breaks")
                yield Static("No graph breaks.", id="no-breaks", classes="empty")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = self._title
        self._mounted = True
        if self._pending is not None:
            self.show_data(self._pending)
        self.query_one("#frames-box").border_title = "Frames"
        self.query_one("#breaks-box").border_title = "Graph breaks"
        self.query_one("#kernels-box").border_title = "Top kernels by time"

    # -- loading -----------------------------------------------------------------------
    def show_run(self, run: Run) -> None:
        if not self._mounted:
            return
        self.query_one("#run-header", Static).update(run_header(run, None))

    def show_progress(self, what: str, fraction: float) -> None:
        if not self._mounted:
            return
        self.query_one("#loading-label", Label).update(Text(what))
        self.query_one("#loading-bar", ProgressBar).update(progress=fraction)

    def show_error(self, message: str) -> None:
        if not self._mounted:
            self.call_after_refresh(self.show_error, message)
            return
        self.query_one("#loading-label", Label).update(Text(message, style="bold red"))
        self.query_one("#loading-bar").display = False

    def show_data(self, data: ReportData) -> None:
        if not self._mounted:  # the report was read before the screen was built
            self._pending = data
            return
        self.data = data

    def watch_data(self, old: ReportData | None, data: ReportData | None) -> None:
        if data is None:
            return
        first = old is None
        self.query_one("#run-header", Static).update(run_header(data.run, data))
        frames = self.query_one(FramesTable)
        frames.fill(data)
        self.query_one(BreaksTable).fill(data)
        self.query_one(TopKernelsTable).fill(data)
        t = data.totals
        self.query_one("#frames-box").border_title = f"Frames ({t.frames:,})"
        self.query_one(
            "#breaks-box"
        ).border_title = f"Graph breaks ({t.unique_breaks:,} unique, {t.graph_breaks:,} total)"
        timed = len(data.top_kernels)
        self.query_one("#kernels-box").border_title = (
            "Top kernels by time" if timed else f"Kernels ({len(data.kernels):,}, no timings)"
        )
        for table, empty in (
            ("#frames", "#no-frames"),
            ("#breaks", "#no-breaks"),
            ("#top-kernels", "#no-kernels"),
        ):
            has_rows = self.query_one(table, VirtualTable).row_count > 0
            self.query_one(table).display = has_rows
            self.query_one(empty).display = not has_rows
        self.query_one("#loading").display = False
        self.query_one("#overview-body").remove_class("-hidden")
        if first:
            frames.focus()

    # -- navigation --------------------------------------------------------------------
    def frame_order(self) -> list[Frame]:
        """The frames as the frames table shows them (its sort), for `n`/`p` in a frame."""
        table = self.query_one(FramesTable)
        return [f for f in (table.object_for(k) for k in table.row_keys()) if isinstance(f, Frame)]

    def show_frame(self, frame: Frame) -> None:
        """Put the frames table's cursor on *frame* (Esc from a frame comes back to it)."""
        table = self.query_one(FramesTable)
        for key in table.row_keys():
            if table.object_for(key) is frame:
                table.select_key(key)
                return

    def action_focus_table(self, selector: str) -> None:
        widget = self.query_one(selector)
        if widget.display:
            widget.focus()

    @on(VirtualTable.RowSelected, "#frames")
    def _open_frame(self, event: VirtualTable.RowSelected) -> None:
        frame = self.query_one(FramesTable).object_for(event.key)
        if isinstance(frame, Frame):
            self.post_message(OpenFrame(frame_key(frame)))

    @on(VirtualTable.RowSelected, "#breaks")
    def _open_break(self, event: VirtualTable.RowSelected) -> None:
        group = self.query_one(BreaksTable).object_for(event.key)
        if group is None or self.data is None:
            return
        for frame in self.data.frames:
            if frame.compile_id in group.compile_ids:
                self.post_message(OpenFrame(frame_key(frame), tab="breaks", break_reason=group.reason))
                return

    @on(VirtualTable.RowSelected, "#top-kernels")
    def _open_kernel(self, event: VirtualTable.RowSelected) -> None:
        kernel = self.query_one(TopKernelsTable).object_for(event.key)
        if isinstance(kernel, Kernel):
            self.post_message(OpenFrame(kernel_key(kernel), tab="kernels", kernel_id=kernel.id))

    # -- what `e` and `x` act on -------------------------------------------------------
    def current_frame(self) -> Frame | None:
        focused = self.focused
        if isinstance(focused, FramesTable):
            obj = focused.current_object
            return obj if isinstance(obj, Frame) else None
        if isinstance(focused, TopKernelsTable) and self.data is not None:
            kernel = focused.current_object
            return self.data.frame(kernel_key(kernel)) if isinstance(kernel, Kernel) else None
        if isinstance(focused, BreaksTable) and self.data is not None:
            group = focused.current_object
            if group is not None:
                for frame in self.data.frames:
                    if frame.compile_id in group.compile_ids:
                        return frame
        table = self.query_one(FramesTable)
        obj = table.current_object
        return obj if isinstance(obj, Frame) else None

    def current_location(self) -> Location | None:
        focused = self.focused
        if isinstance(focused, BreaksTable):
            group = focused.current_object
            if group is not None:
                return (group.filename, group.line)
        if isinstance(focused, TopKernelsTable):
            kernel = focused.current_object
            if isinstance(kernel, Kernel) and kernel.origins:
                return (kernel.origins[0].filename, kernel.origins[0].line)
        frame = self.current_frame()
        return (frame.filename, frame.line) if frame is not None else None
