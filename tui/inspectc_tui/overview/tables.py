"""The overview's tables: frames, deduplicated graph breaks, top kernels by time.

Rows are keyed so a chosen row names what to open: frames by index into
``ReportData.frames``, break groups by index into ``ReportData.groups``, kernels by id.
Every cell from the report is a literal ``Text`` (DataTable would parse a ``str`` as markup).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual.widgets import DataTable

from inspectc.model import Frame
from inspectc_tui.data import ReportData, kernel_key
from inspectc_tui.text import frame_label, literal, location, micros, seconds, status_text

OVERVIEW_KERNELS = 50


def _tail(text: str, width: int) -> str:
    return text if len(text) <= width else "…" + text[-(width - 1) :]


def _tail_end(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _count(n: int, style: str) -> Text:
    return Text(str(n), style=style if n else "dim", justify="right")


class SortableTable(DataTable[Any]):
    """A row-cursor DataTable that keeps an object per row and sorts by a column key.

    Click a header to sort by it (again to reverse). Rows are re-added in order: cheap
    for the few thousand rows these tables hold, and it keeps the cursor on its row.
    """

    DEFAULT_CSS = """
    SortableTable { height: 1fr; }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes, cursor_type="row", zebra_stripes=True)
        self.sort_keys: dict[str, Callable[[Any], Any]] = {}
        self._objects: dict[str, Any] = {}
        self._cells: dict[str, list[Text]] = {}
        self._order: list[str] = []
        self.sorted_by: tuple[str, bool] | None = None

    def add_object(self, key: str, obj: Any, cells: list[Text]) -> None:
        self._objects[key] = obj
        self._cells[key] = cells
        self._order.append(key)
        self.add_row(*cells, key=key)

    def reset(self) -> None:
        self.clear(columns=True)
        self._objects.clear()
        self._cells.clear()
        self._order.clear()
        self.sorted_by = None

    def sort_by(self, column: str, reverse: bool | None = None) -> None:
        key_fn = self.sort_keys.get(column)
        if key_fn is None:
            return
        if reverse is None:
            reverse = self.sorted_by == (column, False)
        current = self.current_key
        objects = self._objects
        self._order.sort(key=lambda k: key_fn(objects[k]), reverse=reverse)
        self.clear()
        for key in self._order:
            self.add_row(*self._cells[key], key=key)
        self.sorted_by = (column, reverse)
        if current is not None:
            self.move_cursor(row=self.get_row_index(current), animate=False)

    @property
    def current_key(self) -> str | None:
        if not self.row_count:
            return None
        row_key, _ = self.coordinate_to_cell_key(self.cursor_coordinate)
        return str(row_key.value)

    @property
    def current_object(self) -> Any:
        key = self.current_key
        return None if key is None else self._objects.get(key)

    def object_for(self, key: str) -> Any:
        return self._objects.get(key)

    def select_key(self, key: str) -> None:
        if key in self._objects:
            self.move_cursor(row=self.get_row_index(key), animate=False)

    def on_data_table_header_selected(self, event: DataTable.HeaderSelected) -> None:
        event.stop()
        self.sort_by(str(event.column_key.value))


class FramesTable(SortableTable):
    def fill(self, data: ReportData) -> None:
        base = data.run.cwd
        self.reset()
        self.add_column("Frame", key="frame")
        self.add_column("Function", key="function")
        self.add_column("Status", key="status")
        self.add_column(Text("Breaks", justify="right"), key="breaks")
        self.add_column(Text("Recomp", justify="right"), key="recompiles")
        self.add_column(Text("Kernels", justify="right"), key="kernels")
        self.add_column(Text("Compile", justify="right"), key="compile")
        self.add_column("Location", key="location")
        self.sort_keys = {
            "frame": lambda f: f.ordinal,
            "function": lambda f: f.function or "",
            "location": lambda f: (f.filename or "", f.line or 0),
            "status": lambda f: f.status,
            "breaks": lambda f: -len(f.graph_breaks),
            "recompiles": lambda f: -len(f.recompiles),
            "kernels": lambda f: -f.kernel_count,
            "compile": lambda f: -(f.metrics.entire_frame_s or 0.0),
        }
        for index, frame in enumerate(data.frames):
            self.add_object(str(index), frame, self._row(frame, base))

    @staticmethod
    def _row(frame: Frame, base: str | None) -> list[Text]:
        return [
            Text(frame_label(frame.compile_id, frame.rank), style="bold"),
            literal(_tail_end(frame.function or "?", 22)),
            status_text(frame.status),
            _count(len(frame.graph_breaks), "yellow"),
            _count(len(frame.recompiles), "magenta"),
            _count(frame.kernel_count, ""),
            Text(seconds(frame.metrics.entire_frame_s), justify="right"),
            literal(_tail(location(frame.filename, frame.line, base), 40), "cyan"),
        ]


class BreaksTable(SortableTable):
    def fill(self, data: ReportData) -> None:
        base = data.run.cwd
        self.reset()
        self.add_column(Text("Count", justify="right"), key="count")
        self.add_column("Reason", key="reason")
        self.add_column("Location", key="location")
        self.add_column("Frames", key="frames")
        self.sort_keys = {
            "count": lambda g: -g.count,
            "location": lambda g: g.location,
            "reason": lambda g: g.reason,
            "frames": lambda g: g.compile_ids[0],
        }
        for index, group in enumerate(data.groups):
            frames = ", ".join(group.compile_ids[:3]) + (", …" if group.count > 3 else "")
            cells = [
                Text(f"{group.count}×", style="bold yellow", justify="right"),
                literal(_tail_end(group.reason.strip().split("\n")[0], 90)),
                literal(_tail(location(group.filename, group.line, base), 40), "cyan"),
                Text(frames, style="dim"),
            ]
            self.add_object(str(index), group, cells)


class TopKernelsTable(SortableTable):
    def fill(self, data: ReportData) -> None:
        self.reset()
        self.add_column(Text("Total", justify="right"), key="total")
        self.add_column("Frame", key="frame")
        self.add_column("Kernel", key="name")
        kernels = data.top_kernels[:OVERVIEW_KERNELS] or data.kernels[:OVERVIEW_KERNELS]
        self.sort_keys = {
            "total": lambda k: -(k.time.total_us if k.time else -1.0),
            "name": lambda k: k.name,
            "frame": lambda k: (kernel_key(k)[0] or 0, k.compile_id),
        }
        for kernel in kernels:
            t = kernel.time
            cells = [
                Text(micros(t.total_us if t else None), justify="right", style="bold"),
                Text(frame_label(kernel.compile_id, kernel_key(kernel)[0])),
                literal(_tail_end(kernel.name, 48), "green"),
            ]
            self.add_object(str(kernel.id), kernel, cells)
