"""`x`: export a frame's fusion graph, saying first which files go where (and asking)."""

from __future__ import annotations

import shutil
from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from inspectc_tui.text import literal


class ExportScreen(ModalScreen[Path | None]):
    """Returns the folder to write into, or None (Esc)."""

    BINDINGS = [Binding("escape", "dismiss", "Cancel")]

    def __init__(self, frame_label: str, stem: str, folder: Path) -> None:
        super().__init__()
        self.frame_label = frame_label
        self.stem = stem
        self.folder = folder

    def compose(self) -> ComposeResult:
        svg = shutil.which("dot") is not None
        what = Text(f"Export the fusion graph of frame {self.frame_label}\n", style="bold")
        what.append("writes ")
        what.append_text(literal(f"{self.stem}.dot", "bold cyan"))
        if svg:
            what.append(" and ")
            what.append_text(literal(f"{self.stem}.svg", "bold cyan"))
        else:
            what.append(" (no .svg: graphviz's `dot` is not installed)", style="dim")
        what.append(" into this folder:")
        with Vertical() as box:
            box.border_title = "graphviz export"
            box.border_subtitle = "Enter: write · Esc: cancel"
            yield Static(what, id="export-what")
            yield Input(value=str(self.folder), id="export-folder")
            yield Static(id="export-error")

    def on_mount(self) -> None:
        self.query_one("#export-error").display = False

    @on(Input.Submitted, "#export-folder")
    def _submit(self, event: Input.Submitted) -> None:
        folder = Path(event.value.strip() or ".").expanduser()
        if not folder.is_dir():
            error = self.query_one("#export-error", Static)
            error.update(Text("not a folder: ", style="bold red") + literal(str(folder)))
            error.display = True
            return
        self.dismiss(folder)
