"""The boundary, tested: report/, trace/ and readers/ never load torch, triton or textual.

In the style of harlequin's ``test_import_hygiene.py``: every module of the torch-free
packages (found with ``pkgutil``, so a new module is covered without editing this file) is
imported in a fresh interpreter, then the readers run on a golden report so lazy imports
count too.
"""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import inspectc

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "samples" / "reports" / "graph_breaks.inspectc"
TORCH_FREE = ("report", "trace", "readers", "cli")
FORBIDDEN = ("torch", "triton", "textual", "inspectc.capture.session", "inspectc.capture.timing")


def torch_free_modules() -> list[str]:
    names = ["inspectc"]
    for package in TORCH_FREE:
        path = [str(Path(inspectc.__file__).parent / package)]
        names.append(f"inspectc.{package}")
        names.extend(m.name for m in pkgutil.walk_packages(path, prefix=f"inspectc.{package}."))
    return sorted(names)


PROBE = textwrap.dedent(
    """
    import importlib, json, sys
    importlib.import_module(sys.argv[1])
    print(json.dumps(sorted(sys.modules)))
    """
)

READERS_AT_WORK = textwrap.dedent(
    """
    import json, sys
    from inspectc.cli.main import build_parser
    from inspectc.readers.export import export_report
    from inspectc.readers.graph.fusion import breaks_dot
    from inspectc.readers.summary import render_summary
    from inspectc.report.open import open_report
    build_parser()
    with open_report(sys.argv[1]) as r:
        render_summary(r)
        export_report(r)
        breaks_dot(r)
    print(json.dumps(sorted(sys.modules)))
    """
)


def _loaded(code: str, arg: str) -> set[str]:
    proc = subprocess.run(
        [sys.executable, "-c", code, arg], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert proc.returncode == 0, proc.stderr
    return set(json.loads(proc.stdout.strip().splitlines()[-1]))


def _forbidden(loaded: set[str]) -> list[str]:
    return sorted(m for m in loaded if m in FORBIDDEN or m.startswith(("torch.", "triton.", "textual.")))


def test_walk_finds_every_stage() -> None:
    modules = torch_free_modules()
    for expected in ("inspectc.report.open", "inspectc.trace.builder", "inspectc.readers.summary"):
        assert expected in modules
    assert not [m for m in modules if m.startswith("inspectc.capture")]


@pytest.mark.parametrize("module", torch_free_modules())
def test_module_imports_without_torch_or_textual(module: str) -> None:
    assert _forbidden(_loaded(PROBE, module)) == []


def test_readers_at_work_load_no_torch() -> None:
    if not GOLDEN.exists():
        pytest.skip("samples/reports is missing")
    assert _forbidden(_loaded(READERS_AT_WORK, str(GOLDEN))) == []
