"""SQLite connections to a stranger's report: its shape verified first, every read bounded.

A report attached to a bug is input to a parser, never a program. SQLite can run code on a
read: a VIEW in place of a table (a recursive one spills without end), a generated column, a
trigger. So before anything is read, :func:`verify_shape` compares the file's objects with the
schema this inspectc writes (the tables of ``schema.SCHEMA_SQL`` and the ``bench`` table,
column by column, from ``PRAGMA table_xinfo``): any view, trigger, generated or hidden column,
or a table of ours with other columns, is refused in one line. Tables it does not know are
never read. Then :func:`connect` opens read-only with ``trusted_schema=OFF``, a memory ceiling
(``hard_heap_limit``, temp storage in that memory) and a progress handler that stops any one
statement after a time budget and on Ctrl-C (within a few milliseconds of work).

Limits (environment variables raise them for an input you trust):
  INSPECTC_SQLITE_HEAP_MB    SQLite's memory for this process (default 1024)
  INSPECTC_READ_BUDGET_S     wall time of one read (default 60)
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from inspectc.errors import ReportError

DEFAULT_HEAP_MB = 1024
DEFAULT_BUDGET_S = 60.0
_PROGRESS_OPS = 20_000  # VM instructions between two looks at the clock (microseconds of work)


def _env_number(name: str, default: float) -> float:
    text = os.environ.get(name, "")
    try:
        value = float(text)
    except ValueError:
        return default
    return value if value > 0 else default


def heap_limit_bytes() -> int:
    return int(_env_number("INSPECTC_SQLITE_HEAP_MB", DEFAULT_HEAP_MB)) << 20


def budget_seconds() -> float:
    return _env_number("INSPECTC_READ_BUDGET_S", DEFAULT_BUDGET_S)


class Budget:
    """The progress handler of one connection: a deadline per statement, and Ctrl-C."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.deadline = time.monotonic() + seconds
        self.stopped: str | None = None  # "time" or "interrupt" once a statement was stopped

    def restart(self) -> None:
        """A new statement: a new deadline."""
        self.deadline = time.monotonic() + self.seconds
        self.stopped = None

    def __call__(self) -> int:
        try:
            if time.monotonic() > self.deadline:
                self.stopped = "time"
                return 1
            return 0
        except KeyboardInterrupt:  # raised here by Python's SIGINT handler: stop SQLite now
            self.stopped = "interrupt"
            return 1


def connect(path: Path, *, immutable: bool = False, verify: bool = True) -> tuple[sqlite3.Connection, Budget]:
    """Open *path* read-only, bounded, and (unless *verify* is false) with its shape checked."""
    uri = path.resolve().as_uri() + ("?mode=ro&immutable=1" if immutable else "?mode=ro")
    try:
        db = sqlite3.connect(uri, uri=True, check_same_thread=False)
    except sqlite3.Error as exc:
        raise ReportError(f"cannot open {path} ({str(exc)[:200]})") from None
    try:
        budget = harden(db)
        if verify:
            verify_shape(db, path, budget)
    except sqlite3.DatabaseError as exc:
        db.close()
        raise ReportError(f"{path} is not a readable inspectc report ({str(exc)[:200]})") from None
    except BaseException:
        db.close()
        raise
    return db, budget


def harden(db: sqlite3.Connection) -> Budget:
    """Bounds on an open connection: no code from the schema, bounded memory, a deadline."""
    db.text_factory = _text
    db.execute("PRAGMA trusted_schema=OFF")
    db.execute(f"PRAGMA hard_heap_limit={heap_limit_bytes()}")
    db.execute("PRAGMA temp_store=MEMORY")  # spills stay under the heap limit, not on disk
    db.execute("PRAGMA cache_size=-16384")  # 16 MB of page cache
    db.execute("PRAGMA busy_timeout=5000")
    budget = Budget(budget_seconds())
    db.set_progress_handler(budget, _PROGRESS_OPS)
    return budget


def run(
    db: sqlite3.Connection, budget: Budget, path: Path, sql: str, args: tuple[Any, ...] = ()
) -> list[tuple[Any, ...]]:
    """One bounded statement: its rows, or one :class:`ReportError` line (KeyboardInterrupt on Ctrl-C)."""
    budget.restart()
    try:
        return db.execute(sql, args).fetchall()
    except (sqlite3.DatabaseError, UnicodeDecodeError, MemoryError) as exc:
        raise stopped_error(budget, path, exc) from None


def stopped_error(budget: Budget | None, path: Path, exc: BaseException) -> BaseException:
    """What a failed statement means: Ctrl-C, the time budget, the memory ceiling, or corruption."""
    stopped = budget.stopped if budget is not None else None
    if stopped == "interrupt" or (stopped is None and str(exc) == "interrupted"):
        # Ctrl-C: Python raises KeyboardInterrupt as it enters the progress handler, and
        # SQLite aborts the statement with "interrupted": give the user their Ctrl-C back.
        return KeyboardInterrupt()
    if budget is not None and stopped == "time":
        return ReportError(
            f"{path}: reading it took over {budget.seconds:g} s and was stopped"
            " (a hostile or broken report? INSPECTC_READ_BUDGET_S raises the limit)"
        )
    text = str(exc)
    if isinstance(exc, MemoryError) or "out of memory" in text:
        return ReportError(
            f"{path}: reading it needed more than {heap_limit_bytes() >> 20} MB and was stopped"
            " (INSPECTC_SQLITE_HEAP_MB raises the limit)"
        )
    return ReportError(f"{path}: report is corrupt or truncated ({text[:200]})")


@cache
def expected_tables() -> dict[str, tuple[str, ...]]:
    """Every table this inspectc writes, with its columns in order (read off a fresh database)."""
    from inspectc.report import bench
    from inspectc.report.schema import SCHEMA_SQL

    db = sqlite3.connect(":memory:")
    try:
        db.executescript(SCHEMA_SQL)
        db.executescript(bench.BENCH_SQL)
        names = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {name: tuple(r[1] for r in db.execute(f'PRAGMA table_xinfo("{name}")')) for name in names}
    finally:
        db.close()


def verify_shape(db: sqlite3.Connection, path: Path, budget: Budget | None = None) -> None:
    """Refuse in one line a file whose objects are not plain tables of the expected shape."""
    query: Callable[[str], list[tuple[Any, ...]]]
    if budget is not None:
        query = lambda sql: run(db, budget, path, sql)  # noqa: E731
    else:
        query = lambda sql: db.execute(sql).fetchall()  # noqa: E731
    try:
        objects = query("SELECT type, name FROM sqlite_master")
    except sqlite3.DatabaseError as exc:
        raise ReportError(f"{path} is not a readable inspectc report ({str(exc)[:200]})") from None
    expected = expected_tables()
    for kind, name in objects:
        if kind in ("view", "trigger"):
            raise ReportError(
                f"{path}: holds a {kind} {str(name)[:60]!r}: refused (a report holds plain tables only,"
                " and SQLite runs a view's or trigger's code on a read)"
            )
        if kind != "table" or name not in expected:
            continue  # an index runs nothing; a table we do not know is never read
        columns = query(f'PRAGMA table_xinfo("{name}")')
        if any(col[6] for col in columns):  # hidden: 2 or 3 is a generated column
            raise ReportError(
                f"{path}: table {name!r} has a generated or hidden column: refused"
                " (SQLite computes it on a read)"
            )
        found = tuple(str(col[1]) for col in columns)
        if found != expected[name]:
            raise ReportError(
                f"{path}: table {name!r} has columns {', '.join(found)[:160]},"
                f" not those inspectc writes ({', '.join(expected[name])})"
            )


def _text(raw: bytes) -> str:
    # TEXT cells of a corrupt or hostile file may hold invalid UTF-8 (sqlite3 would raise
    # UnicodeDecodeError on the whole query).
    return raw.decode("utf-8", "replace")
