"""`inspectc run` behaves like `python script.py`: argv, __main__, sys.path[0], exit codes.

And bad input gets one clear line on stderr with a non-zero exit, never a traceback.
"""

from __future__ import annotations

import json
import sqlite3
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import run_cli

from inspectc.store.open import open_report

pytestmark = pytest.mark.capture

SCRIPT = textwrap.dedent(
    """
    import json, sys, os
    import torch

    def f(x):
        return torch.cos(x) * 2

    out = torch.compile(f)(torch.ones(4))
    print(json.dumps({"argv": sys.argv, "name": __name__, "path0": sys.path[0],
                      "file": __file__, "sum": float(out.sum())}))
    mode = sys.argv[1] if len(sys.argv) > 1 else "ok"
    if mode == "exit3":
        sys.exit(3)
    if mode == "raise":
        raise ValueError("boom from the script")
    """
)


@pytest.fixture(scope="module")
def script(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("script")
    path = folder / "prog.py"
    path.write_text(SCRIPT)
    return path


def run_prog(script: Path, *args: str, cwd: Path) -> tuple[int, dict, str, Path]:
    report = cwd / f"prog-{'-'.join(args) or 'ok'}.inspectc"
    proc = run_cli("run", "-q", "-o", str(report), str(script), *args, cwd=cwd)
    first = proc.stdout.splitlines()[0] if proc.stdout else "{}"
    return proc.returncode, json.loads(first), proc.stderr, report


def test_script_sees_what_python_gives_it(script: Path, tmp_path: Path) -> None:
    code, seen, err, report = run_prog(script, "ok", "--flag", cwd=tmp_path)
    assert code == 0, err
    assert seen["argv"] == [str(script), "ok", "--flag"]
    assert seen["name"] == "__main__"
    assert seen["path0"] == str(script.parent)
    assert seen["sum"] == pytest.approx(4 * 2 * 0.5403023, rel=1e-5)
    with open_report(report) as r:
        assert r.run.exit_code == 0 and r.run.end_reason == "exit"
        assert r.run.argv[-3:] == (str(script), "ok", "--flag")
        assert r.run.torch_version and r.run.python_version
        assert len(r.frames) == 1 and r.frames[0].function == "f"


def test_exit_code_is_the_scripts(script: Path, tmp_path: Path) -> None:
    code, _, err, report = run_prog(script, "exit3", cwd=tmp_path)
    assert code == 3, err
    with open_report(report) as r:
        assert r.run.exit_code == 3
        assert len(r.frames) == 1


def test_uncaught_exception_prints_the_scripts_traceback(script: Path, tmp_path: Path) -> None:
    code, _, err, report = run_prog(script, "raise", cwd=tmp_path)
    assert code == 1
    assert "Traceback (most recent call last)" in err
    assert "ValueError: boom from the script" in err
    assert 'prog.py", line' in err
    assert "inspectc/runner.py" not in err and "inspectc/cli.py" not in err
    with open_report(report) as r:
        assert r.run.end_reason == "exception" and "boom" in (r.run.exception or "")
        assert r.frames  # what was captured before the exception is kept


def test_module_mode(tmp_path: Path) -> None:
    (tmp_path / "mymod.py").write_text("import sys\nprint(sys.argv[1:])\nsys.exit(5)\n")
    proc = run_cli("run", "-q", "-m", "mymod", "--epochs", "1", cwd=tmp_path)
    assert proc.returncode == 5, proc.stderr
    assert proc.stdout.strip() == "['--epochs', '1']"
    assert (tmp_path / "mymod.inspectc").exists()


def test_default_report_path_is_the_script_stem_in_cwd(script: Path, tmp_path: Path) -> None:
    proc = run_cli("run", str(script), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "prog.inspectc").exists()
    assert "prog.inspectc" in proc.stderr and "inspectc tui" in proc.stderr


def test_python_api_capture(tmp_path: Path) -> None:
    code = textwrap.dedent(
        f"""
        import torch, inspectc
        with inspectc.capture({str(tmp_path / "api.inspectc")!r}):
            torch.compile(lambda x: x.sin() + 1)(torch.ones(3))
        print("after")
        """
    )
    (tmp_path / "nb.py").write_text(code)
    import subprocess

    proc = subprocess.run([sys.executable, str(tmp_path / "nb.py")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    with open_report(tmp_path / "api.inspectc") as r:
        assert r.run.mode == "api" and r.run.exit_code == 0
        assert len(r.frames) == 1 and r.frames[0].kernel_count >= 1


# -- bad input: one line on stderr, non-zero exit, no traceback ----------------------------


def one_clear_line(proc) -> str:  # noqa: ANN001
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, proc.stderr
    return lines[0]


def test_missing_script(tmp_path: Path) -> None:
    line = one_clear_line(run_cli("run", str(tmp_path / "nope.py"), cwd=tmp_path))
    assert "nope.py" in line and "no such file" in line


def test_syntax_error_in_script(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("x = 1\ndef broken(:\n    pass\n")
    line = one_clear_line(run_cli("run", str(bad), cwd=tmp_path))
    assert "syntax error" in line and "bad.py:2" in line
    assert not (tmp_path / "bad.inspectc").exists()


@pytest.mark.parametrize(
    "content,expect",
    [
        (b"", "empty"),
        (b"hello, not a report\n", "not an inspectc report"),
        (b'{"schema_version": 1}', "not an inspectc report"),
    ],
)
def test_not_a_report(tmp_path: Path, content: bytes, expect: str) -> None:
    path = tmp_path / "x.inspectc"
    path.write_bytes(content)
    for command in ("summary", "export"):
        line = one_clear_line(run_cli(command, str(path)))
        assert expect in line


def test_missing_report(tmp_path: Path) -> None:
    line = one_clear_line(run_cli("summary", str(tmp_path / "gone.inspectc")))
    assert "no such report" in line


def test_other_sqlite_and_newer_schema(tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE t(x)")
    assert "not an inspectc report" in one_clear_line(run_cli("summary", str(other)))
    newer = tmp_path / "newer.inspectc"
    with sqlite3.connect(newer) as db:
        db.execute("CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT)")
        db.execute("INSERT INTO meta VALUES ('format', 'inspectc-report'), ('schema_version', '999')")
    line = one_clear_line(run_cli("summary", str(newer)))
    assert "schema 999" in line and "upgrade" in line


def test_truncated_report(script: Path, tmp_path: Path) -> None:
    _, _, _, report = run_prog(script, "ok", cwd=tmp_path)
    data = report.read_bytes()
    cut = tmp_path / "cut.inspectc"
    cut.write_bytes(data[: len(data) // 3])
    proc = run_cli("export", str(cut), "--json")
    one_clear_line(proc)
