"""A transformed copy of a report: every row of every table, through one :class:`Rewrite`.

``inspectc share`` makes its bundle from such a copy. The source is opened as a stranger's
file (:mod:`.untrusted`: verified, read-only, under a budget) and each row is read, handed
to the rewrite and inserted into a *fresh* report, so no page of the copy ever held the
original text (no ``secure_delete``/``VACUUM`` needed: there is nothing to scrub), and a
table this version does not know (a newer inspectc's) is not copied at all. The slices that
graphs and kernels rows cut out of a payload (``start``/``stop``) follow the rewritten text.

Every SQL statement of the copy lives here; what is done to each value (redaction, source
removal) is the rewrite's business (``inspectc.share.transform``).
"""

from __future__ import annotations

import os
import sqlite3
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from inspectc.errors import ReportError
from inspectc.store import origin, untrusted
from inspectc.store.schema import BENCH_SQL, compress, decompress
from inspectc.store.target import open_target

_KEPT_META = ("format", "schema_version")  # copied as they are: they say how to read the file


@dataclass(frozen=True, slots=True)
class Event:
    """One ``events`` row, its payload decompressed."""

    seq: int
    ts: float | None
    rank: int
    compile_id: str | None
    name: str
    metadata: str
    payload: str | None


@dataclass(frozen=True, slots=True)
class Rewritten:
    """A rewritten event, and where each slice offset of its payload went: ``moved`` maps an
    old offset to its new one; None means the payload was replaced whole (every graph and
    kernel sliced from it then points at all of it)."""

    event: Event
    moved: Mapping[int, int] | None


class Rewrite(Protocol):
    """What a copy does to each value; every text cell of the report passes through one method."""

    def meta(self, key: str, value: str) -> str | None:
        """The new value of meta *key*; None leaves the entry out."""

    def event(self, event: Event, offsets: frozenset[int]) -> Rewritten:
        """The new event; *offsets* are the payload offsets graphs and kernels rows point at."""

    def frame(self, rank: int, compile_id: str, data: str) -> str:
        """The new JSON of one frame."""

    def kernel(self, kid: int, name: str, data: str) -> tuple[str, str]:
        """The new name and JSON of one kernel."""

    def bench(self, kernel: str, data: str) -> tuple[str, str]:
        """The new kernel name and JSON of one ``inspectc bench`` figure."""

    def label(self, text: str) -> str:
        """A short text key (compile id, graph kind, language, method)."""

    def added_meta(self) -> Mapping[str, str]:
        """Meta entries written after every row (what the rewrite did)."""


def rewrite_report(src: str | os.PathLike[str], dest: str | os.PathLike[str], rewrite: Rewrite) -> None:
    """Write a new report at *dest* holding every row of *src* as *rewrite* makes it.

    *dest* must not exist (it is created under a temporary name and renamed into place).
    Raises :class:`ReportError` in one line when *src* is refused or corrupt.
    """
    dest = Path(dest)
    source, budget = untrusted.open_verified(Path(src))
    try:
        open_target(dest)  # the one place every writer opens its target
        out = sqlite3.connect(str(dest), isolation_level=None)
        try:
            out.execute("PRAGMA journal_mode=DELETE")
            out.execute("BEGIN")
            _copy(_Reader(source, budget), out, rewrite)
            for key, value in rewrite.added_meta().items():
                out.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))
            out.execute("COMMIT")
        finally:
            out.close()
    except (sqlite3.DatabaseError, zlib.error, ValueError, TypeError, RecursionError) as exc:
        dest.unlink(missing_ok=True)
        raise ReportError(f"{src}: cannot make a copy, the report is corrupt ({exc})") from None
    except BaseException:
        dest.unlink(missing_ok=True)
        raise
    finally:
        source.close()


@dataclass(frozen=True, slots=True)
class _Reader:
    """The source, one bounded query at a time (each under a fresh budget)."""

    db: sqlite3.Connection
    budget: untrusted.Budget

    def rows(self, sql: str, args: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
        return untrusted.run(self.db, self.budget, sql, args)

    def has_table(self, name: str) -> bool:
        sql = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?"
        return bool(self.rows(sql, (name,)))


def _copy(src: _Reader, out: sqlite3.Connection, rewrite: Rewrite) -> None:
    for key, value in src.rows("SELECT key, value FROM meta"):
        if str(key) == origin.MAC:  # a rewritten copy is nobody's own report (issue 38)
            continue
        kept = str(value) if str(key) in _KEPT_META else rewrite.meta(str(key), str(value))
        if kept is not None:
            out.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (str(key), kept))
    slices: dict[int, set[int]] = {}
    for table in ("graphs", "kernels"):
        for seq, start, stop in src.rows(f"SELECT seq, start, stop FROM {table}"):  # noqa: S608
            slices.setdefault(_int(seq), set()).update(x for x in (start, stop) if isinstance(x, int))
    # per sliced event: where its offsets went, or (replaced whole) its new payload's length
    moved: dict[int, Mapping[int, int] | int] = {}
    for (seq,) in src.rows("SELECT seq FROM events ORDER BY seq"):
        ((ts, rank, cid, name, metadata, blob),) = src.rows(
            "SELECT ts, rank, compile_id, name, metadata, payload FROM events WHERE seq = ?", (seq,)
        )
        event = Event(
            seq=_int(seq),
            ts=ts if isinstance(ts, (int, float)) else None,
            rank=_int(rank),
            compile_id=None if cid is None else rewrite.label(str(cid)),
            name=str(name),
            metadata=str(metadata),
            payload=decompress(blob),  # type: ignore[arg-type]
        )
        done = rewrite.event(event, frozenset(slices.get(event.seq, ())))
        made = done.event
        if event.seq in slices:
            moved[event.seq] = len(made.payload or "") if done.moved is None else done.moved
        out.execute(
            "INSERT INTO events(seq, ts, rank, compile_id, name, metadata, payload) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (made.seq, made.ts, made.rank, made.compile_id, made.name, made.metadata, _blob(made.payload)),
        )
    _copy_slices(src, out, rewrite, moved)
    for rank, cid, ordinal, data in src.rows("SELECT rank, compile_id, ordinal, data FROM frames"):
        out.execute(
            "INSERT INTO frames(rank, compile_id, ordinal, data) VALUES (?, ?, ?, ?)",
            (rank, rewrite.label(str(cid)), ordinal, rewrite.frame(_int(rank), str(cid), str(data))),
        )
    if src.has_table("bench"):
        # one statement at a time: executescript would COMMIT the copy's open transaction first
        for statement in (part.strip() for part in BENCH_SQL.split(";")):
            if statement:
                out.execute(statement)
        for rank, cid, kind, kernel, method, data in src.rows(
            "SELECT rank, compile_id, graph_kind, kernel, method, data FROM bench"
        ):
            name, new = rewrite.bench(str(kernel), str(data))
            out.execute(
                "INSERT OR REPLACE INTO bench(rank, compile_id, graph_kind, kernel, method, data)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (
                    rank,
                    rewrite.label(str(cid)),
                    rewrite.label(str(kind)),
                    name,
                    rewrite.label(str(method)),
                    new,
                ),
            )


def _copy_slices(
    src: _Reader, out: sqlite3.Connection, rewrite: Rewrite, moved: Mapping[int, Mapping[int, int] | int]
) -> None:
    """Graphs and kernels rows, their offsets moved with their payload's text. A slice of a
    payload replaced whole becomes all of it (a graph's ``start``/``stop`` NULL)."""

    def at(seq: int, offset: object) -> object:
        where = moved.get(seq, {})
        return where.get(offset, offset) if isinstance(where, Mapping) and isinstance(offset, int) else offset

    for rank, cid, kind, seq, start, stop in src.rows(
        "SELECT rank, compile_id, kind, seq, start, stop FROM graphs"
    ):
        seq = _int(seq)
        span = (None, None) if isinstance(moved.get(seq), int) else (at(seq, start), at(seq, stop))
        out.execute(
            "INSERT OR REPLACE INTO graphs(rank, compile_id, kind, seq, start, stop) VALUES (?, ?, ?, ?, ?, ?)",
            (rank, rewrite.label(str(cid)), rewrite.label(str(kind)), seq, *span),
        )
    rows = src.rows(
        "SELECT id, rank, compile_id, name, language, kind, graph_kind, seq, start, stop, data FROM kernels"
    )
    for kid, rank, cid, name, language, kind, graph_kind, seq, start, stop, data in rows:
        seq = _int(seq)
        new_name, new_data = rewrite.kernel(_int(kid), str(name), str(data))
        whole = moved.get(seq)
        span = (0, whole) if isinstance(whole, int) else (at(seq, start), at(seq, stop))
        out.execute(
            "INSERT INTO kernels(id, rank, compile_id, name, language, kind, graph_kind, seq, start, stop, data)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                kid,
                rank,
                rewrite.label(str(cid)),
                new_name,
                rewrite.label(str(language)),
                rewrite.label(str(kind)),
                rewrite.label(str(graph_kind)),
                seq,
                *span,
                new_data,
            ),
        )


def _int(value: object) -> int:
    """An INTEGER cell (the schema was verified: these columns hold integers)."""
    if isinstance(value, int):
        return value
    raise ValueError(f"not an integer: {type(value).__name__}")


def _blob(payload: str | None) -> bytes | None:
    return None if payload is None else compress(payload)
