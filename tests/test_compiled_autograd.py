"""Compiled autograd's compiles (``!N/F/C`` ids): kernels counted per compile id as the raw
log defines them, and, under ``inspectc run``, their measured times joined to those kernels
(issue 27 item 8).

The committed log ``tests/data/logs/compiled_autograd/trace.log`` is
``samples/compiled_autograd.py`` under ``TORCH_TRACE`` (torch 2.13 CPU); every count is
compared with ``tests/rawcount.py``, which reads the raw records apart from inspectc.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
import rawcount
from conftest import ROOT, Captures, run_cli

from inspectc.capture.importer import import_logs
from inspectc.model import CompileId
from inspectc.store.open import open_report
from inspectc.store.reader import Report

LOG = ROOT / "tests" / "data" / "logs" / "compiled_autograd" / "trace.log"


def generated_by_id(report: Report) -> dict[str, int]:
    """Generated (non-extern) kernels per compile id, as rawcount counts them."""
    out: Counter[str] = Counter()
    for kernel in report.kernels:
        out[str(kernel.compile_id)] += kernel.language != "extern"
    return {cid: n for cid, n in out.items() if n}


def _check_counts(log: Path, report: Report) -> None:
    raw = rawcount.summary(log)
    by_id = rawcount.kernels_by_compile(log)
    assert any(cid.startswith("!") for cid in by_id), by_id  # compiled autograd compiled kernels
    assert generated_by_id(report) == {cid: n for cid, n in by_id.items() if n}
    assert sum(1 for f in report.frames if f.compile_id.frame is not None) == raw["dynamo_starts"]
    seconds = sum(f.metrics.entire_frame_s or 0.0 for f in report.frames)
    assert raw["compile_time_s"] > 0 and abs(seconds - raw["compile_time_s"]) <= 0.05 * raw["compile_time_s"]


def test_committed_compiled_autograd_log_counts_per_compile_id(tmp_path: Path) -> None:
    out = tmp_path / "ca.inspectc"
    import_logs(LOG, out)
    with open_report(out) as report:
        _check_counts(LOG, report)
        assert report.frame(CompileId.parse("!0/1/0")) is not None
    data = json.loads(run_cli("export", str(out), "--json", check=True).stdout)
    phases = {(f["compile_id"], k["phase"]) for f in data["frames"] for k in f["kernels"]}
    assert phases == {("0/0", "forward"), ("!0/1/0", "backward")}  # compiled autograd's graph is the backward


@pytest.mark.capture
def test_compiled_autograd_kernel_times_join_their_kernels(captures: Captures, tmp_path: Path) -> None:
    run = captures.get("compiled_autograd.py", "--steps", "3", cache="compiled-autograd")
    with open_report(run.report) as report:
        autograd = [
            f
            for f in report.frames
            if f.compile_id.autograd is not None and report.frame_kernels(f.compile_id)
        ]
        assert autograd, [f.compile_id for f in report.frames]
        for frame in autograd:  # every kernel of the backward graph got its measured calls
            kernels = report.frame_kernels(frame.compile_id)
            assert all(k.time is not None and k.time.calls >= 1 for k in kernels), frame.compile_id
            assert frame.timing is not None and frame.timing.attributed_us
        assert report.account.kept_raw.get("inspectc_kernel_times", 0) == 0
    (log,) = sorted(run.trace_dir.glob("*.log"))  # the same run's TORCH_TRACE, imported
    out = tmp_path / "imported.inspectc"
    import_logs(log, out)
    with open_report(out) as report:
        _check_counts(log, report)
