"""The inspectc TUI app: loads a report in a worker, then lets you walk through it.

Screens: :class:`OverviewScreen` (run, frames, breaks, top kernels),
:class:`FrameScreen` (one frame in tabs) and the run's break stacks; dialogs for help,
search, source, the run and export. Global keys live here: `/` search, `?` help, `i` the
run, `m` the summary, `t` break stacks, `a` accuracy, `e` editor, `x` graphviz export (asks where first), `q` quit.

With ``follow=True`` the report is read again whenever the file changes (a run that
``inspectc run`` is still writing commits every 0.2 s) until the run has ended.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

from textual import work
from textual.app import App, SuspendNotSupported
from textual.binding import Binding
from textual.screen import Screen
from textual.worker import get_current_worker

from inspectc.errors import InspectcError
from inspectc.model import Frame, Run
from inspectc_tui.actions import editor_command, export_file_stem, export_graph, graph_exporter
from inspectc_tui.data import ReportData, SearchHit, frame_key, load_report
from inspectc_tui.follow import Stamp, follow_report, stamp, watch
from inspectc_tui.messages import (
    LoadFailed,
    LoadProgress,
    OpenFrame,
    ReportLoaded,
    ReportNotice,
    ReportUpdated,
    RunRead,
    StepFrame,
)
from inspectc_tui.overview.screen import OverviewScreen
from inspectc_tui.source import resolve

EditorRunner = Callable[[list[str]], int]


def default_tab(frame: Frame) -> str:
    if frame.graph_breaks or frame.failure:
        return "breaks"
    if frame.recompiles:
        return "guards"
    return "kernels" if frame.kernel_count else "graphs"


class InspectcApp(App[None]):
    CSS_PATH = Path(__file__).with_name("app.tcss")  # absolute: subclasses live elsewhere
    TITLE = "inspectc"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]
    BINDINGS = [
        Binding("q", "quit", "Quit"),
        Binding("question_mark", "help", "Help"),
        Binding("slash", "search", "Search"),
        Binding("i", "run_details", "Run"),
        Binding("m", "summary", "Summary"),
        Binding("t", "break_stacks", "Break stacks"),
        Binding("a", "accuracy", "Accuracy", show=False),
        Binding("r", "rank_differences", "Ranks", show=False),
        Binding("e", "edit", "Edit"),
        Binding("x", "export_graph", "Export…"),
    ]

    def __init__(
        self,
        path: str | Path,
        *,
        editor: EditorRunner | None = None,
        export_dir: Path | None = None,
        follow: bool = False,
        follow_every_s: float = 0.5,
    ) -> None:
        super().__init__()
        self.path = Path(path)
        self.data: ReportData | None = None
        self.export_dir = export_dir or Path.cwd()
        self.follow = follow
        self.follow_every_s = follow_every_s
        self._editor = editor

    def get_default_screen(self) -> Screen:
        return OverviewScreen(self.path.name)

    @property
    def overview(self) -> OverviewScreen:
        screen = self.screen_stack[0]
        assert isinstance(screen, OverviewScreen)
        return screen

    def on_mount(self) -> None:
        # Read after the first paint, so the reader thread does not delay it.
        self.call_after_refresh(self.load)

    def on_unmount(self) -> None:
        from inspectc.store import untrusted

        untrusted.cancel()  # a loader thread still reading stops within a second, so exit ends
        if self.data is not None:
            self.data.close()

    # -- loading -----------------------------------------------------------------------
    @work(thread=True, exclusive=True, exit_on_error=False)
    def load(self) -> None:
        def progress(what: str, fraction: float) -> None:
            self.post_message(LoadProgress(what, fraction))

        def run_read(run: Run) -> None:
            self.post_message(RunRead(run))

        worker = get_current_worker()
        try:
            if self.follow:  # the run may not have created its report yet
                data = follow_report(
                    self.path,
                    progress,
                    on_run=run_read,
                    every_s=self.follow_every_s,
                    cancelled=lambda: worker.is_cancelled,
                )
            else:
                data = load_report(self.path, progress, on_run=run_read)
        except InspectcError as exc:
            self.post_message(LoadFailed(str(exc)))
            return
        except Exception as exc:  # noqa: BLE001 - a bug reading a stranger's report: said, not a hang
            first = (str(exc).splitlines() or [""])[0][:200]
            self.post_message(
                LoadFailed(f"{self.path}: cannot read the report ({type(exc).__name__}: {first})")
            )
            return
        self.post_message(ReportLoaded(data))
        # While the user reads the overview: import the frame screen, so Enter is quick.
        import inspectc_tui.frame.screen  # noqa: F401

    @work(thread=True, exclusive=True, group="follow", exit_on_error=False)
    def _follow(self, seen: Stamp) -> None:
        worker = get_current_worker()
        for fresh in watch(
            self.path, seen, every_s=self.follow_every_s, cancelled=lambda: worker.is_cancelled
        ):
            if worker.is_cancelled:
                fresh.close()
                return
            self.post_message(ReportUpdated(fresh))

    def on_run_read(self, message: RunRead) -> None:
        self.overview.show_run(message.run)

    def on_load_progress(self, message: LoadProgress) -> None:
        self.overview.show_progress(message.what, message.fraction)

    def on_load_failed(self, message: LoadFailed) -> None:
        self.overview.show_error(message.error)
        self.notify(message.error, title="cannot open report", severity="error", markup=False)

    def on_report_loaded(self, message: ReportLoaded) -> None:
        self.data = message.data
        self.overview.show_data(message.data)
        for line in message.data.notices:
            self.notify(line, title="report", severity="warning", markup=False, timeout=8)
        if self.follow:
            self._follow(stamp(self.path))
        else:  # any thread's lazy read may find the file changed: said once, as a message
            message.data.on_change = lambda line: self.post_message(ReportNotice(line))

    def on_report_notice(self, message: ReportNotice) -> None:
        self.notify(message.text, title="report", severity="warning", markup=False, timeout=8)

    def on_report_updated(self, message: ReportUpdated) -> None:
        if self.data is None:
            return
        shown = [s.frame for s in self.screen_stack if hasattr(s, "frame") and hasattr(s, "data")]
        self.data.update(message.data)
        self.overview.show_data(self.data)
        for frame in shown:
            newer = self.data.frame(frame_key(frame))
            if newer is not None and newer != frame:
                label = frame.compile_id.label
                self.notify(f"frame {label} changed: press r to read it again", timeout=4)

    # -- navigation --------------------------------------------------------------------
    def on_open_frame(self, message: OpenFrame) -> None:
        if self.data is None:
            return
        frame = self.data.frame(message.key)
        if frame is None:
            return
        from inspectc_tui.frame.screen import FrameScreen  # imported when first needed: faster start

        while len(self.screen_stack) > 1:
            self.pop_screen()
        chosen = message.kernel_id is not None or message.break_reason is not None or message.exact_tab
        tab = message.tab if chosen else default_tab(frame)
        self.push_screen(
            FrameScreen(
                self.data, frame, tab=tab, kernel_id=message.kernel_id, break_reason=message.break_reason
            )
        )

    def on_step_frame(self, message: StepFrame) -> None:
        order = self.overview.frame_order()
        keys = [frame_key(f) for f in order]
        if message.key not in keys or not keys:
            return
        index = keys.index(message.key) + message.step
        if not 0 <= index < len(keys):
            self.notify("no next frame" if message.step > 0 else "no previous frame", timeout=1.5)
            return
        self.overview.show_frame(order[index])
        self.post_message(OpenFrame(keys[index], message.tab, exact_tab=True))

    def action_run_details(self) -> None:
        from inspectc_tui.dialogs.run import RunScreen

        if self.data is not None and not isinstance(self.screen, RunScreen):
            self.push_screen(RunScreen(self.data.run, self.data.account))

    def action_rank_differences(self) -> None:
        from inspectc_tui.dialogs.ranks import RanksScreen

        if self.data is not None and not isinstance(self.screen, RanksScreen):
            ranks = {f.rank for f in self.data.frames}
            self.push_screen(RanksScreen(self.data.rank_differences(), len(ranks), self.data.runtime_lines()))

    def action_summary(self) -> None:
        from inspectc_tui.overview.summary import SummaryScreen

        if self.data is not None and not isinstance(self.screen, SummaryScreen):
            self.push_screen(SummaryScreen(self.data.summary_page()))

    def action_break_stacks(self) -> None:
        from inspectc_tui.overview.stacks import BreakStacksScreen

        if self.data is not None and not isinstance(self.screen, BreakStacksScreen):
            self.push_screen(BreakStacksScreen(self.data))

    def action_accuracy(self) -> None:
        from inspectc_tui.dialogs.accuracy import AccuracyScreen, Choice

        if self.data is None or isinstance(self.screen, AccuracyScreen):
            return

        def chosen(choice: Choice | None) -> None:
            if choice is not None:
                self.post_message(OpenFrame(choice[0], "kernels", choice[1], exact_tab=True))

        self.push_screen(AccuracyScreen(self.data, self.data.accuracy), chosen)

    def action_help(self) -> None:
        from inspectc_tui.dialogs.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def action_search(self) -> None:
        from inspectc_tui.dialogs.search import SearchScreen

        if self.data is None or isinstance(self.screen, SearchScreen):
            return

        def chosen(hit: SearchHit | None) -> None:
            if hit is not None:
                tab = "kernels" if hit.kernel_id is not None else "breaks"
                self.post_message(OpenFrame(hit.frame, tab, hit.kernel_id, hit.break_reason))

        self.push_screen(SearchScreen(self.data), chosen)

    # -- leaving the TUI ---------------------------------------------------------------
    def action_edit(self) -> None:
        getter = getattr(self.screen, "current_location", None)
        where = getter() if getter is not None else None
        if self.data is None or where is None or not where[0]:
            self.notify("no source location here", severity="warning")
            return
        filename, line = where
        path = resolve(filename, self.data.run.cwd, self.data.path)
        if path is None:
            self.notify(f"source not available on this machine: {filename}", severity="warning", markup=False)
            return
        self.run_editor(editor_command(path, line))

    def run_editor(self, command: list[str]) -> None:
        if self._editor is not None:
            self._editor(command)
            return
        try:
            with self.suspend():
                subprocess.run(command, check=False)
        except SuspendNotSupported:
            self.notify("cannot suspend to run an editor in this terminal", severity="warning")
        except OSError as exc:
            self.notify(f"cannot run {command[0]}: {exc.strerror or exc}", severity="error", markup=False)

    def action_export_graph(self) -> None:
        getter = getattr(self.screen, "current_frame", None)
        frame = getter() if getter is not None else None
        if self.data is None or frame is None:
            self.notify("choose a frame to export", severity="warning")
            return
        if graph_exporter() is None:
            self.notify("graph export not available", severity="warning")
            return
        from inspectc_tui.dialogs.export import ExportScreen

        def chosen(folder: Path | None) -> None:
            if folder is not None:
                self.export_dir = folder
                self._export(frame, folder)

        stem = export_file_stem(self.path, frame.compile_id)
        label = frame.compile_id.label
        self.push_screen(ExportScreen(label, stem, self.export_dir), chosen)

    @work(thread=True, exclusive=True, group="export", exit_on_error=False)
    def _export(self, frame: Frame, folder: Path) -> None:
        assert self.data is not None
        try:
            paths = self.data.with_report(
                lambda report: export_graph(report, frame.compile_id, folder, named=self.path)
            )
        except (InspectcError, OSError, subprocess.SubprocessError, LookupError) as exc:
            self.call_from_thread(self.notify, f"graph export failed: {exc}", severity="error", markup=False)
            return
        names = ", ".join(str(p) for p in paths)
        self.call_from_thread(self.notify, f"wrote {names}", title="graphviz", markup=False)
