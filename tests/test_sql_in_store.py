"""Only store/ speaks SQL: no other module of inspectc or the TUI imports ``sqlite3``, runs a
statement (``.execute``, ``.executemany``, ``.executescript``) or holds one as a string.

Every write to a report goes through store/'s writers (``writer.py``, ``oneshot.py``, ``edit.py``,
``rewrite.py``) and every table is in ``schema.py``, as coverage.py keeps its SQL in
``sqldata.py``: six writers of one format were six places to forget a table. The scan reads
the code's syntax trees (docstrings left out), so a comment or a word in a sentence is no match.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCANNED = [ROOT / "inspectc", ROOT / "tui" / "inspectc_tui"]
STORE = ROOT / "inspectc" / "store"
RUNS_SQL = {"execute", "executemany", "executescript"}
STATEMENT = re.compile(
    r"^\s*(?:SELECT\s.+\sFROM|INSERT\s+(?:OR\s+\w+\s+)?INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM"
    r"|CREATE\s+(?:TABLE|INDEX|VIEW|TRIGGER)|DROP\s+\w+|ALTER\s+TABLE|PRAGMA\s|ATTACH\s|VACUUM\b)",
    re.DOTALL,
)


def _docstrings(tree: ast.Module) -> set[int]:
    return {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }


def sql_use(path: Path) -> list[str]:
    """Where *path* imports sqlite3, runs a statement or holds one: ``file:line what``."""
    tree = ast.parse(path.read_text(), str(path))
    docs = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        what = None
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "sqlite3" for a in node.names):
            what = "import sqlite3"
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "sqlite3":
            what = "from sqlite3 import"
        elif (
            isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in RUNS_SQL
        ):
            what = f".{node.func.attr}()"
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            if STATEMENT.match(node.value):
                what = f"SQL {node.value.strip()[:40]!r}"
        if what:
            found.append(f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 0)} {what}")
    return found


def _modules() -> list[Path]:
    return [p for folder in SCANNED for p in sorted(folder.rglob("*.py"))]


def test_the_scan_finds_sql_where_it_is() -> None:
    found = [
        line for p in (STORE / "writer.py", STORE / "edit.py", STORE / "schema.py") for line in sql_use(p)
    ]
    assert any("import sqlite3" in line for line in found)
    assert any(".execute()" in line for line in found)
    assert any("SQL 'INSERT OR REPLACE INTO meta" in line for line in found)
    assert any("SQL 'CREATE TABLE IF NOT EXISTS bench" in line for line in found)


def test_no_sql_outside_store() -> None:
    outside = [p for p in _modules() if STORE not in p.parents]
    assert len(outside) > 150  # every reader, the CLI, capture and the TUI
    found = [line for p in outside for line in sql_use(p)]
    assert found == [], "SQL outside inspectc/store/ (write through store's writers):\n" + "\n".join(found)


def test_every_table_is_made_in_schema() -> None:
    """``CREATE TABLE`` appears in schema.py and nowhere else."""
    made = {
        p.name
        for p in _modules()
        for line in sql_use(p)
        if "SQL 'CREATE TABLE" in line or "SQL 'CREATE INDEX" in line
    }
    assert made == {"schema.py"}
