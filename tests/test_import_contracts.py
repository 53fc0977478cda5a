"""The import contracts hold, and no import circle exists anywhere in inspectc or its TUI.

The contracts (layers cli | tui -> render | capture -> analysis -> store | trace -> model ->
errors; torch only under capture; textual only under the TUI; readers never import trace/)
live in pyproject.toml and ``make lint`` runs
``lint-imports``; this runs it too. The circle check reads the same import graph (grimp,
import-linter's engine, counting imports inside functions too) and asserts that its strongly
connected components are single modules.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
grimp = pytest.importorskip("grimp")


def circles(graph: object, modules: set[str]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]  # type: ignore[attr-defined]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.find_modules_directly_imported_by(child)))))  # type: ignore[attr-defined]
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                part = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    part.append(top)
                    if top == node:
                        break
                if len(part) > 1:
                    found.append(sorted(part))
    return found


def test_no_import_circle_anywhere() -> None:
    graph = grimp.build_graph("inspectc", "inspectc_tui", cache_dir=None)
    assert circles(graph, set(graph.modules)) == []


def test_the_circle_check_finds_a_circle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pkg = tmp_path / "circle_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from circle_pkg import b\n")
    (pkg / "b.py").write_text("def f():\n    from circle_pkg import a\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    graph = grimp.build_graph("circle_pkg", cache_dir=None)
    assert circles(graph, set(graph.modules)) == [["circle_pkg.a", "circle_pkg.b"]]


def test_import_contracts_are_kept() -> None:
    lint = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which("lint-imports")
    if lint is None:
        pytest.skip("import-linter is not installed (pip install -e '.[dev]')")
    proc = subprocess.run([lint, "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert " 0 broken" in proc.stdout


def test_every_inspectc_error_lives_in_errors_py() -> None:
    """errors.py holds every error, and only errors: no InspectcError subclass elsewhere."""
    import importlib
    import pkgutil

    import inspectc
    from inspectc.errors import InspectcError

    for info in pkgutil.walk_packages(inspectc.__path__, "inspectc."):
        if not info.name.endswith("__main__"):  # that one runs the CLI
            importlib.import_module(info.name)
    elsewhere: list[str] = []
    todo = [InspectcError]
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        if cls.__module__.startswith("inspectc") and cls.__module__ != "inspectc.errors":
            elsewhere.append(f"{cls.__module__}.{cls.__qualname__}")
    assert elsewhere == []
