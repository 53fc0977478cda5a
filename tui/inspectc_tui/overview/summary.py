"""`m`: the report's summary, section by section: the same :class:`Page` the terminal summary,
the share Markdown, the HTML page and the JSON export render (so their counts, breaks,
recompiles and suggestions agree), drawn as literal ``Text``."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from inspectc.render.sections import CODE, DIM, ERROR, STRONG, WARNING, Item, Line, Page, Section, text_of
from inspectc_tui.text import literal

_SPAN_STYLE = {CODE: "cyan", STRONG: "bold", DIM: "dim"}
_TITLE_STYLE = {ERROR: "bold red", WARNING: "bold yellow"}


def line_text(spans: Line) -> Text:
    """A line of spans as literal Text (links underlined; nothing parsed as markup)."""
    out = Text()
    for s in spans:
        style = _SPAN_STYLE.get(s.style, "")
        if s.link:
            style = f"{style} underline".strip()
        out.append_text(literal(s.text, style))
    return out


def _item(item: Item) -> Text:
    out = Text("  ")
    out.append_text(line_text(item.line))
    for note in item.notes:
        out.append("\n      ")
        out.append_text(line_text(note))
    return out


def section_text(s: Section) -> Text:
    out = Text()
    if s.titled:
        out.append_text(literal(s.title, _TITLE_STYLE.get(s.severity, "bold")))
    for label, value in s.fields:
        out.append("\n  ")
        out.append_text(literal(f"{label}: ", "bold cyan"))
        out.append_text(literal(value, one_line=True))
    for item in s.items:
        out.append("\n")
        out.append_text(_item(item))
    if s.table is not None:
        head = "  ".join(c.name for c in s.table.columns)
        out.append("\n  ")
        out.append(head, style="bold")
        for row in s.table.rows:
            out.append("\n  ")
            out.append_text(literal("  ".join(text_of(cell) for cell in row)))
    for note in s.notes:
        out.append("\n  ")
        out.append_text(line_text(note))
    return out


def page_text(page: Page) -> Text:
    out = literal(page.headline, "bold")
    for fact in page.facts:
        out.append("\n  ")
        out.append_text(line_text(fact))
    return out


class SummaryScreen(ModalScreen[None]):
    """The summary page, scrollable; Esc, q or m closes it."""

    BINDINGS = [
        Binding("escape", "dismiss", "Close"),
        Binding("q", "dismiss", "Close", show=False),
        Binding("m", "dismiss", "Close", show=False),
    ]

    def __init__(self, page: Page) -> None:
        super().__init__()
        self.page = page

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="summary-page"):
            yield Static(page_text(self.page), id="summary-head")
            for s in self.page.sections:
                yield Static(section_text(s), classes="summary-section", id=f"summary-{s.key}")

    def action_dismiss(self) -> None:  # type: ignore[override]
        self.dismiss(None)
