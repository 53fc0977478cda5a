"""Opening a stranger's SQLite file: verify its shape, then read it under a budget.

A report attached to a bug is input to a parser, never a program. SQLite views, triggers,
generated columns and virtual tables run code when a table is read, so before any read every
object a reader uses must be a plain table with exactly the columns inspectc writes
(``PRAGMA table_xinfo`` compared to the schema), and no view or trigger may exist at all.
Every connection is read-only and ``immutable`` (no journal or WAL beside the file is ever
played back), with ``trusted_schema=OFF``, a heap limit, a small page cache,
temp storage in (bounded) memory, and a progress handler that stops a query past its work or
wall-time budget, or within a second of Ctrl-C (or :func:`cancel`, for reader threads).

Limits: ``INSPECTC_LIMITS=N`` multiplies every budget of this module (and the other input
limits that read it: logs, bundles, the script of ``run``) by N, for a user who knows the input.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from inspectc.errors import ReportError
from inspectc.model.limits import scale, small_int

# SQLite VM steps between two calls of the progress handler (each call is a few microseconds).
_STEP = 20_000


HEAP_LIMIT = 512 << 20  # bytes SQLite may allocate in this process (PRAGMA hard_heap_limit)
CACHE_KIB = 64 << 10  # page cache per connection
WORK_STEPS = 4_000_000_000  # VM steps per query (a 100 MB report reads in far fewer)
WALL_SECONDS = 120.0  # per query

_generation = 0  # cancel() moves it on: every connection opened before then stops
_lock = threading.Lock()


def cancel() -> None:
    """Stop every query of every connection opened so far (a reader thread's owner quits);
    connections opened later are not affected."""
    global _generation
    with _lock:
        _generation += 1


class Budget:
    """The work and time left to the current query of one connection."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.steps = int(WORK_STEPS * scale())
        self.seconds = WALL_SECONDS * scale()
        self.interrupted = False
        self.reason = ""
        self._generation = _generation
        self.reset()

    def reset(self) -> None:
        self._done = 0
        self._start = time.monotonic()
        self.reason = ""

    def __call__(self) -> int:
        try:
            self._done += _STEP
            if _generation != self._generation:
                self.reason = "cancelled"
                return 1
            if self._done > self.steps:
                self.reason = f"a query took more than {self.steps:,} steps of work"
                return 1
            if time.monotonic() - self._start > self.seconds:
                self.reason = f"a query ran longer than {self.seconds:.0f} s"
                return 1
            return 0
        except KeyboardInterrupt:  # Ctrl-C arrives in this callback while SQLite runs
            self.interrupted = True
            return 1

    def error(self, exc: BaseException) -> BaseException:
        """What to raise for *exc*, an error of a query run under this budget."""
        if self.interrupted or (not self.reason and str(exc) == "interrupted"):
            # Ctrl-C while SQLite ran (the signal may be handled as the callback is entered,
            # before its own try): nothing else interrupts a connection of ours
            self.interrupted = False
            return KeyboardInterrupt()
        if self.reason:
            why = self.reason
            if why != "cancelled":
                why += " (INSPECTC_LIMITS=N raises the limits)"
            return ReportError(f"{self.path}: refused: {why}")
        if isinstance(exc, MemoryError) or "out of memory" in str(exc).lower():  # MemoryError() says nothing
            return ReportError(
                f"{self.path}: refused: reading it needs more than {int(HEAP_LIMIT * scale()) >> 20} MB"
                " (INSPECTC_LIMITS=N raises the limits)"
            )
        return ReportError(f"{self.path}: report is corrupt or truncated ({exc})")


def guard(db: sqlite3.Connection, path: Path) -> Budget:
    """Put *db* (reading *path*, a stranger's file) under the limits; returns its budget."""
    heap = max(int(HEAP_LIMIT * scale()), 8 << 20)
    db.execute(f"PRAGMA hard_heap_limit={heap}")
    db.execute(f"PRAGMA cache_size=-{min(CACHE_KIB, heap >> 12)}")  # a quarter of the heap at most
    db.execute("PRAGMA temp_store=MEMORY")
    db.execute("PRAGMA trusted_schema=OFF")
    db.execute("PRAGMA mmap_size=0")
    budget = Budget(path)
    db.set_progress_handler(budget, _STEP)
    return budget


def connect(path: Path, *, shown: Path | None = None) -> tuple[sqlite3.Connection, Budget]:
    """A read-only, guarded connection to *path* (not yet verified: see :func:`verify`).

    Always ``immutable``: SQLite never plays back, creates or deletes a journal or WAL
    beside the file, and takes no lock (:mod:`inspectc.store.snapshot` says why). Errors
    name *shown* (the file as the user named it) when given."""
    uri = path.resolve().as_uri() + "?mode=ro&immutable=1"
    db = sqlite3.connect(uri, uri=True, check_same_thread=False)
    db.text_factory = lambda raw: raw.decode("utf-8", "replace")
    return db, guard(db, shown or path)


def _expected() -> dict[str, tuple[tuple[object, ...], ...]]:
    from inspectc.store.schema import BENCH_SQL, SCHEMA_SQL

    mem = sqlite3.connect(":memory:")
    try:
        mem.executescript(SCHEMA_SQL + BENCH_SQL)
        names = [r[0] for r in mem.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {name: _columns(mem, name) for name in names}
    finally:
        mem.close()


def _columns(db: sqlite3.Connection, table: str) -> tuple[tuple[object, ...], ...]:
    # cid, name, declared type, notnull, default, pk, hidden (0 = a plain column)
    rows = db.execute("SELECT * FROM pragma_table_xinfo(?)", (table,)).fetchall()
    return tuple((r[1], str(r[2]).upper(), r[3], r[5], r[6]) for r in rows)


_EXPECTED: dict[str, tuple[tuple[object, ...], ...]] | None = None
OPTIONAL = frozenset({"bench"})  # a report bench never ran on has no bench table


def verify(db: sqlite3.Connection, budget: Budget) -> None:
    """Refuse in one line unless every table a reader uses is a plain table with exactly the
    expected columns, and the file has no view, trigger or virtual table at all."""
    global _EXPECTED
    if _EXPECTED is None:
        _EXPECTED = _expected()
    path = budget.path
    try:
        budget.reset()
        objects = db.execute("SELECT type, name, sql FROM sqlite_master").fetchall()
        found: dict[str, str] = {}
        for kind, name, sql in objects:
            name = str(name)
            if kind in ("view", "trigger"):
                raise ReportError(f"{path}: refused: it holds a {kind} ({name!r}); a report has none")
            if kind == "table":
                if str(sql or "").lstrip().upper().startswith("CREATE VIRTUAL"):
                    raise ReportError(f"{path}: refused: {name!r} is a virtual table; a report has none")
                found[name] = str(sql or "")
        if "meta" not in found:
            if any(n in found for n in _EXPECTED):
                raise ReportError(f"{path}: refused: its 'meta' is not a table")
            raise ReportError(f"{path} is an SQLite database but not an inspectc report")
        _refuse_newer(db, path)  # a newer inspectc's tables may differ: say "upgrade", not "refused"
        for name, columns in _EXPECTED.items():
            if name not in found:
                if name in OPTIONAL:
                    continue
                raise ReportError(f"{path}: refused: table {name!r} is missing (or not a table)")
            got = _columns(db, name)
            if got != columns:
                raise ReportError(f"{path}: refused: table {name!r} {_difference(got, columns)}")
        for name in found.keys() - _EXPECTED.keys():  # a newer inspectc's table: never read here
            if any(col[4] for col in _columns(db, name)):
                raise ReportError(f"{path}: refused: table {name!r} has a generated or hidden column")
    except sqlite3.DatabaseError as exc:
        raise budget.error(exc) from None


def _refuse_newer(db: sqlite3.Connection, path: Path) -> None:
    """A report of a newer schema is refused as such (its tables may be other than ours). Only a
    plain ``meta`` with ``key`` and ``value`` columns and nothing computed is read for it."""
    from inspectc.store.schema import SCHEMA_VERSION

    meta = _columns(db, "meta")
    if any(col[4] for col in meta) or [c[0] for c in meta][:2] != ["key", "value"]:
        return  # the full comparison below refuses it with the reason
    row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    text = str(row[0]) if row else ""
    version = small_int(text)
    if version is not None and version > SCHEMA_VERSION:
        raise ReportError(
            f"{path} uses report schema {version}, newer than this inspectc understands"
            f" ({SCHEMA_VERSION}): upgrade inspectc"
        )


def _difference(got: tuple[tuple[object, ...], ...], want: tuple[tuple[object, ...], ...]) -> str:
    for col in got:
        if col[4]:
            return f"has a generated or hidden column {col[0]!r}"
    names = [c[0] for c in got]
    wanted = [c[0] for c in want]
    if names != wanted:
        return f"has columns {', '.join(map(str, names))}; expected {', '.join(map(str, wanted))}"
    return "has columns of unexpected types or constraints"


def run(
    db: sqlite3.Connection, budget: Budget, sql: str, args: tuple[object, ...] = ()
) -> list[tuple[object, ...]]:
    """Run one query under a fresh budget; every failure is one :class:`ReportError` line."""
    budget.reset()
    try:
        return db.execute(sql, args).fetchall()
    except (sqlite3.DatabaseError, MemoryError, UnicodeDecodeError) as exc:
        raise budget.error(exc) from None


def stream(
    db: sqlite3.Connection, budget: Budget, sql: str, args: tuple[object, ...] = ()
) -> Iterator[tuple[object, ...]]:
    """The rows of one query, a batch at a time (never all in memory), under one budget."""
    budget.reset()
    try:
        cursor = db.execute(sql, args)
        while batch := cursor.fetchmany(256):
            yield from batch
    except (sqlite3.DatabaseError, MemoryError, UnicodeDecodeError) as exc:
        raise budget.error(exc) from None


def open_verified(path: Path, *, shown: Path | None = None) -> tuple[sqlite3.Connection, Budget]:
    """Connect to *path* read-only under the limits and verify its shape (see module doc)."""
    db, budget = connect(path, shown=shown)
    try:
        verify(db, budget)
    except BaseException:
        db.close()
        raise
    return db, budget


Query = Callable[[str, tuple[object, ...]], list[tuple[object, ...]]]
