"""`a`: ``inspectc accuracy``'s verdict per graph, one row each: worst error against fp64 beside
eager's, the first diverging stage, CompilerBisector's pass, the node, its kernel and user line.

Enter on a row opens the frame on its kernels tab at that kernel (its code is beside it);
`s` shows the user line's source.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from inspectc.model.accuracy import DIVERGES, AccuracyRun, GraphAccuracy
from inspectc_tui.data import FrameKey, ReportData
from inspectc_tui.text import literal

Choice = tuple[FrameKey, int | None]  # the frame to open and the kernel to select there
VERDICT_STYLE = {DIVERGES: "bold red", "ok": "green"}


def _num(x: float | None) -> str:
    return "-" if x is None else f"{x:.3g}"


def _pass(g: GraphAccuracy) -> str:
    b = g.bisection
    if b is None:
        return "-"
    if not b.subsystem:
        return b.backend or "-"
    info = f" {b.debug_info}" if b.debug_info and b.debug_info != b.subsystem else ""
    return f"{b.subsystem}{info}"


class AccuracyScreen(ModalScreen[Choice | None]):
    BINDINGS = [
        Binding("escape,q,a", "dismiss", "Close"),
        Binding("s", "source", "User line"),
        Binding("e", "app.edit", "Edit"),
    ]

    def __init__(self, data: ReportData, accuracy: AccuracyRun | None) -> None:
        super().__init__()
        self.data = data
        self.accuracy = accuracy
        self.rows: list[GraphAccuracy] = list(accuracy.graphs) if accuracy else []

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "accuracy: compiled vs eager vs fp64"
            box.border_subtitle = "Enter: kernel   s: user line   Esc: close"
            yield Static(self._headline(), id="accuracy-headline")
            yield DataTable(id="accuracy-table", cursor_type="row", zebra_stripes=True)

    def _headline(self) -> Text:
        if self.accuracy is None:
            return Text("Accuracy not checked: run inspectc accuracy SCRIPT to write it.", style="dim")
        bad = len(self.accuracy.diverging)
        style = "bold red" if bad else "green"
        return Text(f"{bad} of {len(self.rows)} graphs diverge beyond fp64 noise", style=style)

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for name in (
            "graph",
            "kind",
            "verdict",
            "rel. err",
            "eager",
            "stage",
            "pass",
            "node",
            "kernel",
            "user line",
        ):
            table.add_column(name)
        for g in self.rows:
            loc = g.location
            kernel = loc.kernels[0].name if loc and loc.kernels else "-"
            line = f"{loc.filename}:{loc.line}" if loc and loc.filename else "-"
            worst = max((o.eager_rel_error or 0.0 for o in g.outputs), default=None)
            table.add_row(
                Text(str(g.compile_id)),
                Text(g.graph),
                Text(g.verdict, style=VERDICT_STYLE.get(g.verdict, "yellow")),
                Text(_num(g.max_rel_error)),
                Text(_num(worst if g.outputs else None)),
                literal(g.first_stage or "-", one_line=True),
                literal(_pass(g), one_line=True),
                literal(loc.node if loc and loc.node else "-", one_line=True),
                literal(kernel, one_line=True),
                literal(line, one_line=True),
            )
        table.focus()

    def _current(self) -> GraphAccuracy | None:
        table = self.query_one(DataTable)
        row = table.cursor_row
        return self.rows[row] if 0 <= row < len(self.rows) else None

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        g = self._current()
        if g is None:
            return
        key: FrameKey = g.compile_id
        frame = self.data.frame(key)
        if frame is None:
            self.notify(f"frame {g.compile_id} is not in this report", severity="warning", markup=False)
            return
        kernel_id = None
        if g.location and g.location.kernels:
            wanted = g.location.kernels[0]
            kernel_id = next(
                (
                    k.id
                    for k in self.data.frame_kernels(frame)
                    if k.name == wanted.name and k.graph_kind == wanted.graph_kind
                ),
                None,
            )
        self.dismiss((key, kernel_id))

    def current_location(self) -> tuple[str | None, int | None] | None:
        g = self._current()
        if g is None or g.location is None or not g.location.filename:
            return None
        return g.location.filename, g.location.line

    def action_source(self) -> None:
        from inspectc_tui.dialogs.source import SourceDialog

        where = self.current_location()
        if where is None:
            self.notify("no user line for this graph", severity="warning")
            return
        g = self._current()
        title = f"{g.location.node} = {g.location.target}" if g and g.location else ""
        self.app.push_screen(SourceDialog(self.data, where[0], where[1], title=title))
