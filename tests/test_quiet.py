"""`inspectc run -q` adds nothing to the user's stderr (issue 16): real subprocesses, byte for byte.

The sample writes to stderr through sys.stderr, through fd 2 and through the warnings module,
between compiled calls during which capture's profiler windows open and close.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SAMPLES, inspectc_cmd

from inspectc.capture.quiet import is_kineto_line
from inspectc.store.open import open_report

pytestmark = pytest.mark.capture

SAMPLE = SAMPLES / "stderr_chatter.py"


def test_run_quiet_writes_to_stderr_exactly_what_python_writes(tmp_path: Path) -> None:
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(tmp_path / "cache"))
    plain = subprocess.run(
        [sys.executable, str(SAMPLE)], cwd=tmp_path, env=env, capture_output=True, timeout=300, check=True
    )
    report = tmp_path / "r.inspectc"
    proc = subprocess.run(
        [*inspectc_cmd(), "run", "-q", "-o", str(report), str(SAMPLE)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert b"fd2: raw write after call 5" in plain.stderr  # the sample did write to fd 2
    assert b"own warning" in plain.stderr
    assert proc.stderr == plain.stderr  # byte for byte
    assert proc.stdout == plain.stdout
    with open_report(report) as r:  # and the windows did run: the frames were timed
        assert r.run.options.timings is True
        assert any(f.timing is not None for f in r.frames)


@pytest.mark.parametrize(
    ("line", "kineto"),
    [
        (b"USDT:2026-12-03 17:54:03 10587:10587 SyncActivityProfilerHandler.cpp:52] profiler_start\n", True),
        (b"USDT:2026-12-03 17:54:04 10587:10587 SyncActivityProfilerHandler.cpp:59] profiler_stop\n", True),
        (b"stderr: after call 1\n", False),
        (b"USDT: a user line that names no .cpp source\n", False),
    ],
)
def test_only_kinetos_lines_are_dropped(line: bytes, kineto: bool) -> None:
    assert is_kineto_line(line) is kineto
