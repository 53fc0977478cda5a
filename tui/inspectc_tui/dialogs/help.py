"""`?`: every key binding, grouped by where it applies."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

HELP: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    (
        "Everywhere",
        (
            ("/", "search frames, graph-break reasons and kernel names"),
            ("?", "this help"),
            ("i", "the run: command, versions, capture's options, problems"),
            ("m", "the summary: what to fix first (measured costs), breaks, recompiles, suggestions"),
            ("t", "every graph break under its user stack (a stack trie)"),
            ("a", "accuracy per graph (inspectc accuracy): Enter opens the kernel, s the user line"),
            ("r", "what differs between ranks: frames, caches, collectives, execution order"),
            ("e", "open the current file:line in $EDITOR"),
            ("x", "export the current frame's fusion graph (asks which folder)"),
            ("q", "quit"),
            ("Tab / Shift+Tab", "move between panels"),
            ("mouse", "click rows, tabs and headers; wheel scrolls"),
        ),
    ),
    (
        "Overview",
        (
            ("Enter", "open the frame, break or kernel under the cursor"),
            ("f / b / k", "go to frames / graph breaks / top kernels"),
            ("s / S", "sort the table by the next column / reverse the sort"),
            ("click a header", "sort by that column (again: reverse)"),
        ),
    ),
    (
        "Frame",
        (
            ("1 … 6", "graph breaks, guards, FX graphs, kernels, metrics, events"),
            ("[ / ]", "previous / next tab"),
            ("n / p", "next / previous frame (the overview's order), same tab"),
            ("f (guards)", "filter the guards; Enter: back to the tree, Esc: clear"),
            ("r", "read the frame again (a followed run changed it)"),
            ("Esc / Backspace", "back to the overview"),
        ),
    ),
    (
        "Fusion navigation",
        (
            ("Enter on an FX node line", "go to the kernel that fused it"),
            ("Enter on a kernel's node", "go to the node's line in the FX graph"),
            ("Enter on a kernel's origin", "show the user source it came from"),
        ),
    ),
    (
        "Source views",
        (
            ("↑ ↓ PgUp PgDn", "move the cursor"),
            ("← → (h / l)", "scroll long lines sideways (guards, graphs, kernel source)"),
            ("g / G", "top / bottom"),
        ),
    ),
)


def help_table() -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold cyan", no_wrap=True)
    table.add_column()
    for section, rows in HELP:
        table.add_row(Text(section, style="bold underline"), "")
        for keys, what in rows:
            table.add_row(keys, what)
        table.add_row("", "")
    return table


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "Close")]

    def compose(self) -> ComposeResult:
        with VerticalScroll() as scroll:
            scroll.border_title = "inspectc keys"
            scroll.border_subtitle = "Esc to close"
            yield Static(help_table())
