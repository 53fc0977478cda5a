"""The README's code runs (issue 28 item 10).

Every ```python block runs in its own interpreter, in a folder where ``run.inspectc`` is a
golden report (``samples/reports/mlp_train.inspectc``). A block that captures
(``inspectc.capture``) first gets a tiny compiled ``model`` and its input ``x``; it compiles,
so it carries the ``capture`` mark. Every ``inspectc ...`` command line of the shell blocks
(``torchrun ... -m inspectc ...`` and ``run:`` steps included) is parsed by the CLI's own
parsers: the subcommand and its options exist. Nothing heavy is executed for them.
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPORTS, ROOT

from inspectc.cli import accuracy
from inspectc.cli.main import build_parser
from inspectc.cli.run import _run_parser, split_run_argv

README = ROOT / "README.md"
_FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)
# Blocks of commands; output (tables, screens) is fenced as ```text and not read.
_SHELL = ("", "bash", "sh", "shell", "console", "yaml")
_STOP = {"|", "||", "&&", ";", ">", ">>", "2>", "2>&1", "&"}
# What a capture block's ``model(x)`` needs: a real compile, the cheapest there is.
_PRELUDE = (
    'import torch\nmodel = torch.compile(torch.nn.Linear(4, 4), backend="eager")\nx = torch.ones(2, 4)\n'
)


def _fenced() -> list[tuple[str, str]]:
    return _FENCE.findall(README.read_text(encoding="utf-8"))


def _python_blocks() -> list[pytest.ParameterSet]:
    found = []
    for n, (lang, code) in enumerate(_fenced()):
        if lang != "python":
            continue
        captures = "inspectc.capture(" in code
        marks = [pytest.mark.capture] if captures else []
        found.append(pytest.param((_PRELUDE if captures else "") + code, id=f"block{n}", marks=marks))
    return found


def command_lines() -> list[list[str]]:
    """The arguments after ``inspectc`` on each command line of the README's shell blocks."""
    commands = []
    for lang, body in _fenced():
        if lang not in _SHELL:
            continue
        for line in body.splitlines():
            text = line.strip().removeprefix("$ ").removeprefix("- ").removeprefix("run: ")
            try:
                tokens = shlex.split(text, comments=True)
            except ValueError:
                continue
            for i, token in enumerate(tokens):
                env_only = all("=" in t for t in tokens[:i])
                if token == "inspectc" and (env_only or tokens[i - 1] == "-m"):
                    args = tokens[i + 1 :]
                    cut = next((j for j, a in enumerate(args) if a in _STOP), len(args))
                    commands.append(args[:cut])
                    break
    return commands


def check_command(args: list[str]) -> None:
    """Parse *args* as ``inspectc`` would, without running it; raise AssertionError if invalid."""
    out = io.StringIO()
    try:
        with contextlib.redirect_stderr(out), contextlib.redirect_stdout(io.StringIO()):
            if args[:1] == ["run"]:
                own, rest = split_run_argv(args[1:])
                opts = _run_parser().parse_args(own)
                assert rest or opts.module, "inspectc run needs a script or -m module"
            elif args[:1] == ["accuracy"]:
                own, rest = accuracy.split_argv(args[1:])
                opts = accuracy.accuracy_parser().parse_args(own)
                assert rest or opts.module, "inspectc accuracy needs a script or -m module"
            else:
                parsed = build_parser().parse_args(args)
                assert getattr(parsed, "func", None), "no subcommand"
    except SystemExit as exc:  # argparse: --help/--version exit 0, a bad option exits 2
        assert exc.code == 0, f"inspectc {shlex.join(args)}: {out.getvalue().strip()}"


def test_readme_has_python_blocks_and_commands() -> None:
    assert len(_python_blocks()) >= 3
    assert len(command_lines()) >= 40


@pytest.mark.parametrize("code", _python_blocks())
def test_readme_python_block_runs(code: str, tmp_path: Path) -> None:
    if "import torch" in code:
        pytest.importorskip("torch")
    if "render(" in code and shutil.which("dot") is None:
        pytest.skip("Graphviz dot is not installed")
    shutil.copy(REPORTS / "mlp_train.inspectc", tmp_path / "run.inspectc")
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, f"README block failed:\n{code}\n{proc.stderr[-3000:]}"
    if "render(" in code:
        assert all(p.stat().st_size > 0 for p in tmp_path.glob("*.svg")) and list(tmp_path.glob("*.svg"))


def test_readme_command_lines_parse() -> None:
    bad = []
    for args in command_lines():
        try:
            check_command(args)
        except (AssertionError, Exception) as exc:  # noqa: BLE001 - each line's own failure is reported
            bad.append(f"inspectc {shlex.join(args)}: {exc}")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize(
    "args",
    [
        ["summray", "r.inspectc"],
        ["graph", "r.inspectc", "--no-such-flag"],
        ["run", "--bogus", "x.py"],
        ["run"],
    ],
)
def test_a_wrong_command_line_is_caught(args: list[str]) -> None:
    with pytest.raises(Exception):  # noqa: B017, PT011 - argparse's exit or inspectc's UsageError
        check_command(args)
