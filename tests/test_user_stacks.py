"""Every stack a reader shows starts at the user's code, however the program was started.

inspectc's own frames (the console script, ``python -m inspectc``, the CLI, the runner) and
runpy's sit under the user's frames in ``inspectc run``; the builder drops them. A path that
named the builder's old folder once kept them all, and no test noticed: this one checks the
outcome (the first frame of each stack in the JSON export and in the share bundle is the
user's file) for ``inspectc run FILE``, ``inspectc run -m MODULE`` and the notebook API.
``torchrun`` is checked by tests/test_ranks.py's DDP run with :func:`assert_stacks_start_at`.
Dynamo's ``eager`` backend keeps these runs free of Inductor compiles.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli

TRAIN = textwrap.dedent(
    """
    import torch

    def step(x):
        y = x.sin()
        print("a graph break")
        return y + 1

    def main():
        torch.compile(step, backend="eager")(torch.ones(8))

    if __name__ == "__main__":
        main()
    """
)
NOTEBOOK = textwrap.dedent(
    """
    import sys
    import inspectc
    from app.train import main

    with inspectc.capture(sys.argv[1]):
        main()
    """
)


def stacks(value: Any) -> Iterator[list[dict[str, Any]]]:
    """Every stack (a list of frames under a key that names a stack) in exported JSON."""
    if isinstance(value, dict):
        for key, item in value.items():
            if "stack" in key and isinstance(item, list) and item and isinstance(item[0], dict):
                yield item
            yield from stacks(item)
    elif isinstance(value, list):
        for item in value:
            yield from stacks(item)


def assert_stacks_start_at(data: dict[str, Any], user_file: str) -> int:
    """Each stack in *data* starts in *user_file*; none holds inspectc's or runpy's frames."""
    found = list(stacks(data))
    assert found, "no stack in the export"
    for stack in found:
        names = [str(f.get("filename")) for f in stack]
        assert names[0].endswith(user_file), names
        own = [n for n in names if "inspectc/" in n or "runpy" in n or n.endswith("bin/inspectc")]
        assert not own, names
    return len(found)


def export(path: Path) -> dict[str, Any]:
    return json.loads(run_cli("export", str(path), "--json", check=True).stdout)


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("torch")
    base = tmp_path_factory.mktemp("stacks")
    (base / "app").mkdir()
    (base / "app" / "__init__.py").write_text("")
    (base / "app" / "train.py").write_text(TRAIN)
    (base / "nb.py").write_text(NOTEBOOK)
    return base


@pytest.mark.capture
@pytest.mark.parametrize("how", ["file", "module", "notebook"])
def test_every_stack_starts_at_the_users_code(app: Path, how: str) -> None:
    report = app / f"{how}.inspectc"
    if how == "notebook":
        proc = subprocess.run(
            [sys.executable, "nb.py", str(report)], cwd=app, capture_output=True, text=True, timeout=600
        )
        assert proc.returncode == 0, proc.stderr
    else:
        target = ["app/train.py"] if how == "file" else ["-m", "app.train"]
        run_cli("run", "-q", "-o", str(report), *target, cwd=app, check=True)
    user_file = "nb.py" if how == "notebook" else "app/train.py"
    data = export(report)
    assert data["graph_breaks"], "the sample's print() makes a graph break"
    assert assert_stacks_start_at(data, user_file) >= 2

    out = app / f"share-{how}"
    run_cli("share", str(report), "-o", str(out), check=True)
    (bundle,) = out.glob("*.zip")
    assert_stacks_start_at(export(bundle), user_file)
    with zipfile.ZipFile(bundle) as zf:
        text = "".join(zf.read(n).decode("utf-8", "replace") for n in zf.namelist() if n.endswith(".md"))
    text += "".join(p.read_text() for p in out.glob("*.md"))
    assert "inspectc/cli/" not in text and "capture/runner.py" not in text
