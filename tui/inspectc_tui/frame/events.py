"""The Raw events tab: every structured-trace event of the frame as recorded, with its
metadata and payload (read when selected; long payloads are cut)."""

from __future__ import annotations

import json

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.reactive import var
from textual.widget import Widget
from textual.widgets import Static

from inspectc.store.reader import EventRow
from inspectc_tui.data import EVENT_LIMIT
from inspectc_tui.frame.base import FramePane
from inspectc_tui.text import literal
from inspectc_tui.widgets.code_view import CodeView
from inspectc_tui.widgets.table import Column, VirtualTable

MAX_PAYLOAD = 2_000_000


class EventsPane(FramePane):
    # The highlighted event: the table sets it, watch_selected reads its payload.
    selected: var[EventRow | None] = var(None, init=False)

    class EventsRead(Message):
        def __init__(self, rows: list[EventRow]) -> None:
            self.rows = rows
            super().__init__()

    class PayloadRead(Message):
        def __init__(self, row: EventRow, payload: str | None) -> None:
            self.row = row
            self.payload = payload
            super().__init__()

    def build(self) -> ComposeResult:
        with Horizontal(id="events-body"):
            yield VirtualTable(id="event-table")
            with Vertical(id="event-main"):
                yield Static(Text("reading events…", style="dim"), id="event-caption")
                yield CodeView(id="event-body", language="json")

    def load(self) -> None:
        self.rows: dict[str, EventRow] = {}
        self._read_events()

    def main_widget(self) -> Widget | None:
        return self.query_one("#event-table")

    @work(thread=True, exclusive=True, group="events", exit_on_error=False)
    def _read_events(self) -> None:
        self.post_message(self.EventsRead(self.data.events(self.frame)))

    @on(EventsRead)
    def _fill(self, message: EventsRead) -> None:
        table = self.query_one("#event-table", VirtualTable)
        table.set_columns(
            Column("seq", Text("Seq", justify="right")),
            Column("t", Text("+s", justify="right")),
            Column("name", Text("Event"), 60, flex=True),
            Column("size", Text("Payload", justify="right")),
        )
        start = next((r.ts for r in message.rows if r.ts is not None), None)
        for row in message.rows:
            self.rows[str(row.seq)] = row
            offset = "" if row.ts is None or start is None else f"{row.ts - start:.3f}"
            size = "" if row.payload_size is None else f"{row.payload_size:,}"
            cells = [
                Text(str(row.seq), justify="right", style="dim"),
                Text(offset, justify="right"),
                literal(row.name),
                Text(size, justify="right"),
            ]
            table.add_object(str(row.seq), row, cells)
        table.done()
        caption = f"{len(message.rows):,} events"
        if len(message.rows) >= EVENT_LIMIT:
            caption += f" (first {EVENT_LIMIT:,} shown)"
        if not message.rows:
            caption = "no events recorded for this frame"
        self.query_one("#event-caption", Static).update(Text(caption, style="dim"))

    @on(VirtualTable.RowHighlighted, "#event-table")
    def _highlighted(self, event: VirtualTable.RowHighlighted) -> None:
        self.selected = self.rows.get(event.key)

    def watch_selected(self, row: EventRow | None) -> None:
        if row is not None:
            self._read_payload(row)

    @work(thread=True, exclusive=True, group="event-payload", exit_on_error=False)
    def _read_payload(self, row: EventRow) -> None:
        payload = self.data.event_payload(row.seq) if row.payload_size else None
        self.post_message(self.PayloadRead(row, payload))

    @on(PayloadRead)
    def _show(self, message: PayloadRead) -> None:
        row = message.row
        if row is not self.selected:
            return  # the user moved on
        text = json.dumps(row.metadata, indent=2, ensure_ascii=False, default=str)
        payload = message.payload
        caption = Text(f"event {row.seq}: ") + literal(row.name, "bold")
        if payload is not None:
            cut = len(payload) > MAX_PAYLOAD
            text += "\n\n# payload" + (f" (first {MAX_PAYLOAD:,} characters)" if cut else "") + "\n"
            text += payload[:MAX_PAYLOAD]
        self.query_one("#event-body", CodeView).set_text(text, language="python" if payload else "json")
        self.query_one("#event-caption", Static).update(caption)
