"""The Graph breaks tab: each break (and a failure) with its reason, hints, user stack and
the user's source around it, highlighted, when the file can be read here."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widget import Widget
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from inspectc.report.model import GraphBreak, StackFrame
from inspectc_tui.frame.base import FramePane, Location
from inspectc_tui.source import excerpt
from inspectc_tui.text import literal, location
from inspectc_tui.widgets.code_view import CodeView


@dataclass(frozen=True, slots=True)
class Entry:
    title: Text
    head: Text  # what and where: shown above the source
    detail: Text  # explanation, hints, user stack: shown below it
    filename: str | None
    line: int | None
    reason: str | None = None


class BreaksPane(FramePane):
    DEFAULT_CSS = """
    BreaksPane #break-list { width: 38%; height: 1fr; border: none; }
    BreaksPane #break-detail { width: 1fr; height: 1fr; padding: 0 1; }
    BreaksPane #break-source { height: 13; margin-top: 1; }
    BreaksPane #source-note { color: $text-muted; margin-top: 1; }
    BreaksPane #break-more { margin-top: 1; }
    """

    def build(self) -> ComposeResult:
        with Horizontal(id="breaks-body"):
            yield OptionList(id="break-list")
            with VerticalScroll(id="break-detail"):
                yield Static(id="break-info")
                yield Static(id="source-note")
                yield CodeView(id="break-source")
                yield Static(id="break-more")

    def load(self) -> None:
        self.entries = self._entries()
        options = self.query_one("#break-list", OptionList)
        if not self.entries:
            self.query_one("#break-list").display = False
            self.query_one("#break-source").display = False
            self.query_one("#break-info", Static).update(
                Text("No graph breaks in this frame.", style="green")
            )
            return
        options.add_options(Option(e.title) for e in self.entries)
        options.highlighted = 0

    def main_widget(self) -> Widget | None:
        return self.query_one("#break-list") if getattr(self, "entries", None) else None

    def select_reason(self, reason: str) -> None:
        for index, entry in enumerate(self.entries):
            if entry.reason == reason:
                self.query_one("#break-list", OptionList).highlighted = index
                return

    def current_location(self) -> Location | None:
        index = self.query_one("#break-list", OptionList).highlighted
        if index is None or not getattr(self, "entries", None):
            return None
        entry = self.entries[index]
        return (entry.filename, entry.line)

    # -- entries -----------------------------------------------------------------------
    def _entries(self) -> list[Entry]:
        base = self.data.run.cwd
        entries = []
        failure = self.frame.failure
        if failure is not None:
            where = failure.filename or self.frame.filename
            line = failure.line if failure.filename else self.frame.line
            head = Text()
            head.append("Compilation failed: ", style="bold red")
            head.append_text(literal(failure.fail_type or "failure", "bold red"))
            head.append("\nat ", style="dim")
            head.append_text(literal(location(where, line, base), "cyan"))
            detail = literal(failure.reason, empty="(no reason recorded)")
            title = Text("✗ ", style="bold red") + literal(failure.fail_type or "failed", "red")
            entries.append(Entry(title, head, detail, where, line))
        for number, gb in enumerate(self.frame.graph_breaks, 1):
            title = Text(f"{number}. ", style="bold yellow") + literal(gb.reason, one_line=True)
            head, detail = self._detail(gb, base)
            entries.append(Entry(title, head, detail, gb.filename, gb.line, gb.reason))
        return entries

    @staticmethod
    def _detail(gb: GraphBreak, base: str | None) -> tuple[Text, Text]:
        head = Text()
        head.append_text(literal(gb.gb_type or gb.reason, "bold yellow", one_line=True))
        if gb.gb_id:
            head.append(f"  {gb.gb_id}", style="dim")
        head.append("\nat ", style="dim")
        head.append_text(literal(location(gb.filename, gb.line, base), "cyan"))
        out = Text()
        # torch writes the reason as "<type>: <explanation>"; show it only if it says more.
        said = {gb.gb_type, f"{gb.gb_type}: {gb.explanation}", gb.explanation}
        if gb.reason.strip() not in said:
            out.append_text(literal(gb.reason.strip()))
            out.append("\n\n")
        if gb.explanation:
            out.append_text(literal(gb.explanation))
            out.append("\n\n")
        if gb.hints:
            out.append("Hints\n", style="bold")
            for hint in gb.hints:
                out.append("  → ", style="green")
                out.append_text(literal(hint))
                out.append("\n")
            out.append("\n")
        if gb.user_stack:
            out.append("User stack (most recent call last)\n", style="bold")
            out.append_text(_stack(gb.user_stack, base))
        return head, out

    @on(OptionList.OptionHighlighted, "#break-list")
    def _show(self, event: OptionList.OptionHighlighted) -> None:
        entry = self.entries[event.option_index]
        self.query_one("#break-info", Static).update(entry.head)
        self.query_one("#break-more", Static).update(entry.detail)
        found = excerpt(entry.filename, entry.line, run_cwd=self.data.run.cwd, report_path=self.data.path)
        note = self.query_one("#source-note", Static)
        view = self.query_one("#break-source", CodeView)
        if found.note:
            note.update(literal(found.note))
            note.display = True
            view.display = False
            return
        note.display = False  # the head already says where
        view.display = True
        focus = (found.focus or found.first) - found.first
        view.set_text("\n".join(found.lines), first_line=found.first, marks={focus})
        view.styles.height = len(found.lines)


def _stack(stack: tuple[StackFrame, ...], base: str | None) -> Text:
    out = Text()
    for sf in stack:
        out.append("  ")
        out.append_text(literal(location(sf.filename, sf.line, base), "cyan"))
        if sf.function:
            out.append(" in ", style="dim")
            out.append_text(literal(sf.function))
        out.append("\n")
        if sf.code:
            out.append("      ")
            out.append_text(literal(sf.code.strip(), "italic"))
            out.append("\n")
    return out
