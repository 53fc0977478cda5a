"""VirtualTable: a sortable row table that draws only the rows on screen.

DataTable measures every cell of every row when rows are added (and again after each
sort): about a third of a second per thousand rows here. This table keeps one object
and its pre-built cells per row, sizes columns from the cells' plain text, and renders
rows through the line API when they scroll into view; sorting reorders a list. Keys:
arrows, PageUp/PageDown, Home/End, Enter; mouse: click a row, click it again to open it,
click a header to sort (again to reverse).
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
    keep_end: bool = False  # cut from the left (paths: the file name and line matter)
    shown: int = 0  # the width drawn at the table's current size


class VirtualTable(ScrollView, can_focus=True):
    """Rows of (key, object, cells); one row under a cursor."""

    DEFAULT_CSS = """
    VirtualTable {
        background: $surface;
        color: $foreground;
        height: 1fr;
        scrollbar-size-vertical: 1;
        &:focus {
            background-tint: $foreground 5%;
            & > .vtable--cursor {
                background: $block-cursor-background;
                color: $block-cursor-foreground;
                text-style: $block-cursor-text-style;
            }
        }
        &:dark > .vtable--even { background: $surface-darken-1 40%; }
        & > .vtable--even { background: $surface-lighten-1 50%; }
        & > .vtable--header { text-style: bold; background: $panel; color: $foreground; }
        & > .vtable--cursor {
            background: $block-cursor-blurred-background;
            color: $block-cursor-blurred-foreground;
            text-style: $block-cursor-blurred-text-style;
        }
    }
    """
    COMPONENT_CLASSES = {"vtable--header", "vtable--cursor", "vtable--even"}

    BINDINGS = [
        Binding("up", "move(-1)", "Up", show=False),
        Binding("down", "move(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "edge(0)", "First", show=False),
        Binding("end", "edge(1)", "Last", show=False),
        Binding("enter", "select", "Open", show=False),
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

    # -- content -----------------------------------------------------------------------
    def set_columns(self, *columns: Column) -> None:
        self.columns = list(columns)
        for column in self.columns:
            column.width = min(cell_len(column.label.plain), column.max_width)

    def reset(self) -> None:
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
            segments.extend(self._cell(cell, column.shown, style, keep_end=column.keep_end))
        strip = Strip(segments).extend_cell_length(max(self.virtual_size.width, self.size.width), style)
        self._cache[cache_key] = strip
        if len(self._cache) > _CACHE_ROWS:
            self._cache.popitem(last=False)
        return strip

    def _cell(self, text: Text, width: int, base: Style, *, keep_end: bool = False) -> list[Segment]:
        if keep_end and text.cell_len > width > 1:
            cell = Text("…", style=text.style) + text[len(text) - (width - 1) :]
        else:
            cell = text.copy()
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

    def _click_header(self, x: int) -> None:
        left = 0
        for column in self.columns:
            right = left + column.shown + 2
            if left <= x < right:
                self.sort_by(column.key)
                return
            left = right
