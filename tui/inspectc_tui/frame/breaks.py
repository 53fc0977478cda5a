"""The Graph breaks tab: each break (and a failure) once, with its documentation page, the
line and the caret under the expression, the user's source around it (read in a worker),
what it means, the hints and the user stack from the user's code on."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.reactive import var
from textual.widget import Widget
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from inspectc.analysis.breaks import (
    Position,
    distinct_breaks,
    doc_url,
    positions,
    reason_if_new,
    title_and_explanation,
    user_site,
)
from inspectc.analysis.remedies import by_break, can_suggest
from inspectc.analysis.resume import BYTECODE_NOTE, bytecode, created_by
from inspectc.model import GraphBreak
from inspectc.render.words import consequence
from inspectc_tui.frame.base import FramePane, Location
from inspectc_tui.source import Excerpt, excerpt
from inspectc_tui.text import link, literal, location
from inspectc_tui.widgets.code_view import CodeView


@dataclass(frozen=True, slots=True)
class Entry:
    title: Text
    head: Text  # what, its page, where, the expression: shown above the source
    detail: Text  # explanation, hints, user stack: shown below it
    filename: str | None
    line: int | None
    reason: str | None = None
    columns: tuple[int, int] | None = None  # the expression in the (stripped) line


class BreaksPane(FramePane):
    # The highlighted entry (its index): the list sets it, watch_selected shows it.
    selected: var[int | None] = var(None, init=False)

    @dataclass(eq=False)
    class SourceRead(Message):
        """The source of break *index* was read (off the UI thread)."""

        index: int
        found: Excerpt

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
            self.query_one("#source-note").display = False
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
        base = self.data.run
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
        for number, (gb, count) in enumerate(distinct_breaks(self.frame.graph_breaks), 1):
            name, _ = title_and_explanation(gb)
            title = Text(f"{number}. ", style="bold yellow") + literal(name, one_line=True)
            if count > 1:
                title.append(f"  ×{count}", style="dim")
            stack = positions(gb, self.data.run.python_version)
            here = next((p for p in reversed(stack) if p.frame.line == gb.line), None)
            head = self._head(gb, here)
            detail = self._detail(gb, count, stack)
            columns = (
                (here.start, here.end) if here and here.start is not None and here.end is not None else None
            )
            entries.append(Entry(title, head, detail, gb.filename, gb.line, gb.reason, columns))
        return entries

    def _head(self, gb: GraphBreak, here: Position | None) -> Text:
        base = self.data.run
        name, _ = title_and_explanation(gb)
        head = literal(name, "bold yellow", one_line=True)
        url = doc_url(gb)
        head.append("\n")
        if gb.gb_id:
            head.append(f"{gb.gb_id}  ", style="bold")
        head.append_text(link(url) if url else Text("no documentation page recorded", style="dim"))
        head.append("\nat ", style="dim")
        site = user_site(gb)  # broke inside a library: the user's own line first
        if site is not None:
            head.append_text(literal(location(site.filename, site.line, base), "cyan"))
            head.append(" (inside ", style="dim")
            head.append_text(literal(location(gb.filename, gb.line, base)))
            head.append(")", style="dim")
        else:
            head.append_text(literal(location(gb.filename, gb.line, base), "cyan"))
        if here is not None and here.frame.function:
            head.append(" in ", style="dim")
            head.append_text(literal(here.frame.function))
        if here is not None and here.frame.code:
            head.append("\n    ")
            head.append_text(literal(here.frame.code.strip(), "bold"))
            caret = here.caret()
            head.append("\n    ")
            if caret:
                head.append(caret, style="bold red")
            else:
                head.append("(the expression's columns were not recorded)", style="dim")
        return head

    def _detail(self, gb: GraphBreak, count: int, stack: list[Position]) -> Text:
        out = Text()
        _, explanation = title_and_explanation(gb)
        extra = reason_if_new(gb)
        if extra:
            out.append_text(literal(extra))
            out.append("\n\n")
        if explanation:
            out.append_text(literal(explanation))
            out.append("\n\n")
        after = consequence(gb)
        if after:
            out.append_text(literal(after, "yellow"))
            out.append("\n\n")
        if count > 1:
            out.append(f"Recorded {count}× in this frame (Dynamo restarted its analysis).\n\n", style="dim")
        if gb.hints:
            out.append("Hints\n", style="bold")
            for hint in gb.hints:
                out.append("  → ", style="green")
                out.append_text(literal(hint))
                out.append("\n")
            out.append("\n")
        out.append_text(self._fixes(gb))
        if stack:
            out.append("User stack (most recent call last)\n", style="bold")
            out.append_text(self._stack(stack))
        out.append_text(self._resumes(gb))
        return out

    def _fixes(self, gb: GraphBreak) -> Text:
        """What ``inspectc suggest`` would try for this break, or the code change to make."""
        out = Text()
        if not hasattr(self, "_remedies"):  # once per pane: remedies read every frame
            self._remedies = by_break(self.data.frames)
        found = self._remedies.get((gb.filename, gb.line), [])
        if not found:
            return out
        out.append("Fix\n", style="bold")
        for remedy in found:
            out.append("  → ", style="green")
            if remedy.change is not None:
                out.append_text(literal(remedy.change.python, "bold"))
                prove = "inspectc suggest" if can_suggest(self.data.run) else "set it, then capture again"
                out.append(f"  (prove it on this script: {prove})", style="dim")
            else:
                out.append_text(literal(remedy.code or "", "bold"))
            out.append("\n")
        out.append("\n")
        return out

    def _resumes(self, gb: GraphBreak) -> Text:
        """The resume functions this break made and the bytecode Dynamo generated for them."""
        out = Text()
        for frame in created_by(self.data.frames, gb.filename, gb.line)[:2]:
            out.append("\nResume function ", style="bold")
            out.append_text(literal(frame.function or "?"))
            out.append(f"  (frame {frame.compile_id}): runs the rest of the function after the break\n")
            code = self.data.with_report(functools.partial(bytecode, frame=frame))
            for title, text in (("Modified bytecode", code.modified), ("Original bytecode", code.original)):
                out.append(f"  {title}\n", style="bold dim")
                if text is None:
                    out.append(f"    {BYTECODE_NOTE}\n", style="dim")
                    continue
                lines = text.splitlines()
                for row in lines[:60]:
                    out.append_text(literal("    " + row))
                    out.append("\n")
                if len(lines) > 60:
                    out.append(f"    … {len(lines) - 60} more lines\n", style="dim")
        return out

    def _stack(self, stack: list[Position]) -> Text:
        base = self.data.run
        out = Text()
        for pos in stack:
            sf = pos.frame
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
                caret = pos.caret()
                if caret and caret.strip() != "^" * len(sf.code.strip()):
                    out.append("      " + caret + "\n", style="red")
        return out

    # -- the highlighted entry -----------------------------------------------------------
    @on(OptionList.OptionHighlighted, "#break-list")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self.selected = event.option_index

    def watch_selected(self, index: int | None) -> None:
        if index is None:
            return
        entry = self.entries[index]
        self.query_one("#break-info", Static).update(entry.head)
        self.query_one("#break-more", Static).update(entry.detail)
        self._read_source(index, entry.filename, entry.line)

    @work(thread=True, exclusive=True, group="break-source", exit_on_error=False)
    def _read_source(self, index: int, filename: str | None, line: int | None) -> None:
        found = excerpt(filename, line, run_cwd=self.data.run.cwd, report_path=self.data.path)
        self.post_message(self.SourceRead(index, found))

    @on(SourceRead)
    def _show_source(self, message: SourceRead) -> None:
        if self.selected != message.index:
            return  # the user moved on
        found = message.found
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
        columns = self.entries[message.index].columns
        if columns is not None and 0 <= focus < len(found.lines):
            text = found.lines[focus]
            indent = len(text) - len(text.lstrip())
            view.underline = (focus, indent + columns[0], indent + columns[1])
        view.styles.height = len(found.lines)
