"""The Compile metrics tab: timings, graph sizes, caches and the frame's runtime."""

from __future__ import annotations

import json

from rich.text import Text
from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import DataTable

from inspectc.model import Frame
from inspectc_tui.frame.base import FramePane
from inspectc_tui.text import literal, micros, seconds


def metric_rows(frame: Frame) -> list[tuple[str, str, Text]]:
    """(section, metric, value) rows; values not recorded show as '-'."""
    m = frame.metrics
    rows: list[tuple[str, str, Text]] = []

    def add(section: str, name: str, value: object) -> None:
        text = "-" if value is None else str(value)
        rows.append((section, name, literal(text) if text != "-" else Text("-", style="dim")))

    add("time", "entire frame", seconds(m.entire_frame_s) if m.entire_frame_s is not None else None)
    add("time", "backend", seconds(m.backend_s) if m.backend_s is not None else None)
    add("time", "inductor", seconds(m.inductor_s) if m.inductor_s is not None else None)
    add("time", "code generation", seconds(m.codegen_s) if m.codegen_s is not None else None)
    add("graph", "ops", m.op_count)
    add("graph", "nodes", m.node_count)
    add("graph", "inputs", m.input_count)
    # the Guards tab's count; torch's own guard_count also counts guards it prints as none
    add("guards", "guards (Guards tab)", len(frame.guards) if frame.guards else None)
    add("guards", "torch's guard_count", m.guard_count)
    add("guards", "shape-env guards", m.shape_env_guard_count)
    for which, status in sorted(frame.cache.items()):
        add("cache", which.replace("_", " "), status)
    add(
        "runtime",
        "compiled region total",
        micros(frame.region_time_us) if frame.region_time_us is not None else None,
    )
    add("runtime", "measured calls", frame.region_calls)
    add("runtime", "cudagraph skipped", frame.cudagraph_skip_reason)
    add("frame", "compile attempts", frame.attempts)
    add("frame", "unknown events", frame.unknown_events)
    for key, value in sorted(m.extra.items()):
        add("extra", key, value if isinstance(value, (str, int, float)) else json.dumps(value, default=str))
    return rows


class MetricsPane(FramePane):
    def build(self) -> ComposeResult:
        yield DataTable(id="metrics", cursor_type="row", zebra_stripes=True)

    def load(self) -> None:
        table: DataTable[Text] = self.query_one("#metrics", DataTable)
        table.add_columns("Section", "Metric", "Value")
        previous = None
        for section, name, value in metric_rows(self.frame):
            label = Text(section if section != previous else "", style="bold")
            table.add_row(label, Text(name), value)
            previous = section

    def main_widget(self) -> Widget | None:
        return self.query_one("#metrics")
