"""Reports in notebooks: a real notebook, run by nbclient on a real ipykernel, compiles a small
model under ``inspectc.capture()`` and shows the report as HTML; ``inspectc.open`` does the same
for a saved report, and plain IPython gets the terminal summary."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPORTS, ROOT

CAPTURE_CELL = """
import torch, inspectc

class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(32, 32)
        self.b = torch.nn.Linear(32, 8)

    def forward(self, x):
        y = torch.relu(self.a(x))
        print("breaking here")  # a graph break the HTML must show
        return self.b(y).softmax(-1)

model = torch.compile(Net())
with inspectc.capture({path!r}, timings=False) as cap:
    with torch.no_grad():
        for _ in range(2):
            model(torch.randn(4, 32))
cap
"""

# Cells run after the two above, in the same kernel: capture starts in one cell and stops in
# another; the function that breaks is defined in its own cell and called from the next. A
# markdown cell between them has no execution count. No cell starts with a blank line
# (IPython drops those before it compiles a cell, and counts lines from what it compiled).
CELLS = (
    ("code", "cells_capture = inspectc.capture({path!r}, timings=False)\ncells_capture.start()"),
    ("markdown", "The function below breaks its graph."),
    (
        "code",
        "# defined here, called from the next cell\n"
        "def step(x):\n"
        "    y = torch.sin(x) * 2\n"
        "    torch._dynamo.graph_break()  # BREAK\n"
        "    return torch.cos(y)",
    ),
    ("code", "compiled_step = torch.compile(step)\nfor _ in range(2):\n    compiled_step(torch.randn(8))"),
    ("code", "cells_capture.stop()"),
)
FIRST_CELL = 2  # the index of CELLS[0] in the notebook


@pytest.fixture(scope="module")
def executed(tmp_path_factory: pytest.TempPathFactory):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    pytest.importorskip("torch")
    folder = tmp_path_factory.mktemp("notebook")
    report = folder / "nb.inspectc"
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(CAPTURE_CELL.format(path=str(report))),
        nbformat.v4.new_code_cell(f"inspectc.open({str(REPORTS / 'graph_breaks.inspectc')!r})"),
    ]
    cells_report = str(folder / "cells.inspectc")
    for kind, text in CELLS:
        made = nbformat.v4.new_code_cell if kind == "code" else nbformat.v4.new_markdown_cell
        nb.cells.append(made(text.format(path=cells_report) if kind == "code" else text))
    env_path = os.pathsep.join(filter(None, [str(ROOT), str(ROOT / "tui"), os.environ.get("PYTHONPATH")]))
    os.environ["PYTHONPATH"] = env_path  # the kernel process imports this checkout's inspectc
    client = nbclient.NotebookClient(
        nb, timeout=240, kernel_name="python3", resources={"metadata": {"path": str(folder)}}
    )
    client.execute()
    return nb, report


def _html(cell) -> str:
    for output in cell.outputs:
        data = output.get("data", {})
        if "text/html" in data:
            return data["text/html"]
    raise AssertionError(f"no HTML output in {[o.get('output_type') for o in cell.outputs]}")


@pytest.mark.capture
@pytest.mark.timeout(400)
def test_capture_cell_shows_the_report_as_html(executed) -> None:
    nb, report = executed
    html = _html(nb.cells[0])
    assert report.exists()
    assert html.startswith('<div class="inspectc-report">')
    assert "1 graph break" in html  # the headline, from the same renderer as share --html
    assert "Graph breaks" in html and "print" in html
    assert "<html" not in html and "<body" not in html  # a fragment: the notebook keeps its page
    plain = nb.cells[0].outputs[-1]["data"]["text/plain"]
    assert plain.startswith("inspectc: ")  # IPython's plain text is the terminal summary


@pytest.mark.capture
@pytest.mark.timeout(400)
def test_open_shows_a_saved_report(executed) -> None:
    nb, _ = executed
    html = _html(nb.cells[1])
    assert "6 graph breaks (4 unique)" in html
    assert "Top kernels" in html or "kernel" in html


@pytest.mark.capture
@pytest.mark.timeout(400)
def test_a_notebook_run_is_named_a_notebook_and_its_stacks_start_in_the_cell(executed) -> None:
    """Its argv is the kernel's (ipykernel_launcher.py -f kernel-N.json): the header says it is a
    notebook; the break's stack starts at the cell, not under 16 frames of the kernel."""
    from tests.conftest import run_cli

    _, report = executed
    summary = run_cli("summary", str(report), check=True).stdout
    assert "a Jupyter notebook (ipykernel)" in summary.splitlines()[1]
    assert "ipykernel_launcher" not in summary
    data = json.loads(run_cli("export", str(report), check=True).stdout)
    (gb,) = [gb for f in data["frames"] for gb in f["graph_breaks"]]
    files = [entry["filename"] for entry in gb["user_stack"]]
    assert re.search(r"ipykernel_\d+[/\\]\d+\.py$", files[0]), files
    assert not [name for name in files if re.search(r"IPython|ipykernel[/\\]|tornado|asyncio|runpy", name)], (
        files
    )


def test_plain_ipython_shows_the_summary_and_loads_no_torch() -> None:
    pytest.importorskip("IPython")
    code = (
        "import sys, inspectc\n"
        "from IPython.lib.pretty import pretty\n"
        f"view = inspectc.open({str(REPORTS / 'graph_breaks.inspectc')!r})\n"
        "text = pretty(view)\n"
        "assert text.startswith('inspectc: 12 frames compiled'), text[:80]\n"
        "assert 'Graph breaks' in text\n"
        "assert 'torch' not in sys.modules\n"
        "print('ok')\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "tui")]))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"


def test_open_refuses_a_non_report_in_one_line(tmp_path: Path) -> None:
    import inspectc
    from inspectc.errors import InspectcError

    bad = tmp_path / "x.inspectc"
    bad.write_text("not a report")
    with pytest.raises(InspectcError):
        inspectc.open(bad)


def _cell_of(nb, marker: str) -> tuple[int, int]:
    """The execution count of the code cell that holds *marker* and the marker's line in that
    cell: read from the notebook as nbclient ran it, not from inspectc."""
    (cell,) = [c for c in nb.cells if c.cell_type == "code" and marker in c.source]
    line = next(n for n, text in enumerate(cell.source.splitlines(), 1) if marker in text)
    return cell.execution_count, line


@pytest.mark.capture
@pytest.mark.timeout(400)
def test_a_break_in_a_cell_is_named_by_the_cells_number(executed, tmp_path: Path) -> None:
    """``cell [N], line L`` as the notebook numbers its cells, in the summary, the JSON export,
    the HTML page and the share Markdown; the file IPython compiled the cell under stays in
    the export, and share's copy names the cell without adding any name the report lacked."""
    from tests.conftest import run_cli

    nb, first = executed
    report = first.with_name("cells.inspectc")
    count, line = _cell_of(nb, "# BREAK")
    called, call_line = _cell_of(nb, "compiled_step(torch")
    # The markdown cell has no count: N is not the cell's position in the notebook.
    assert count != nb.cells.index(next(c for c in nb.cells if "# BREAK" in c.source)) + 1
    where = f"cell [{count}], line {line}"
    summary = run_cli("summary", str(report), check=True).stdout
    assert where in summary, summary
    assert not re.search(r"ipykernel_\d+[/\\]\d+\.py:\d", summary), summary  # no cell as path:line

    data = json.loads(run_cli("export", str(report), check=True).stdout)
    (group,) = data["graph_breaks"]
    assert re.search(r"ipykernel_\d+[/\\]\d+\.py$", group["filename"]), group
    assert (group["cell"], group["line"]) == (count, line)
    assert data["run"]["cells"][group["filename"]] == count
    (gb,) = [gb for f in data["frames"] for gb in f["graph_breaks"]]
    stack = [(data["run"]["cells"].get(sf["filename"]), sf["line"]) for sf in gb["user_stack"]]
    assert stack == [(called, call_line), (count, line)]  # the calling cell, then the breaking one

    page = tmp_path / "page.html"
    run_cli("html", str(report), "-o", str(page), "--no-pictures", "-q", check=True)
    html = page.read_text(encoding="utf-8")
    assert where in html and f"cell [{called}], line {call_line}" in html  # the break's stack too

    out = tmp_path / "share"
    run_cli("share", str(report), "-o", str(out), check=True)
    assert where in (out / "cells.share.md").read_text(encoding="utf-8")
    shared = json.loads(run_cli("export", str(out / "cells.share.zip"), check=True).stdout)
    assert shared["graph_breaks"][0]["cell"] == count
    named = {sf["filename"] for f in shared["frames"] for gb in f["graph_breaks"] for sf in gb["user_stack"]}
    named |= {f["filename"] for f in shared["frames"]}
    assert set(shared["run"]["cells"]) <= named | {group["filename"]}, shared["run"]["cells"]
