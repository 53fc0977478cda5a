"""A dialog showing the user source around one line (a kernel origin), highlighted."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from inspectc_tui.data import ReportData
from inspectc_tui.source import excerpt
from inspectc_tui.text import literal, location
from inspectc_tui.widgets.code_view import CodeView

Location = tuple[str | None, int | None]


class SourceDialog(ModalScreen[None]):
    # A modal screen hides the app's bindings: `e` is bound here again.
    BINDINGS = [Binding("escape,q", "dismiss", "Close"), Binding("e", "app.edit", "Edit")]

    def __init__(self, data: ReportData, filename: str | None, line: int | None, *, title: str = "") -> None:
        super().__init__()
        self.data = data
        self.filename = filename
        self.line = line
        self.title_text = title

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(id="source-title")
            yield CodeView(id="origin-source")
            yield Static("e: open in $EDITOR   Esc: close", id="source-help")

    def on_mount(self) -> None:
        found = excerpt(self.filename, self.line, run_cwd=self.data.run.cwd, report_path=self.data.path)
        title = literal(self.title_text, "bold") + Text("  ") if self.title_text else Text()
        title.append_text(literal(location(self.filename, self.line, self.data.run), "cyan"))
        view = self.query_one(CodeView)
        if found.note:
            title.append("\n")
            title.append_text(literal(found.note, "italic"))
            view.display = False
        else:
            focus = (found.focus or found.first) - found.first
            view.set_text("\n".join(found.lines), first_line=found.first, marks={focus})
            view.focus()
        self.query_one("#source-title", Static).update(title)

    def current_location(self) -> Location | None:
        return (self.filename, self.line)
