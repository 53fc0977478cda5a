"""A graph break inside library code (torch's polyfills for a ctypes call) is shown at the
user's own line, the line a user would change, with the library line it broke inside below
it: in the summary, and in share's Markdown (found by a held-out sweep)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from conftest import run_cli

pytestmark = [pytest.mark.capture, pytest.mark.timeout(300)]

SCRIPT = """
import ctypes, torch
libc = ctypes.CDLL(None)
def f(x):
    n = libc.abs(-3)  # the user's line: a C call Dynamo cannot trace
    return x.sin() + n
torch.compile(f, backend="eager")(torch.randn(8))
"""


def test_a_break_inside_a_library_is_shown_at_the_users_line(tmp_path: Path) -> None:
    (tmp_path / "cbreak.py").write_text(textwrap.dedent(SCRIPT))
    run = run_cli("run", "-q", "-o", "r.inspectc", "cbreak.py", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    summary = run_cli("summary", "r.inspectc", cwd=tmp_path, check=True).stdout
    section = summary.split("Graph breaks", 1)[1]
    first, second = section.splitlines()[1:3]
    assert "cbreak.py:5" in first, section
    assert "broke inside library code: torch/_dynamo/" in second, section
    run_cli("share", "r.inspectc", "-o", "out", cwd=tmp_path, check=True)
    markdown = (tmp_path / "out" / "r.share.md").read_text()
    # the one section model: the user's line heads the break, the library's line under it
    head = next((line for line in markdown.splitlines() if "`cbreak.py:5`" in line), None)
    assert head is not None and head.startswith("- **1×**"), markdown
    assert "broke inside library code: `torch/_dynamo/" in markdown.split(head, 1)[1], markdown
