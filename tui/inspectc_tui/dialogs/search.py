"""`/`: search frames, graph-break reasons and kernel names; returns the chosen hit."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from inspectc_tui.data import ReportData, SearchHit
from inspectc_tui.text import function_name, literal

KIND_STYLE = {"frame": "bold", "break": "bold yellow", "kernel": "bold green"}


class SearchScreen(ModalScreen[SearchHit | None]):
    BINDINGS = [
        Binding("escape", "dismiss", "Close"),
        Binding("down", "to_results", "Results", show=False),
    ]

    def __init__(self, data: ReportData, query: str = "") -> None:
        super().__init__()
        self.data = data
        self.query_text = query
        self.hits: list[SearchHit] = []

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "Search frames, graph breaks, kernels"
            yield Input(value=self.query_text, placeholder="type to search; Enter opens", id="search-input")
            yield Static(id="search-count")
            yield OptionList(id="search-results")

    def on_mount(self) -> None:
        self._update(self.query_text)

    @on(Input.Changed, "#search-input")
    def _changed(self, event: Input.Changed) -> None:
        self._update(event.value)

    def _update(self, query: str) -> None:
        self.hits = self.data.search(query)
        results = self.query_one("#search-results", OptionList)
        results.clear_options()
        results.add_options(self._option(hit) for hit in self.hits)
        if self.hits:
            results.highlighted = 0
        count = self.query_one("#search-count", Static)
        if not query.strip():
            count.update(Text("frames (id, function, file) · graph-break reasons · kernel names"))
        else:
            more = "+" if len(self.hits) >= 300 else ""
            count.update(Text(f"{len(self.hits)}{more} matches"))

    @staticmethod
    def _option(hit: SearchHit) -> Option:
        label = Text(f"{hit.kind:<7}", style=KIND_STYLE.get(hit.kind, ""))
        label.append(f"{hit.frame:<8} ", style="dim")
        text = function_name(hit.text) if hit.kind == "frame" else hit.text
        label.append_text(literal(text, one_line=True))
        label.append("  ")
        label.append_text(literal(hit.detail, "dim", one_line=True))
        return Option(label)

    @on(Input.Submitted, "#search-input")
    def _submit(self) -> None:
        index = self.query_one("#search-results", OptionList).highlighted
        if self.hits:
            self.dismiss(self.hits[index or 0])

    @on(OptionList.OptionSelected, "#search-results")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.hits[event.option_index])

    def action_to_results(self) -> None:
        if self.hits:
            self.query_one("#search-results").focus()
