"""CodeView: a read-only, line-numbered source view that highlights only what is on screen.

Graphs and output code run to megabytes; highlighting them whole (``Syntax``/``Static``)
costs seconds and memory. CodeView keeps the lines, lexes each visible line with Pygments
when first drawn (a bounded cache), and draws through the line API (``render_line``), so
opening a 100k-line module is instant. Lines are report data: control characters are
shown as escapes before lexing. A cursor line can be moved and chosen (Enter, click),
which fusion navigation uses. Long lines scroll sideways (←/→, the line numbers stay);
one expression can be underlined (a graph break's).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence

from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound
from rich.segment import Segment
from rich.style import Style
from rich.syntax import PygmentsSyntaxTheme
from rich.text import Text
from textual.binding import Binding
from textual.events import Click
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from inspectc_tui.text import escape_controls

_CACHE_LINES = 2000
_THEME = PygmentsSyntaxTheme("monokai")
_LANGUAGES = {"triton": "python", "python": "python", "cpp": "cpp", "c++": "cpp", "extern": "python"}


def _lexer(language: str | None) -> Lexer | None:
    if not language:
        return None
    try:
        return get_lexer_by_name(_LANGUAGES.get(language, language), stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None


class CodeView(ScrollView, can_focus=True):
    """Read-only source with line numbers, marked lines and an optional cursor."""

    BINDINGS = [
        Binding("up,k", "cursor(-1)", "Up", show=False),
        Binding("down,j", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown,space", "page(1)", "Page down", show=False),
        Binding("home,g", "edge(0)", "Top", show=False),
        Binding("end,G", "edge(1)", "Bottom", show=False),
        Binding("enter", "choose", "Go to", show=False),
        Binding("left,h", "sideways(-1)", "Left", show=False),
        Binding("right,l", "sideways(1)", "Right", show=False),
    ]

    class LineChosen(Message):
        """The user chose a line (Enter or click); ``index`` is 0-based."""

        def __init__(self, view: CodeView, index: int, line: str) -> None:
            self.view = view
            self.index = index
            self.line = line
            super().__init__()

        @property
        def control(self) -> CodeView:
            return self.view

    def __init__(
        self,
        text: str = "",
        *,
        language: str | None = "python",
        first_line: int = 1,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._lines: list[str] = []
        self._cache: OrderedDict[int, Text] = OrderedDict()
        self._lexer: Lexer | None = None
        self._first_line = first_line
        self._gutter = 0
        self.marks: set[int] = set()
        self.cursor: int | None = None
        self.underline: tuple[int, int, int] | None = None  # (line index, start, end) columns
        self.set_text(text, language=language, first_line=first_line)

    # -- content -----------------------------------------------------------------------
    def set_text(
        self,
        text: str,
        *,
        language: str | None = "python",
        first_line: int = 1,
        marks: set[int] | None = None,
        cursor: int | None = None,
    ) -> None:
        """Show *text*; *marks* and *cursor* are 0-based line indexes."""
        self._lines = text.split("\n") if text else []
        if self._lines and self._lines[-1] == "":
            self._lines.pop()
        self._lexer = _lexer(language)
        self._first_line = first_line
        self._cache.clear()
        self._gutter = len(str(first_line + max(len(self._lines) - 1, 0))) + 2
        self.marks = set(marks or ())
        self.cursor = cursor
        self.underline = None
        width = max((len(line) for line in self._lines), default=0) + self._gutter + 1
        self.virtual_size = Size(width, len(self._lines))
        self.scroll_to(0, 0, animate=False, immediate=True)
        self.refresh()

    @property
    def line_count(self) -> int:
        return len(self._lines)

    @property
    def first_line(self) -> int:
        """The line number shown for line index 0."""
        return self._first_line

    @property
    def lines(self) -> Sequence[str]:
        return self._lines

    def line(self, index: int) -> str:
        return self._lines[index] if 0 <= index < len(self._lines) else ""

    def show_line(self, index: int, *, cursor: bool = True) -> None:
        """Scroll so line *index* sits a third of the way down (and put the cursor there)."""
        if not self._lines:
            return
        index = max(0, min(index, len(self._lines) - 1))
        if cursor:
            self.cursor = index
        self.scroll_to(y=max(0, index - self.size.height // 3), animate=False, immediate=True)
        self.refresh()

    # -- drawing -----------------------------------------------------------------------
    def _highlighted(self, index: int) -> Text:
        cached = self._cache.get(index)
        if cached is not None:
            self._cache.move_to_end(index)
            return cached
        source = escape_controls(self._lines[index])
        text = Text(source, no_wrap=True, end="")
        if self._lexer is not None and source.strip():
            text = Text(no_wrap=True, end="")
            for token, value in self._lexer.get_tokens(source):
                style = _THEME.get_style_for_token(token)
                text.append(
                    value.rstrip("\n"), Style(color=style.color, bold=style.bold, italic=style.italic)
                )
        self._cache[index] = text
        if len(self._cache) > _CACHE_LINES:
            self._cache.popitem(last=False)
        return text

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y
        width = self.size.width
        base = self.rich_style
        if index >= len(self._lines):
            return Strip.blank(width, base)
        number = f"{self._first_line + index:>{self._gutter - 2}}  "
        gutter_style = base + Style(color="grey50")
        line_style = base
        if index in self.marks:
            gutter_style = base + Style(color="black", bgcolor="yellow", bold=True)
            line_style = base + Style(bgcolor="#3a3a1a")
        if index == self.cursor and self.has_focus:
            line_style = base + Style(bgcolor="#264f78")
        elif index == self.cursor:
            line_style = base + Style(bgcolor="#303846")
        code = self._highlighted(index)
        if self.underline is not None and self.underline[0] == index:
            code = code.copy()
            code.stylize("bold underline", self.underline[1], self.underline[2])
        segments = [
            Segment(seg.text, line_style + seg.style if seg.style else line_style)
            for seg in code.render(self.app.console)
            if seg.text
        ]
        room = max(width - self._gutter, 0)  # the line numbers stay put; the code scrolls
        body = Strip(segments).extend_cell_length(scroll_x + room, line_style).crop(scroll_x, scroll_x + room)
        return Strip([Segment(number, gutter_style), *body]).apply_offsets(scroll_x, index)

    # -- interaction ----------------------------------------------------------------------
    def _move(self, index: int) -> None:
        if not self._lines:
            return
        self.cursor = max(0, min(index, len(self._lines) - 1))
        top = self.scroll_offset.y
        height = max(self.size.height, 1)
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False)
        elif self.cursor >= top + height:
            self.scroll_to(y=self.cursor - height + 1, animate=False)
        self.refresh()

    def action_cursor(self, delta: int) -> None:
        start = self.cursor if self.cursor is not None else self.scroll_offset.y - delta
        self._move(start + delta)

    def action_page(self, direction: int) -> None:
        start = self.cursor if self.cursor is not None else self.scroll_offset.y
        self._move(start + direction * max(self.size.height - 1, 1))

    def action_edge(self, end: int) -> None:
        self._move(len(self._lines) - 1 if end else 0)

    def action_sideways(self, direction: int) -> None:
        self.scroll_to(x=max(0, self.scroll_offset.x + direction * 8), animate=False)

    def action_choose(self) -> None:
        if self.cursor is not None and self._lines:
            self.post_message(self.LineChosen(self, self.cursor, self._lines[self.cursor]))

    def on_click(self, event: Click) -> None:
        index = self.scroll_offset.y + event.y
        if 0 <= index < len(self._lines):
            already = self.cursor == index
            self._move(index)
            if already or event.chain > 1:
                self.action_choose()

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()
