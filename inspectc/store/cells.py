"""Every text cell of a report, one at a time, named by table, row and column.

``share --check`` and ``share`` itself give each cell to the secret detectors, so nothing in
a bundled report is left unread: every table the file holds (one a newer inspectc added
too), every text column, every payload decompressed. The file is a stranger's: it is opened
verified and read-only, one bounded query at a time (:mod:`.untrusted`).
"""

from __future__ import annotations

import os
import sqlite3
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from inspectc.errors import ReportError
from inspectc.store import untrusted
from inspectc.store.schema import NO_RANK, decompress

# The columns that name a row of each table inspectc writes (other tables: the rowid).
_ROW_KEYS = {
    "meta": ("key",),
    "events": ("seq", "name"),
    "frames": ("rank", "compile_id"),
    "graphs": ("rank", "compile_id", "kind"),
    "kernels": ("id",),
    "bench": ("compile_id", "kernel", "method"),
}
_PAYLOAD = ("events", "payload")  # zlib-compressed text


@dataclass(frozen=True, slots=True)
class Cell:
    table: str
    row: str  # the row's key, as text (``12 dynamo_guards``, ``0/0``)
    column: str
    text: str

    @property
    def place(self) -> str:
        return f"{self.table} {self.row} {self.column}"


def report_cells(path: str | os.PathLike[str]) -> Iterator[Cell]:
    """Each non-empty text (or blob) cell of the report at *path*; raises :class:`ReportError`."""
    db, budget = untrusted.open_verified(Path(path))
    try:
        tables = [
            str(r[0])
            for r in untrusted.run(db, budget, "SELECT name FROM sqlite_master WHERE type = 'table'")
        ]
        for table in sorted(tables, key=lambda t: (t not in _ROW_KEYS, t)):
            yield from _table_cells(db, budget, table)
    finally:
        db.close()


def _table_cells(db: sqlite3.Connection, budget: untrusted.Budget, table: str) -> Iterator[Cell]:
    quoted = '"' + table.replace('"', '""') + '"'
    columns = [str(r[1]) for r in untrusted.run(db, budget, "SELECT * FROM pragma_table_xinfo(?)", (table,))]
    keys = _ROW_KEYS.get(table)
    try:
        rowids = [r[0] for r in untrusted.run(db, budget, f"SELECT rowid FROM {quoted}")]  # noqa: S608
    except ReportError:  # a table WITHOUT ROWID (not one inspectc writes): read it whole
        rowids = []
        rows = untrusted.run(db, budget, f"SELECT * FROM {quoted}")  # noqa: S608
        for n, row in enumerate(rows):
            yield from _row_cells(table, columns, row, keys, str(n))
    select = ", ".join('"' + c.replace('"', '""') + '"' for c in columns)
    for rowid in rowids:
        found = untrusted.run(db, budget, f"SELECT {select} FROM {quoted} WHERE rowid = ?", (rowid,))  # noqa: S608
        if found:
            yield from _row_cells(table, columns, found[0], keys, str(rowid))


def _row_cells(
    table: str, columns: list[str], row: tuple[object, ...], keys: tuple[str, ...] | None, rowid: str
) -> Iterator[Cell]:
    values = dict(zip(columns, row))
    shown = [k for k in keys or () if not (k == "rank" and values.get(k) == NO_RANK)]  # not distributed
    label = " ".join(str(values.get(k)) for k in shown) if keys else f"row {rowid}"
    for column, value in values.items():
        if (table, column) == _PAYLOAD and isinstance(value, bytes):
            try:
                text = decompress(value) or ""
            except zlib.error as exc:
                raise ReportError(f"{table} {label}: payload is corrupt ({exc})") from None
        elif isinstance(value, bytes):
            text = value.decode("utf-8", "replace")
        elif isinstance(value, str):
            text = value
        else:
            continue  # numbers and NULLs hold no text
        if text:
            yield Cell(table, label, column, text)
