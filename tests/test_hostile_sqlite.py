"""SQLite tricks inside a report: views, triggers and generated columns are refused before
anything is read; every read is bounded in time, memory and by Ctrl-C (report/safedb.py).

Each hostile file is built from a real golden report, and each command runs as the installed
CLI in a subprocess under an address-space and file-size limit and a timeout, so a regression
fails here instead of filling the disk or the memory of the machine running the tests.
"""

from __future__ import annotations

import os
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import REPORTS, ROOT, inspectc_cmd

from inspectc.errors import ReportError
from inspectc.report import safedb

GOLDEN = REPORTS / "sin_sin.inspectc"
INFINITE = "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT x FROM r"


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))  # 3 GiB of address space
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 << 20, 64 << 20))  # no file over 64 MB


def _cli(*args: str, cwd: Path, timeout: float = 60, env: dict[str, str] | None = None):
    return subprocess.run(
        [*inspectc_cmd(), *args],
        cwd=cwd,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=_limits,
    )


def _tampered(tmp_path: Path, name: str, *sql: str) -> Path:
    path = tmp_path / f"{name}.inspectc"
    shutil.copyfile(GOLDEN, path)
    db = sqlite3.connect(path)
    try:
        for statement in sql:
            db.executescript(statement)
        db.commit()
    finally:
        db.close()
    return path


CASES = {
    # a table replaced by an infinitely recursive view: spills temp files without end
    "recursive-view": (
        "ALTER TABLE frames RENAME TO frames_old;"
        "CREATE VIEW frames AS WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r)"
        " SELECT 0 AS rank, 'x' AS compile_id, x AS ordinal, '{}' AS data FROM r;",
        "a view",
    ),
    "infinite-meta-view": (
        "ALTER TABLE meta RENAME TO meta_old;"
        "CREATE VIEW meta AS WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r)"
        " SELECT 'k' || x AS key, 'v' AS value FROM r;",
        "a view",
    ),
    "harmless-view": (
        "ALTER TABLE frames RENAME TO frames_old; CREATE VIEW frames AS SELECT * FROM frames_old;",
        "a view",
    ),
    "generated-column": (
        "ALTER TABLE kernels RENAME TO kernels_old;"
        "CREATE TABLE kernels(id INTEGER PRIMARY KEY, rank INTEGER NOT NULL, compile_id TEXT NOT NULL,"
        " name TEXT NOT NULL, language TEXT NOT NULL, kind TEXT NOT NULL, graph_kind TEXT NOT NULL,"
        " seq INTEGER NOT NULL, start INTEGER NOT NULL, stop INTEGER NOT NULL,"
        " data TEXT GENERATED ALWAYS AS (hex(zeroblob(300000000))) VIRTUAL);"
        "INSERT INTO kernels(id, rank, compile_id, name, language, kind, graph_kind, seq, start, stop)"
        " SELECT id, rank, compile_id, name, language, kind, graph_kind, seq, start, stop FROM kernels_old;",
        "generated or hidden column",
    ),
    "trigger": (
        "CREATE TRIGGER t AFTER INSERT ON meta BEGIN SELECT 1; END;",
        "a trigger",
    ),
    "other-columns": (
        "ALTER TABLE graphs ADD COLUMN extra TEXT;",
        "not those inspectc writes",
    ),
}


@pytest.mark.timeout(300)
@pytest.mark.parametrize("case", sorted(CASES))
def test_hostile_object_is_refused_by_every_reader(case: str, tmp_path: Path) -> None:
    sql, words = CASES[case]
    bad = _tampered(tmp_path, case, sql)
    for args in (
        ("summary", str(bad)),
        ("export", str(bad), "--json"),
        ("kernels", str(bad)),
        ("share", str(bad)),
    ):
        start = time.monotonic()
        proc = _cli(*args, cwd=tmp_path)
        lines = proc.stderr.strip().splitlines()
        assert proc.returncode != 0, (args, proc.stdout[-500:])
        assert len(lines) == 1 and "Traceback" not in proc.stderr, (args, proc.stderr[-2000:])
        assert str(bad) in lines[0] and words in lines[0], (args, lines)
        assert time.monotonic() - start < 30
    assert not list(tmp_path.glob("*.share.*")), "nothing is written for a refused report"
    assert sum(f.stat().st_size for f in tmp_path.rglob("*") if f.is_file()) < 64 << 20


@pytest.mark.timeout(300)
def test_a_view_bombed_rank_in_a_rank_folder_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "ranks"
    folder.mkdir()
    shutil.copyfile(GOLDEN, folder / "rank_0.inspectc")
    bad = _tampered(tmp_path, "bomb", CASES["recursive-view"][0])
    shutil.move(bad, folder / "rank_1.inspectc")
    proc = _cli("summary", str(folder), cwd=tmp_path)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode != 0 and len(lines) == 1, proc.stderr[-2000:]
    assert "rank_1.inspectc" in lines[0] and "a view" in lines[0]


@pytest.mark.timeout(300)
def test_a_hostile_file_at_o_is_not_replaced_and_not_run(tmp_path: Path, traces_dir: Path) -> None:
    target = _tampered(tmp_path, "at-o", CASES["infinite-meta-view"][0])
    before = target.read_bytes()
    start = time.monotonic()
    proc = _cli("import", str(traces_dir / "simple.log"), "-o", str(target), cwd=tmp_path)
    assert time.monotonic() - start < 30
    assert proc.returncode != 0 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr[-2000:]
    assert target.read_bytes() == before  # a file that is not an inspectc report is never replaced


def test_a_slow_statement_stops_at_its_budget(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INSPECTC_READ_BUDGET_S", "0.5")
    db = sqlite3.connect(":memory:")
    budget = safedb.harden(db)
    start = time.monotonic()
    with pytest.raises(ReportError, match="took over 0.5 s"):
        safedb.run(db, budget, tmp_path / "x.inspectc", f"SELECT count(*) FROM ({INFINITE})")
    assert time.monotonic() - start < 5
    assert safedb.run(db, budget, tmp_path / "x.inspectc", "SELECT 1") == [
        (1,)
    ]  # a new statement, a new deadline


def test_memory_is_capped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INSPECTC_SQLITE_HEAP_MB", "64")
    db = sqlite3.connect(":memory:")
    budget = safedb.harden(db)
    try:
        with pytest.raises(ReportError, match="more than 64 MB"):
            # sorting 2M distinct 100-byte rows needs far more than 64 MB of temp storage
            safedb.run(
                db,
                budget,
                tmp_path / "x.inspectc",
                f"SELECT count(DISTINCT randomblob(100)) FROM ({INFINITE} LIMIT 2000000)",
            )
    finally:
        db.close()
        db = sqlite3.connect(":memory:")
        db.execute(f"PRAGMA hard_heap_limit={1 << 30}")  # the limit is per process: put it back
        db.close()


CTRL_C = f"""
import sqlite3, sys, time
sys.path[:0] = [{str(ROOT)!r}]
from inspectc.report import safedb
db = sqlite3.connect(":memory:")
budget = safedb.harden(db)
print("ready", flush=True)
try:
    safedb.run(db, budget, __import__("pathlib").Path("x"), "SELECT count(*) FROM ({INFINITE})")
except KeyboardInterrupt:
    print("interrupted", time.monotonic(), flush=True)
    sys.exit(130)
"""


@pytest.mark.timeout(60)
def test_ctrl_c_stops_a_read_within_a_second() -> None:
    proc = subprocess.Popen([sys.executable, "-c", CTRL_C], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "ready"
    time.sleep(0.5)
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=20)
    assert proc.returncode == 130, out
    stopped_at = float(out.split()[1])
    assert stopped_at - sent < 1.0


def test_golden_and_old_reports_pass_the_shape_check() -> None:
    for path in [*REPORTS.glob("*.inspectc"), *(ROOT / "tests" / "data" / "reports").glob("*.inspectc")]:
        db, _ = safedb.connect(path)
        db.close()
