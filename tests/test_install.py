"""One install gives the CLI and the TUI: ``python -m build`` makes an sdist and a wheel (the
wheel built from the sdist), and ``pip install 'inspectc-*.whl[tui]'`` into a fresh venv runs
``inspectc --version``, ``inspectc run`` (a real compile) and the TUI on the report it wrote.
The project depends on no name it does not publish (the ``tui`` extra adds only Textual)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
import tomllib

from inspectc import __version__
from tests.conftest import ROOT

SCRIPT = """
import torch

@torch.compile
def f(x):
    return (x.sin() + 1).relu()

print(float(f(torch.ones(8)).sum()))
"""

TUI_CHECK = """
import asyncio, sys
from inspectc_tui.app import InspectcApp

async def main():
    app = InspectcApp(sys.argv[1])
    async with app.run_test(size=(120, 34)) as pilot:
        await pilot.pause(1.0)
        print("screen:", type(app.screen).__name__)

asyncio.run(main())
"""


def _clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def _run(cmd: list[str], cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(cmd, cwd=cwd, env=_clean_env(), capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, (
        f"{cmd} exited {proc.returncode}\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
    )
    return proc


def test_extras_name_only_published_packages() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = [
        dep.split("[")[0].split(">")[0].split("=")[0].split("<")[0].strip().lower()
        for dep in project["dependencies"]
    ]
    for extra in project["optional-dependencies"].values():
        names += [
            dep.split("[")[0].split(">")[0].split("=")[0].split("<")[0].strip().lower() for dep in extra
        ]
    assert "inspectc-tui" not in names and "inspectc" not in names
    assert project["optional-dependencies"]["tui"] == ["textual>=8.2"]
    assert not (ROOT / "tui" / "pyproject.toml").exists()  # one distribution, not two


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("build")
    src = tmp_path_factory.mktemp("clone")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "tests", "__snapshots__")
    shutil.copytree(ROOT / "inspectc", src / "inspectc", ignore=ignore)
    shutil.copytree(ROOT / "tui", src / "tui", ignore=ignore)
    dist = src / "dist"
    _run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist), str(src)], cwd=src)
    return dist


@pytest.mark.slow
@pytest.mark.timeout(420)
def test_build_makes_an_sdist_and_a_wheel_with_the_tui(built: Path) -> None:
    wheels = list(built.glob("*.whl"))
    sdists = list(built.glob("*.tar.gz"))
    assert [w.name for w in wheels] == [f"inspectc-{__version__}-py3-none-any.whl"]
    assert [s.name for s in sdists] == [f"inspectc-{__version__}.tar.gz"]
    names = zipfile.ZipFile(wheels[0]).namelist()
    assert "inspectc_tui/app.tcss" in names and "inspectc_tui/app.py" in names
    assert "inspectc/cli/main.py" in names
    entry = zipfile.ZipFile(wheels[0]).read(f"inspectc-{__version__}.dist-info/entry_points.txt").decode()
    assert "inspectc = inspectc.cli.main:entry" in entry
    with tarfile.open(sdists[0]) as tar:
        assert any(n.endswith("tui/inspectc_tui/app.tcss") for n in tar.getnames())


@pytest.mark.slow
@pytest.mark.capture
@pytest.mark.timeout(900)
def test_wheel_installs_into_a_fresh_venv_and_runs(built: Path, tmp_path: Path) -> None:
    pytest.importorskip("torch")
    venv = tmp_path / "venv"
    base = getattr(sys, "_base_executable", sys.executable)
    _run([base, "-m", "venv", str(venv)], cwd=tmp_path)
    py = venv / "bin" / "python"
    wheel = next(built.glob("*.whl"))
    # The wheel brings everything but torch, the TUI included: installed into a venv with no
    # torch and nothing else. torch is the user's own: this checkout's (a path line after the
    # install, behind the venv's own site-packages; unpacking a second copy took most of a minute).
    _run([str(py), "-m", "pip", "install", "-q", f"{wheel}[tui]"], cwd=tmp_path, timeout=600)
    import torch

    own = _run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], cwd=tmp_path)
    (Path(own.stdout.strip()) / "users_torch.pth").write_text(str(Path(torch.__file__).parent.parent) + "\n")

    version = _run([str(venv / "bin" / "inspectc"), "--version"], cwd=tmp_path)
    assert version.stdout.strip() == f"inspectc {__version__}"
    where = _run(
        [str(py), "-c", "import inspectc, inspectc_tui; print(inspectc.__file__, inspectc_tui.__file__)"],
        cwd=tmp_path,
    )
    assert (
        str(venv) in where.stdout and str(ROOT) not in where.stdout
    )  # the installed copy, not this checkout

    (tmp_path / "tiny.py").write_text(SCRIPT)
    report = tmp_path / "tiny.inspectc"
    env_cache = {"TORCHINDUCTOR_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.run(
        [str(venv / "bin" / "inspectc"), "run", "-q", "--no-timings", "-o", str(report), "tiny.py"],
        cwd=tmp_path,
        env={**_clean_env(), **env_cache},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    summary = _run([str(venv / "bin" / "inspectc"), "summary", str(report)], cwd=tmp_path)
    assert summary.stdout.startswith("inspectc: 1 frame compiled")

    tui = _run([str(py), "-c", TUI_CHECK, str(report)], cwd=tmp_path)
    assert "screen:" in tui.stdout
    assert _run([str(venv / "bin" / "inspectc-tui"), "--help"], cwd=tmp_path).stdout
