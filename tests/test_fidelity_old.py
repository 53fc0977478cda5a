"""Logs in the record shapes older torch wrote import faithfully (issue 27).

The logs are small synthetic ones in ``tests/data/logs/old`` (``tests/data/make_old_logs.py``
writes them; its docstrings say which torch wrote each shape). Every figure is compared with
``tests/rawcount.py``, which reads the raw records apart from inspectc.
"""

from __future__ import annotations

import collections
import re
from pathlib import Path

import rawcount
from conftest import ROOT

from inspectc.capture.importer import import_logs
from inspectc.model import CompileId
from inspectc.render.terminal import render_summary
from inspectc.store.open import open_report
from inspectc.store.reader import Report

OLD = ROOT / "tests" / "data" / "logs" / "old"


def imported(log: Path, tmp_path: Path) -> Report:
    tmp_path.mkdir(parents=True, exist_ok=True)
    out = tmp_path / (log.parent.name + ".inspectc")
    import_logs(log, out)
    return open_report(out)


def headline(report: Report) -> str:
    return render_summary(report).splitlines()[0]


# -- item 2: compile time from older metrics fields ---------------------------------------------
def test_compile_time_from_cumulative_us_fields(tmp_path: Path) -> None:
    log = OLD / "old_metrics" / "trace.log"
    raw = rawcount.summary(log)
    assert raw["compile_time_s"] > 0.15
    with imported(log, tmp_path) as report:
        got = sum(f.metrics.entire_frame_s or 0.0 for f in report.frames)
        assert abs(got - raw["compile_time_s"]) <= 0.05 * raw["compile_time_s"]
        assert all(f.metrics.backend_s and f.metrics.inductor_s for f in report.frames)
        seconds = re.search(r"([\d.]+)s compiling", headline(report))
        assert seconds and float(seconds.group(1)) > 0


# -- item 1: AOTInductor on CUDA -----------------------------------------------------------------
def test_aoti_cuda_triton_kernels_are_counted(tmp_path: Path) -> None:
    log = OLD / "aoti_cuda" / "trace.log"
    raw = rawcount.summary(log)
    assert raw["aot_triton_kernels"] == 3
    with imported(log, tmp_path) as report:
        (aot,) = report.run_records.aot_compiles
        triton = [k.kernel for k in aot.kernels if k.kernel.language == "triton"]
        assert len({k.name for k in triton}) == raw["aot_triton_kernels"]
        assert all(k.kind == "pointwise" and k.meta.get("device") == "cuda" for k in triton)
        assert [k.kernel.name for k in aot.kernels if k.kernel.language == "extern"] == [
            "aoti_torch_cuda_mm_out"
        ]
        found = re.search(r" (\d+) kernels[ ,]", headline(report))
        assert found and int(found.group(1)) == len(aot.kernels) == 4


# -- item 7: export.log's guards without draft export's prefix are no issue ----------------------
def test_export_issues_are_draft_export_findings_only(traces_dir: Path, tmp_path: Path) -> None:
    for log in (traces_dir / "export.log", ROOT / "tests" / "data" / "logs" / "draft_export" / "dtrace.log"):
        raw = rawcount.summary(log)
        with imported(log, tmp_path / log.parent.name) as report:
            records = report.run_records
            issues = list(records.export_issues) + [i for p in records.exported_programs for i in p.issues]
            assert len(issues) == raw["export_issues"], log
    assert rawcount.summary(traces_dir / "export.log")["export_issues"] == 1  # as tlparse counts


# -- item 3: April-2024 breaks placed by their resume functions ----------------------------------
def test_restart_reason_breaks_sit_where_dynamo_resumed(tmp_path: Path) -> None:
    log = OLD / "april_2024" / "trace.log"
    raw = rawcount.summary(log)
    assert raw["graph_breaks"] == 0 and raw["restart_breaks"] == 3
    with imported(log, tmp_path) as report:
        got = [gb for f in report.frames for gb in f.graph_breaks]
        assert len(got) == raw["restart_breaks"]
        assert sorted(f"{gb.filename}:{gb.line}" for gb in got) == raw["resume_sites"]
        assert not any("eval_frame" in (gb.filename or "") for gb in got)


# -- item 8: a compile id without its dynamo_start gets its frame's name -------------------------
def test_compile_id_without_dynamo_start_is_named(tmp_path: Path) -> None:
    log = OLD / "recompile_limit" / "trace.log"
    raw = rawcount.summary(log)
    assert raw["attempts"] == 3 and raw["dynamo_starts"] == 2 and raw["recompiles"] == 1
    with imported(log, tmp_path) as report:
        assert len(report.frames) == raw["attempts"]
        orphan = report.frame(CompileId.parse("0/2"))
        assert orphan is not None and orphan.function == "step" and orphan.line == 7
        assert sum(len(f.recompiles) for f in report.frames) == raw["recompiles"]


# -- tlparse's own inputs of those torch versions (tests/data/logs/older, unmodified) ----------
OLDER = ROOT / "tests" / "data" / "logs" / "older"


def test_real_april_2024_log_breaks_and_compile_time(tmp_path: Path) -> None:
    """tlparse's comp_metrics.log: breaks only as restart reasons, placed by the resume functions."""
    log = OLDER / "april2024_restarts.log"
    raw = rawcount.summary(log)
    with imported(log, tmp_path) as report:
        assert len(report.frames) == raw["dynamo_starts"] == 3
        got = [gb for f in report.frames for gb in f.graph_breaks]
        assert len(got) == raw["restart_breaks"] == 2
        assert sorted(f"{gb.filename}:{gb.line}" for gb in got) == raw["resume_sites"]
        seconds = sum(f.metrics.entire_frame_s or 0.0 for f in report.frames)
        assert (
            raw["compile_time_s"] > 0 and abs(seconds - raw["compile_time_s"]) <= 0.05 * raw["compile_time_s"]
        )
        assert "eval_frame.py" not in render_summary(report)


def test_real_aoti_cuda_log_counts_its_triton_kernels(tmp_path: Path) -> None:
    """tlparse's inductor_provenance_aot_cuda_log.txt: 3 Triton kernels in the wrapper's comments."""
    log = OLDER / "aot_cuda.log"
    raw = rawcount.summary(log)
    with imported(log, tmp_path) as report:
        (aot,) = report.run_records.aot_compiles
        triton = {k.kernel.name for k in aot.kernels if k.kernel.language == "triton"}
        assert len(triton) == raw["aot_triton_kernels"] == 3
        found = re.search(r" (\d+) kernels[ ,]", headline(report))
        assert found and int(found.group(1)) == len(aot.kernels) > 0  # never "0 kernels"
        assert report.account.kept_raw == {}  # its after_post_grad_graph is the AOT compile's


def test_real_export_guard_added_log_has_one_issue(tmp_path: Path) -> None:
    log = OLDER / "export_guard_added.log"
    raw = rawcount.summary(log)
    with imported(log, tmp_path) as report:
        records = report.run_records
        issues = list(records.export_issues) + [i for p in records.exported_programs for i in p.issues]
        assert len(issues) == raw["export_issues"] == 1


def test_tlparse_schedule_folder_and_one_of_its_files_import(tmp_path: Path) -> None:
    """tlparse's multi_rank_schedule: rank_1 and rank_2 are renamed copies whose records say
    rank 0: imported under their names with one warning each, counts per rank as the raw logs."""
    folder = ROOT / "tests" / "data" / "logs" / "ranks_schedule"
    logs = sorted(folder.glob("*.log"))
    out = tmp_path / "all.inspectc"
    import_logs(folder, out)
    with open_report(out) as report:
        for rank, log in enumerate(logs):
            raw = rawcount.summary(log)
            frames = [f for f in report.frames if f.rank == rank]
            assert len(frames) == raw["dynamo_starts"]
            kernels = [k for k in report.kernels if k.rank == rank and k.language != "extern"]
            assert len(kernels) == raw["kernels"]
            by_id = collections.Counter(str(k.compile_id) for k in kernels)
            assert dict(by_id) == rawcount.kernels_by_compile(log)
            seconds = sum(f.metrics.entire_frame_s or 0.0 for f in frames)
            assert abs(seconds - raw["compile_time_s"]) <= 0.05 * raw["compile_time_s"]
    with imported(logs[2], tmp_path / "alone") as alone:  # name and records disagree: read anyway
        assert len(alone.frames) == rawcount.summary(logs[2])["dynamo_starts"]
