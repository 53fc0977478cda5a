"""The boundary, tested: model/, store/, trace/, analysis/, render/ never load torch or textual.

In the style of harlequin's ``test_import_hygiene.py``: every module of the torch-free
packages (found with ``pkgutil``, so a new module is covered without editing this file) is
imported alone in a fresh process, then the readers run on a golden report so lazy imports
count too. The fresh processes are forked, one per module, from one new interpreter that has
loaded nothing of inspectc (starting ~120 interpreters cost more than the imports).
"""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

import inspectc

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "samples" / "reports" / "graph_breaks.inspectc"
TORCH_FREE = ("model", "store", "trace", "analysis", "render", "share", "cli")
# Capture modules a machine without torch runs too: `inspectc import` reads others' logs there;
# the SASS worker is plain subprocesses.
TORCH_FREE_CAPTURE = ("inspectc.capture.importer", "inspectc.capture.sass")
FORBIDDEN = ("torch", "triton", "textual", "inspectc.capture.session", "inspectc.capture.timing")
FORBIDDEN_PREFIXES = ("torch.", "triton.", "textual.")


def torch_free_modules() -> list[str]:
    names = ["inspectc"]
    for package in TORCH_FREE:
        path = [str(Path(inspectc.__file__).parent / package)]
        names.append(f"inspectc.{package}")
        names.extend(m.name for m in pkgutil.walk_packages(path, prefix=f"inspectc.{package}."))
    return sorted(names) + list(TORCH_FREE_CAPTURE)


# A child per module, forked from a clean interpreter: it imports that one module and sends
# back its sys.modules (or the import's error). A module found clean is then imported by the
# parent too, so later children start with it loaded (each import is paid once): that hides
# nothing, since the parent only ever holds modules whose whole import loaded nothing forbidden.
PROBE = textwrap.dedent(
    """
    import importlib, json, os, sys
    forbidden, prefixes = json.loads(sys.argv[1])
    found = {}
    for name in sys.argv[2:]:
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            try:
                importlib.import_module(name)
                out = {"modules": sorted(sys.modules)}
            except BaseException as exc:
                out = {"error": f"{type(exc).__name__}: {exc}"}
            with os.fdopen(write, "w") as pipe:
                json.dump(out, pipe)
            os._exit(0)
        os.close(write)
        with os.fdopen(read) as pipe:
            found[name] = json.load(pipe)
        os.waitpid(pid, 0)
        loaded = found[name].get("modules", [forbidden[0]])
        if not any(m in forbidden or m.startswith(tuple(prefixes)) for m in loaded):
            importlib.import_module(name)
    print(json.dumps(found))
    """
)

READERS_AT_WORK = textwrap.dedent(
    """
    import json, sys
    from inspectc.cli.main import build_parser
    from inspectc.render.export import export_report
    from inspectc.render.graph.fusion import breaks_dot
    from inspectc.render.terminal import render_summary
    from inspectc.store.open import open_report
    build_parser()
    with open_report(sys.argv[1]) as r:
        render_summary(r)
        export_report(r)
        breaks_dot(r)
    print(json.dumps(sorted(sys.modules)))
    """
)


def _run(code: str, *args: str) -> Any:
    proc = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _loaded(code: str, arg: str) -> set[str]:
    return set(_run(code, arg))


@pytest.fixture(scope="module")
def imported() -> dict[str, dict[str, Any]]:
    """Module -> ``{"modules": sys.modules after importing it alone}`` or ``{"error": ...}``."""
    rule = json.dumps([FORBIDDEN, FORBIDDEN_PREFIXES])
    return _run(PROBE, rule, *torch_free_modules())


def _forbidden(loaded: set[str]) -> list[str]:
    return sorted(m for m in loaded if m in FORBIDDEN or m.startswith(FORBIDDEN_PREFIXES))


def test_walk_finds_every_stage() -> None:
    modules = torch_free_modules()
    for expected in ("inspectc.store.open", "inspectc.trace.builder", "inspectc.render.terminal"):
        assert expected in modules
    assert [m for m in modules if m.startswith("inspectc.capture")] == list(TORCH_FREE_CAPTURE)


@pytest.mark.parametrize("module", torch_free_modules())
def test_module_imports_without_torch_or_textual(module: str, imported: dict[str, dict[str, Any]]) -> None:
    found = imported[module]
    assert "error" not in found, found["error"]
    loaded = set(found["modules"])
    assert module in loaded and "inspectc" in loaded  # it really was imported
    assert _forbidden(loaded) == []


def test_readers_at_work_load_no_torch() -> None:
    if not GOLDEN.exists():
        pytest.skip("samples/reports is missing")
    assert _forbidden(_loaded(READERS_AT_WORK, str(GOLDEN))) == []
