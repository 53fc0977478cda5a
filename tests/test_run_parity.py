"""`inspectc run script.py` behaves as `python script.py` (found by a held-out sweep): the script
sees an absolute ``__file__`` when given a relative path, its own ``sys.excepthook`` shows its
uncaught exception, a KeyboardInterrupt traceback starts in the script, and what a non-daemon
thread compiles after the script's last line is in the report, as torch's own trace has it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import run_cli, torch_older_than

from inspectc.store.open import open_report

pytestmark = [pytest.mark.capture, pytest.mark.timeout(300)]

ENV = {"TORCHINDUCTOR_COMPILE_THREADS": "1"}


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


def both(tmp_path: Path, script: str, name: str) -> tuple[subprocess.CompletedProcess[str], ...]:
    """The script run by python and by inspectc, from *tmp_path*, by the relative path *name*."""
    write(tmp_path / name, script)
    env = {**os.environ, **ENV}
    plain = subprocess.run(
        [sys.executable, name], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=200
    )
    captured = run_cli("run", "-q", "-o", "r.inspectc", name, cwd=tmp_path, env=ENV, timeout=200)
    return plain, captured


def test_a_relative_script_sees_its_absolute_file_after_a_chdir(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "data.txt").write_text("beside the script")
    script = """
        import inspect, os
        def f():
            return 1
        os.chdir("/")
        print("FILE", __file__)
        print("DATA", open(os.path.join(os.path.dirname(__file__), "data.txt")).read())
        print("SOURCE", inspect.getsource(f).splitlines()[0])
    """
    plain, captured = both(tmp_path, script, "sub/s.py")
    assert plain.returncode == 0, plain.stderr
    assert captured.returncode == 0, captured.stderr
    assert captured.stdout == plain.stdout
    assert f"FILE {tmp_path / 'sub' / 's.py'}" in captured.stdout


def test_builtins_is_the_module_as_python_gives_it_for_a_script_and_for_dash_m(tmp_path: Path) -> None:
    script = """
        import builtins
        __builtins__.print("same", __builtins__ is builtins)
    """
    plain, captured = both(tmp_path, script, "b.py")
    assert plain.returncode == 0 and plain.stdout == "same True\n", plain.stderr
    assert captured.returncode == 0, captured.stderr
    assert captured.stdout == plain.stdout
    write(tmp_path / "pkg" / "__init__.py", "")
    write(tmp_path / "pkg" / "m.py", script)
    as_module = run_cli("run", "-q", "-o", "m.inspectc", "-m", "pkg.m", cwd=tmp_path, env=ENV, timeout=200)
    assert as_module.returncode == 0, as_module.stderr
    assert as_module.stdout == plain.stdout


def test_the_scripts_excepthook_shows_its_exception(tmp_path: Path) -> None:
    script = """
        import sys
        sys.excepthook = lambda t, v, tb: sys.stderr.write(f"CUSTOM HOOK: {t.__name__}: {v}\\n")
        raise RuntimeError("boom")
    """
    plain, captured = both(tmp_path, script, "hook.py")
    assert plain.returncode == captured.returncode == 1
    assert "CUSTOM HOOK: RuntimeError: boom" in plain.stderr
    assert "CUSTOM HOOK: RuntimeError: boom" in captured.stderr, captured.stderr
    assert "Traceback" not in captured.stderr


def test_a_keyboard_interrupt_traceback_starts_in_the_script(tmp_path: Path) -> None:
    plain, captured = both(tmp_path, "raise KeyboardInterrupt\n", "kb.py")
    assert plain.returncode == captured.returncode == 130 or captured.returncode < 0
    assert 'kb.py", line 1' in captured.stderr
    assert "inspectc" not in captured.stderr.split("Traceback", 1)[1].split("KeyboardInterrupt")[0]


def test_what_a_thread_compiles_after_the_last_line_is_recorded(tmp_path: Path) -> None:
    script = """
        import threading, time, torch
        def late(x):
            y = x.exp() * 2
            torch._dynamo.graph_break()
            return y - 1
        def worker():
            time.sleep(1)
            torch.compile(late, backend="eager")(torch.randn(8))
        threading.Thread(target=worker).start()  # non-daemon: Python waits for it at exit
        print("main done")
    """
    write(tmp_path / "late.py", script)
    trace = tmp_path / "trace"
    plain = subprocess.run(
        [sys.executable, "late.py"],
        cwd=tmp_path,
        env={**os.environ, **ENV, "TORCH_TRACE": str(trace)},
        capture_output=True,
        text=True,
        timeout=200,
    )
    assert plain.returncode == 0, plain.stderr
    # torch's own count: one dynamo_start per compiled frame (the function, then its resume)
    started = sum(log.read_text().count('"dynamo_start"') for log in trace.glob("*.log"))
    assert started == 2
    captured = run_cli("run", "-q", "-o", "r.inspectc", "late.py", cwd=tmp_path, env=ENV, timeout=200)
    assert captured.returncode == 0, captured.stderr
    with open_report(tmp_path / "r.inspectc") as report:
        assert len(report.frames) == started
        assert [len(f.graph_breaks) for f in report.frames] == [1, 0]
        assert report.run.exit_code == 0


@pytest.mark.skipif(
    torch_older_than("2.12"),
    reason="torch 2.11 segfaults on this script under plain python too (a compile on a second"
    " thread, then one on the main thread: rc 139 with a warm Inductor cache)",
)
def test_kernels_say_why_a_frame_called_only_on_another_thread_has_no_times(tmp_path: Path) -> None:
    script = """
        import threading, torch
        f = torch.compile(lambda x: (x * x).sum() + 1)
        g = torch.compile(lambda x: (x - 3).abs().sum())
        t = threading.Thread(target=lambda: [f(torch.randn(50)) for _ in range(4)])
        t.start(); t.join()
        for _ in range(4):
            g(torch.randn(50))
    """
    write(tmp_path / "threads.py", script)
    captured = run_cli("run", "-q", "-o", "r.inspectc", "threads.py", cwd=tmp_path, env=ENV, timeout=200)
    assert captured.returncode == 0, captured.stderr
    shown = run_cli("kernels", str(tmp_path / "r.inspectc"), check=True).stdout
    assert "2 kernels, 1 timed" in shown, shown
    assert "only calls on the thread that started capture are timed" in shown, shown
