"""VirtualTable: a sortable row table that draws only the rows on screen.

DataTable measures every cell of every row when rows are added (and again after each
sort): about a third of a second per thousand rows here. This table keeps one object
and its pre-built cells per row, sizes columns from the cells' plain text, and renders
rows through the line API when they scroll into view; sorting reorders a list. Keys:
arrows, PageUp/PageDown, Home/End, Enter, `s` sorts by the next column, `S` reverses;
mouse: click a row, click it again to open it, click a header to sort (again to reverse).
A cell too wide for its column is cut at its end, in its middle (names: a kernel's kind and
number survive) or, for paths, at separators (the file name and line survive).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.events import Click
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from inspectc_tui.text import cut_middle, short_path

_CACHE_ROWS = 400


@dataclass(slots=True)
class Column:
    """A column; a *flex* one shrinks (down to *min_width*) or grows to fill the table."""

    key: str
    label: Text
    max_width: int = 60
    width: int = 0  # the widest cell, up to max_width
    sort_key: Callable[[Any], Any] | None = None
    flex: bool = False
    min_width: int = 12
    cut: str = "end"  # where a long cell loses text: "end", "middle" (names), "path"
    shown: int = 0  # the width drawn at the table's current size


class VirtualTable(ScrollView, can_focus=True):
    """Rows of (key, object, cells); one row under a cursor."""

    COMPONENT_CLASSES = {"vtable--header", "vtable--cursor", "vtable--even"}

    BINDINGS = [
        Binding("up", "move(-1)", "Up", show=False),
        Binding("down", "move(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "edge(0)", "First", show=False),
        Binding("end", "edge(1)", "Last", show=False),
        Binding("enter", "select", "Open", show=False),
        Binding("s", "sort_next", "Sort"),
        Binding("S", "sort_reverse", "Reverse", show=False),
    ]

    class RowHighlighted(Message):
        def __init__(self, table: VirtualTable, key: str) -> None:
            self.table = table
            self.key = key
            super().__init__()

        @property
        def control(self) -> VirtualTable:
            return self.table

    class RowSelected(Message):
        def __init__(self, table: VirtualTable, key: str) -> None:
            self.table = table
            self.key = key
            super().__init__()

        @property
        def control(self) -> VirtualTable:
            return self.table

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.columns: list[Column] = []
        self._order: list[str] = []
        self._objects: dict[str, Any] = {}
        self._cells: dict[str, list[Text]] = {}
        self._index: dict[str, int] = {}
        self._cache: OrderedDict[tuple[str, bool, bool], Strip] = OrderedDict()
        self.cursor = 0
        self.sorted_by: tuple[str, bool] | None = None
        self._place: tuple[tuple[str, bool] | None, str | None] = (None, None)

    # -- content -----------------------------------------------------------------------
    def set_columns(self, *columns: Column) -> None:
        self.columns = list(columns)
        for column in self.columns:
            # A sortable header has room for its " ▼": "Calls ▼", never "Call…".
            label = cell_len(column.label.plain) + (2 if column.sort_key is not None else 0)
            column.width = min(label, max(column.max_width, label))

    def reset(self) -> None:
        """Empty the table; the next :meth:`done` puts back the sort and the cursor row."""
        self._place = (self.sorted_by, self.current_key)
        self._order.clear()
        self._objects.clear()
        self._cells.clear()
        self._index.clear()
        self.cursor = 0
        self.sorted_by = None
        self._changed()

    def add_object(self, key: str, obj: Any, cells: list[Text]) -> None:
        self._objects[key] = obj
        self._cells[key] = cells
        self._index[key] = len(self._order)
        self._order.append(key)
        for column, cell in zip(self.columns, cells, strict=False):
            width = cell_len(cell.plain)
            if width > column.width:
                column.width = min(width, column.max_width)

    def done(self) -> None:
        """Call after adding rows: sizes the scroll area and announces the cursor row."""
        sorted_by, key = self._place
        self._place = (None, None)
        if sorted_by is not None and any(c.key == sorted_by[0] for c in self.columns):
            self.sort_by(sorted_by[0], reverse=sorted_by[1])
        if key is not None and key in self._index:
            self.cursor = self._index[key]
        self._changed()
        if self._order:
            self.post_message(self.RowHighlighted(self, self._order[self.cursor]))

    def _changed(self) -> None:
        self._cache.clear()
        self._layout_columns()
        self.refresh()

    def _layout_columns(self) -> None:
        """Shown widths: flexible columns take what the others leave (or give some back)."""
        flex = [c for c in self.columns if c.flex]
        fixed = sum(c.width + 2 for c in self.columns if not c.flex)
        room = max(self.size.width - fixed - 2 * len(flex) - 1, 0)
        for column in self.columns:
            column.shown = column.width
        if flex:  # each flexible column gets its minimum, then the room left goes to those cut
            for column in flex:
                column.shown = min(column.min_width, column.width)
            left = room - sum(c.shown for c in flex)
            while left > 0:
                growing = [c for c in flex if c.shown < c.width]
                if not growing:
                    break
                step = max(left // len(growing), 1)
                for column in growing:
                    grow = min(step, column.width - column.shown, left)
                    column.shown += grow
                    left -= grow
        width = sum(c.shown + 2 for c in self.columns)
        self.virtual_size = Size(width, len(self._order) + 1)

    @property
    def row_count(self) -> int:
        return len(self._order)

    def row_keys(self) -> list[str]:
        return list(self._order)

    def object_for(self, key: str) -> Any:
        return self._objects.get(key)

    def cells_for(self, key: str) -> list[Text]:
        return self._cells.get(key, [])

    @property
    def current_key(self) -> str | None:
        return self._order[self.cursor] if self._order else None

    @property
    def current_object(self) -> Any:
        key = self.current_key
        return None if key is None else self._objects.get(key)

    def select_key(self, key: str) -> None:
        index = self._index.get(key)
        if index is not None:
            self._move_to(index, center=True)

    # -- sorting -----------------------------------------------------------------------
    def sort_by(self, column_key: str, reverse: bool | None = None) -> None:
        column = next((c for c in self.columns if c.key == column_key), None)
        if column is None or column.sort_key is None:
            return
        if reverse is None:
            reverse = self.sorted_by == (column_key, False)
        current = self.current_key
        key_fn = column.sort_key
        objects = self._objects
        self._order.sort(key=lambda k: key_fn(objects[k]), reverse=reverse)
        self._index = {k: i for i, k in enumerate(self._order)}
        self.sorted_by = (column_key, reverse)
        self._changed()
        if current is not None:
            self.cursor = self._index[current]
            self._scroll_to_cursor()

    # -- drawing -----------------------------------------------------------------------
    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.size.width
        if y == 0:
            strip = self._render_header()
        else:
            index = scroll_y + y - 1
            if index >= len(self._order):
                return Strip.blank(width, self.rich_style)
            strip = self._render_row(index)
        return strip.crop_extend(scroll_x, scroll_x + width, self.rich_style)

    def _render_header(self) -> Strip:
        style = self.get_component_rich_style("vtable--header")
        segments: list[Segment] = []
        for column in self.columns:
            label = column.label.copy()
            if self.sorted_by and self.sorted_by[0] == column.key:
                label = label + Text(" ▼" if not self.sorted_by[1] else " ▲", style="dim")
            segments.extend(self._cell(label, column.shown, style))
        return Strip(segments).extend_cell_length(max(self.virtual_size.width, self.size.width), style)

    def _render_row(self, index: int) -> Strip:
        key = self._order[index]
        is_cursor = index == self.cursor
        cache_key = (key, is_cursor, self.has_focus)
        cached = self._cache.get(cache_key)
        if cached is not None:
            return cached
        style = self.rich_style
        if index % 2:
            style += self.get_component_rich_style("vtable--even")
        if is_cursor:
            style += self.get_component_rich_style("vtable--cursor")
        segments: list[Segment] = []
        for column, cell in zip(self.columns, self._cells[key], strict=False):
            segments.extend(self._cell(cell, column.shown, style, cut=column.cut))
        strip = Strip(segments).extend_cell_length(max(self.virtual_size.width, self.size.width), style)
        self._cache[cache_key] = strip
        if len(self._cache) > _CACHE_ROWS:
            self._cache.popitem(last=False)
        return strip

    def _cell(self, text: Text, width: int, base: Style, *, cut: str = "end") -> list[Segment]:
        cell = _shortened(text, width, cut) if cut != "end" and text.cell_len > width > 1 else text.copy()
        cell.no_wrap = True
        cell.truncate(width, overflow="ellipsis", pad=False)
        pad = width - cell.cell_len
        if text.justify == "right":
            cell.pad_left(pad)
        else:
            cell.pad_right(pad)
        cell.pad_left(1)
        cell.pad_right(1)
        console = self.app.console
        return [
            Segment(seg.text, base + seg.style if seg.style else base)
            for seg in cell.render(console)
            if seg.text
        ]

    def on_resize(self) -> None:
        self._cache.clear()
        self._layout_columns()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._cache.clear()

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    # -- cursor ------------------------------------------------------------------------
    def _move_to(self, index: int, *, center: bool = False) -> None:
        if not self._order:
            return
        index = max(0, min(index, len(self._order) - 1))
        changed = index != self.cursor
        self.cursor = index
        self._scroll_to_cursor(center=center)
        self.refresh()
        if changed or center:
            self.post_message(self.RowHighlighted(self, self._order[index]))

    def _scroll_to_cursor(self, *, center: bool = False) -> None:
        rows = max(self.size.height - 1, 1)
        top = self.scroll_offset.y
        if center:
            self.scroll_to(y=max(0, self.cursor - rows // 2), animate=False)
        elif self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False)
        elif self.cursor >= top + rows:
            self.scroll_to(y=self.cursor - rows + 1, animate=False)

    def action_move(self, delta: int) -> None:
        self._move_to(self.cursor + delta)

    def action_page(self, direction: int) -> None:
        self._move_to(self.cursor + direction * max(self.size.height - 2, 1))

    def action_edge(self, end: int) -> None:
        self._move_to(len(self._order) - 1 if end else 0)

    def action_select(self) -> None:
        if self._order:
            self.post_message(self.RowSelected(self, self._order[self.cursor]))

    def on_click(self, event: Click) -> None:
        if event.y == 0:
            self._click_header(event.x + self.scroll_offset.x)
            return
        index = self.scroll_offset.y + event.y - 1
        if 0 <= index < len(self._order):
            again = index == self.cursor
            self._move_to(index)
            if again or event.chain > 1:
                self.action_select()

    def action_sort_next(self) -> None:
        """Sort by the next sortable column (after the one sorted by, or the first)."""
        keys = [c.key for c in self.columns if c.sort_key is not None]
        if not keys:
            return
        current = self.sorted_by[0] if self.sorted_by else None
        following = keys[(keys.index(current) + 1) % len(keys)] if current in keys else keys[0]
        self.sort_by(following, reverse=False)

    def action_sort_reverse(self) -> None:
        if self.sorted_by is not None:
            self.sort_by(self.sorted_by[0], reverse=not self.sorted_by[1])

    def _click_header(self, x: int) -> None:
        left = 0
        for column in self.columns:
            right = left + column.shown + 2
            if left <= x < right:
                self.sort_by(column.key)
                return
            left = right


def _shortened(text: Text, width: int, cut: str) -> Text:
    """*text* in *width* cells, cut in its middle ("middle") or at path separators ("path",
    then in the middle when the file name alone is too long). Styles of a one-style cell stay."""
    plain = text.plain
    short = cut_middle(plain, width)
    if cut == "path":
        by_parts = short_path(plain, None, width)
        short = by_parts if len(by_parts) <= width else cut_middle(by_parts, width)
    if text.spans:  # a cell built from parts: keep each part's style, cut in the middle
        left = width // 2
        return text[:left] + Text("…", style=text.style) + text[len(text) - (width - 1 - left) :]
    return Text(short, style=text.style, justify=text.justify)
