"""Changing a finished report: ``inspectc bench``'s figures and ``inspectc accuracy``'s results.

They go into the report itself (:func:`editing`) or into a new copy of it that takes the
target's name only when complete (:func:`edited_copy`, ``bench -o``). Either way the target is
opened by :func:`~inspectc.store.target.open_target`, like every writer's, and the change is
one transaction: all of it or nothing. New reports are :mod:`inspectc.store.writer`'s; a copy
rewritten row by row (``share``) is :mod:`inspectc.store.rewrite`'s. Stdlib only.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from inspectc.errors import ReportError
from inspectc.model import to_plain
from inspectc.store import untrusted
from inspectc.store.bench import BenchRun, Isolated, Key
from inspectc.store.schema import BENCH_SQL, db_rank, journal
from inspectc.store.target import open_target, publish_report
from inspectc.store.validate import parse_checked


class ReportEdit:
    """The changes one command makes to a report (inside :func:`editing`'s transaction)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def set_meta(self, key: str, value: Any) -> None:
        """Meta *key* set to *value* (text as it is, anything else as JSON of its plain form)."""
        text = value if isinstance(value, str) else json.dumps(to_plain(value))
        self._db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, text))

    def put_bench(self, run: BenchRun, rows: list[tuple[Key, Isolated]]) -> BenchRun:
        """Store one bench run (the ``bench`` table made if need be); return the run as stored.

        Figures of the modules it measured replace their earlier ones; figures of other modules
        stay when they were taken on the same device, and are dropped otherwise (figures of two
        devices never mix in one report). A CPU-only run on the device of an earlier CUDA run
        keeps that run's measured bandwidth.
        """
        db = self._db
        db.execute(BENCH_SQL)
        found = db.execute("SELECT value FROM meta WHERE key = 'bench'").fetchone()
        old = parse_checked(BenchRun, str(found[0])) if found else None
        if old is not None and old.device != run.device:
            db.execute("DELETE FROM bench")
        elif old is not None and run.bandwidth_gbps is None:
            run = replace(run, bandwidth_gbps=old.bandwidth_gbps, bandwidth_method=old.bandwidth_method)
        for rank, cid, kind in {(r, c, k) for (r, c, k, _), _ in rows}:
            db.execute(
                "DELETE FROM bench WHERE rank = ? AND compile_id = ? AND graph_kind = ?",
                (db_rank(rank), cid, kind),
            )
        db.executemany(
            "INSERT OR REPLACE INTO bench(rank, compile_id, graph_kind, kernel, method, data)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            [
                (db_rank(r), cid, kind, name, fig.method, json.dumps(to_plain(fig)))
                for (r, cid, kind, name), fig in rows
            ],
        )
        self.set_meta("bench", run)
        return run


@contextlib.contextmanager
def editing(path: str | os.PathLike[str], *, what: str = "the changes") -> Iterator[ReportEdit]:
    """The report at *path* (an inspectc report: verified first), changed in place: committed
    when the block ends, rolled back when it raises; a failure of SQLite is one line naming
    *what* was being written."""
    target = open_target(Path(path), in_place=True)
    with _changed(target, what=what) as edit:
        yield edit


@contextlib.contextmanager
def edited_copy(
    source: str | os.PathLike[str], path: str | os.PathLike[str], *, what: str = "the changes"
) -> Iterator[ReportEdit]:
    """A copy of the report *source*, changed, put at *path* (in place of an earlier report
    there, never of another file) once the block succeeds; nothing is left when it raises."""
    target = Path(path)
    tmp = open_target(target, publish=False, copy_of=Path(source))
    try:
        with _changed(tmp, what=what, shown=target) as edit:
            yield edit
        publish_report(tmp, target)
    except BaseException as exc:
        for leftover in (tmp, journal(tmp)):
            leftover.unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise ReportError(f"cannot write report {target}: {exc.strerror or exc}") from None
        raise


@contextlib.contextmanager
def _changed(file: Path, *, what: str, shown: Path | None = None) -> Iterator[ReportEdit]:
    db = sqlite3.connect(str(file), isolation_level=None, timeout=5.0)
    try:
        untrusted.verify(db, untrusted.guard(db, shown or file))  # no view or trigger runs on write
        db.execute("BEGIN")
        yield ReportEdit(db)
        db.execute("COMMIT")
    except sqlite3.Error as exc:
        raise ReportError(f"cannot write {what} into {shown or file}: {exc}") from None
    finally:
        db.close()  # an open transaction (the block raised) is rolled back
