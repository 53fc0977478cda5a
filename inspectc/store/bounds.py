"""How much of a report a reader reads and keeps: rows and text capped, payloads cached by size.

A report is a stranger's file, so its size says nothing about the work it takes: a million
small kernel rows cost a reader minutes and gigabytes. :func:`capped` counts a table first
(SQLite counts a million rows in milliseconds) and refuses, in one line, a table over its
row limit; it then streams the rows (never all in memory at once) under a text budget.
:class:`PayloadCache` keeps the last few decompressed payloads a reader asked for, by size.
Every limit is in :mod:`inspectc.model.limits` and scales with ``INSPECTC_LIMITS``.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from inspectc.errors import ReportError
from inspectc.model.limits import TEXT_BYTES, Limit, most, too_large, too_many

CACHE_CHARS = 128 << 20  # decompressed payload text a report keeps for the next read
CACHE_ITEMS = 16

Rows = Callable[[str, tuple[Any, ...]], Iterator[tuple[Any, ...]]]


def capped(rows: Rows, path: Path, table: str, limit: Limit, sql: str) -> Iterator[tuple[Any, ...]]:
    """*sql*'s rows (its first column the row's JSON text), streamed; refused in one line when
    *table* holds more rows than *limit* or more text than ``TEXT_BYTES`` (both scaled)."""
    count = int(next(iter(rows(f"SELECT count(*) FROM {table}", ())))[0])  # noqa: S608 - our names
    if count > most(limit):
        raise ReportError(too_many(path, count, table, limit))
    text, cap = 0, most(TEXT_BYTES)
    for row in rows(f"{sql} LIMIT ?", (most(limit),)):
        text += len(row[0]) if isinstance(row[0], str) else 0
        if text > cap:
            raise ReportError(too_large(path, table, TEXT_BYTES))
        yield row


class PayloadCache:
    """The last payloads read (at most ``CACHE_ITEMS``, ``CACHE_CHARS`` of text in all)."""

    def __init__(self, load: Callable[[int], str | None]) -> None:
        self._load = load
        self._texts: OrderedDict[int, str | None] = OrderedDict()
        self._chars = 0

    def __call__(self, seq: int) -> str | None:
        if seq in self._texts:
            self._texts.move_to_end(seq)
            return self._texts[seq]
        text = self._load(seq)
        size = len(text or "")
        if size <= CACHE_CHARS // 4:  # a huge one is read again when asked again
            self._texts[seq] = text
            self._chars += size
            while self._chars > CACHE_CHARS or len(self._texts) > CACHE_ITEMS:
                _, old = self._texts.popitem(last=False)
                self._chars -= len(old or "")
        return text
