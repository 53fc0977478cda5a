"""Bounded reads of what a user hands inspectc: the script given to ``run`` (a regular file of
sane size, never a FIFO or a device) and TORCH_TRACE logs, plain or gzipped (a line, and all
lines together, have a ceiling; a file of nothing but newlines is no log). Each case runs the
CLI in a subprocess under a timeout; the answer is one line on stderr and exit 2."""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import pytest
from conftest import run_cli

RECORD = b'V1204 10:00:00.000000 1 torch/_dynamo/convert_frame.py:1] {"str": ["x", 0]}\n'


def _one_line(proc) -> str:
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    return lines[0]


@pytest.mark.timeout(120)
def test_a_fifo_or_device_as_the_script_is_one_line(tmp_path: Path) -> None:
    fifo = tmp_path / "script.py"
    os.mkfifo(fifo)
    for script in (fifo, Path("/dev/zero")):
        line = _one_line(
            run_cli("run", "-o", str(tmp_path / "r.inspectc"), str(script), cwd=tmp_path, timeout=60)
        )
        assert "not a regular file" in line
    assert not (tmp_path / "r.inspectc").exists()


@pytest.mark.timeout(120)
def test_a_huge_script_is_refused_before_it_is_read(tmp_path: Path) -> None:
    big = tmp_path / "big.py"
    with open(big, "wb") as fh:
        fh.truncate(100 << 20)  # sparse: 100 MB on paper, nothing on disk
    line = _one_line(run_cli("run", "-o", str(tmp_path / "r.inspectc"), str(big), cwd=tmp_path, timeout=60))
    assert "100 MB is more than a script" in line and "INSPECTC_MAX_SCRIPT_MB" in line


@pytest.mark.timeout(120)
def test_a_gz_of_newlines_is_no_log(tmp_path: Path) -> None:
    log = tmp_path / "nl.log.gz"
    with gzip.open(log, "wb") as fh:
        for _ in range(2):
            fh.write(b"\n" * (1 << 20))
    line = _one_line(
        run_cli("import", str(log), "-o", str(tmp_path / "r.inspectc"), cwd=tmp_path, timeout=60)
    )
    assert "empty lines" in line


@pytest.mark.timeout(120)
def test_an_overlong_gz_line_is_skipped_and_said(tmp_path: Path) -> None:
    log = tmp_path / "long.log.gz"
    with gzip.open(log, "wb") as fh:
        fh.write(RECORD)
        fh.write(b"A" * (5 << 20) + b"\n")  # inflates past the (lowered) line ceiling
        fh.write(RECORD)
    proc = run_cli(
        "import",
        str(log),
        "-o",
        str(tmp_path / "r.inspectc"),
        cwd=tmp_path,
        env={"INSPECTC_MAX_LOG_LINE_MB": "1"},
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "line longer than 1 MB" in proc.stdout + proc.stderr


@pytest.mark.timeout(120)
def test_a_log_past_the_total_ceiling_is_one_line(tmp_path: Path) -> None:
    log = tmp_path / "big.log"
    log.write_bytes(RECORD * 30_000)  # ~2.3 MB of records
    proc = run_cli(
        "import",
        str(log),
        "-o",
        str(tmp_path / "r.inspectc"),
        cwd=tmp_path,
        env={"INSPECTC_MAX_LOG_MB": "1"},
        timeout=60,
    )
    assert "more than 1 MB of text" in _one_line(proc)


GOLDEN_REPORT = Path(__file__).resolve().parent.parent / "samples" / "reports" / "sin_sin.inspectc"


@pytest.mark.timeout(120)
def test_share_replaces_only_its_own_earlier_outputs(tmp_path: Path) -> None:
    out = tmp_path / "out"
    first = run_cli("share", str(GOLDEN_REPORT), "--html", "-o", str(out), timeout=60)
    assert first.returncode == 0, first.stderr
    again = run_cli("share", str(GOLDEN_REPORT), "--html", "-o", str(out), timeout=60)
    assert again.returncode == 0, again.stderr  # share's own outputs: replaced by a new share

    for name in ("sin_sin.share.md", "sin_sin.share.zip", "sin_sin.share.html"):
        mine = out / name
        mine.unlink()
        mine.write_text("the user's own notes\n")
        line = _one_line(run_cli("share", str(GOLDEN_REPORT), "--html", "-o", str(out), timeout=60))
        assert name in line and "not an earlier output of inspectc share" in line
        assert mine.read_text() == "the user's own notes\n"
        mine.unlink()
        assert run_cli("share", str(GOLDEN_REPORT), "--html", "-o", str(out), timeout=60).returncode == 0


@pytest.mark.timeout(120)
def test_sigterm_during_share_leaves_no_unredacted_copy(tmp_path: Path) -> None:
    import signal
    import subprocess
    import tempfile
    import time

    from conftest import inspectc_cmd

    tmp_root = tmp_path / "tmp"
    tmp_root.mkdir()
    env = {**os.environ, "TMPDIR": str(tmp_root)}
    proc = subprocess.Popen(
        [*inspectc_cmd(), "share", str(GOLDEN_REPORT), "-o", str(tmp_path / "out")],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while not list(tmp_root.glob("inspectc-share-*")) and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.005)
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=30)
    assert not list(tmp_root.glob("inspectc-share-*")), "the private copy outlived SIGTERM"
    assert tempfile.gettempdir()  # (the test's own TMPDIR is untouched)


def test_tui_export_never_writes_through_a_link_or_over_a_file(tmp_path: Path) -> None:
    from inspectc_tui.actions import export_graph

    from inspectc.report.open import open_report

    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    out = tmp_path / "out"
    out.mkdir()
    with open_report(GOLDEN_REPORT) as report:
        cid = report.frames[0].compile_id
        stem = f"sin_sin-{cid.replace('/', '_')}"
        written = export_graph(report, cid, None, out)
        (out / written[0].name).unlink()
        (out / written[0].name).symlink_to(victim)  # a link planted at the export's own name
        again = export_graph(report, cid, None, out)
    assert victim.read_text() == "keep me"
    assert all(not p.is_symlink() for p in again) and again[0] != written[0]
    assert again[0].name.startswith(stem.split("-")[0])
