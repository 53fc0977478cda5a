"""The GitHub Actions recipe in .ci/ works as written: every ``run:`` step (but the install)
runs in order under bash, as the runner would, on a real script with one graph break. The gate
fails it at ``MAX_GRAPH_BREAKS=0`` and passes it at 1; the summary lands in the step summary;
the share bundle is written, passes ``share --check``, and is what the upload step names."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

yaml = pytest.importorskip("yaml")
RECIPE = ROOT / ".ci" / "github-actions-recipe.yml"

SCRIPT = """
import torch

@torch.compile
def f(x):
    x = x.sin()
    print("a graph break")
    return x.cos()

for n in (8, 8):
    f(torch.ones(n))
"""


def _job() -> dict:
    return yaml.safe_load(RECIPE.read_text())["jobs"]["inspectc"]


def _run_job(folder: Path, **env_over: str) -> dict[str, int]:
    job = _job()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update({k: str(v) for k, v in job["env"].items()})
    env.update(env_over)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"  # the installed inspectc
    env["PYTHONPATH"] = os.environ.get("PYTHONPATH", "")
    env["GITHUB_STEP_SUMMARY"] = str(folder / "step_summary.md")
    results: dict[str, int] = {}
    failed = False
    for step in job["steps"]:
        if "run" not in step or step.get("id") == "install":
            continue
        if failed and "always()" not in str(step.get("if", "")):
            results[step["name"]] = -1  # skipped, as the runner skips after a failure
            continue
        proc = subprocess.run(
            ["bash", "-eo", "pipefail", "-c", step["run"]],
            cwd=folder,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        results[step["name"]] = proc.returncode
        failed = failed or proc.returncode != 0
    return results


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("torch")
    folder = tmp_path_factory.mktemp("ci")
    (folder / "train.py").write_text(SCRIPT)
    return folder


def test_recipe_is_a_workflow_with_the_documented_steps() -> None:
    job = _job()
    names = [s.get("name") or s.get("uses") for s in job["steps"]]
    assert names[-1] == "Upload"
    upload = job["steps"][-1]
    assert upload["uses"].startswith("actions/upload-artifact@") and upload["if"] == "always()"
    assert upload["with"]["path"].rstrip("/") == "inspectc-share"
    assert {"Capture", "Gate", "Share bundle", "Summary"} <= set(names)


@pytest.mark.capture
@pytest.mark.timeout(900)
def test_recipe_gates_a_break_and_uploads_the_bundle(workdir: Path) -> None:
    results = _run_job(workdir, MAX_GRAPH_BREAKS="0", MAX_RECOMPILES="2")
    assert results["Capture"] == 0
    assert results["Gate"] == 1  # one graph break against a limit of 0: the job fails here
    assert results["Summary"] == 0 and results["Share bundle"] == 0  # `if: always()` steps still run
    summary = (workdir / "step_summary.md").read_text()
    assert summary.startswith("inspectc: 2 frames compiled, 1 graph break")
    shared = sorted(p.name for p in (workdir / "inspectc-share").iterdir())
    assert any(n.endswith(".zip") for n in shared) and any(n.endswith(".md") for n in shared)
    assert any(n.endswith(".html") for n in shared)

    again = subprocess.run(
        ["bash", "-c", 'inspectc check "$REPORT" --max-graph-breaks 1 --max-recompiles 2 --fail-on-error'],
        cwd=workdir,
        env={
            **os.environ,
            "REPORT": "inspectc-report.inspectc",
            "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
        },
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert again.returncode == 0, again.stdout + again.stderr
