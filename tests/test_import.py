"""inspectc import: real TORCH_TRACE logs of other torch versions (../shared/traces), broken
input, multi-rank directories, and a live capture imported from its own TORCH_TRACE log."""

from __future__ import annotations

import gzip
import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from conftest import CapturedRun, Captures, run_cli

from inspectc.store.open import open_report
from inspectc.trace.records import parse_file


def import_ok(source: Path, out: Path) -> str:
    proc = run_cli("import", str(source), "-o", str(out), check=True)
    assert proc.stdout == ""
    return proc.stderr


def meta(path: Path, key: str) -> Any:
    with sqlite3.connect(path) as db:
        (value,) = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return value


@pytest.mark.parametrize(
    "name, frames, kernels",
    [
        ("simple.log", 1, 4),
        ("comp_failure.log", 1, 0),
        ("cache_hit_miss.log", 6, 3),  # 0/0 and 1/0, three compiles each (reset between)
        ("artifacts.log", 1, 0),
        ("export.log", 0, 0),
        ("inductor_provenance_jit_log.txt", 1, 4),
        ("inductor_provenance_jit_cuda_log.txt", 1, 5),
    ],
)
def test_shared_logs_import(traces_dir: Path, tmp_path: Path, name: str, frames: int, kernels: int) -> None:
    out = tmp_path / "r.inspectc"
    stderr = import_ok(traces_dir / name, out)
    assert "inspectc import: 1 log" in stderr
    records, _ = parse_file(traces_dir / name)
    with open_report(out) as report:
        assert len(report.frames) == frames
        assert sum(f.kernel_count for f in report.frames) == kernels
        assert report.event_count() == len(records)  # every record kept, known or not
        assert report.run.mode == "import"
        assert report.run.end_reason == "imported"
    assert meta(out, "source") == "import"


def test_failed_compile_and_cache_status(traces_dir: Path, tmp_path: Path) -> None:
    import_ok(traces_dir / "comp_failure.log", tmp_path / "f.inspectc")
    import_ok(traces_dir / "simple.log", tmp_path / "s.inspectc")
    with open_report(tmp_path / "f.inspectc") as report:
        (frame,) = report.frames
        assert frame.status == "failed"
        assert frame.failure is not None and frame.failure.fail_type == "BackendCompilerFailed"
    with open_report(tmp_path / "s.inspectc") as report:
        (frame,) = report.frames
        assert frame.cache["fx_graph"] == "miss"
        assert {"dynamo", "aot_inference", "post_grad", "output_code"} <= set(frame.graph_kinds)
        assert all(report.kernel_source(k) for k in report.kernels)


def test_altered_payload_is_counted_not_fatal(traces_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "c.inspectc"
    stderr = import_ok(traces_dir / "simple_corrupted_json.log", out)
    assert "problem line" not in stderr and "skipped" not in stderr
    assert "1 payload whose md5 differs" in stderr and "kept as read" in stderr and "md5 mismatch" in stderr
    errors = json.loads(meta(out, "import_errors"))
    assert (
        errors["count"] == 1
        and errors["md5_mismatches"] == 1
        and "simple_corrupted_json.log:13" in errors["first"][0]
    )
    with open_report(out) as report:
        assert len(report.frames) == 1 and report.frames[0].kernel_count == 4


def test_malformed_lines_are_skipped_and_counted(traces_dir: Path, tmp_path: Path) -> None:
    lines = (traces_dir / "simple.log").read_text().splitlines(keepends=True)
    headers = [i for i, line in enumerate(lines) if line.startswith("V")]
    # between records, so no record's payload is cut short
    lines.insert(
        headers[6], 'V1206 15:18:20.253000 1500233 torch/_logging/structured.py:22] {"str": [broken\n'
    )
    lines.insert(headers[3], "this is not a trace record\n")
    lines.append("\x00\x01 binary junk\n")
    log = tmp_path / "mangled.log"
    log.write_text("".join(lines))
    out = tmp_path / "m.inspectc"
    stderr = import_ok(log, out)
    # simple.log ends without a newline: the junk joins its last payload line (md5 differs, kept)
    assert "2 problem lines" in stderr and "1 payload whose md5 differs" in stderr
    assert json.loads(meta(out, "import_errors"))["count"] == 3
    with open_report(out) as report:
        assert len(report.frames) == 1 and report.frames[0].kernel_count == 4


def test_gzipped_log(traces_dir: Path, tmp_path: Path) -> None:
    log = tmp_path / "simple.log.gz"
    with gzip.open(log, "wb") as fh:
        fh.write((traces_dir / "simple.log").read_bytes())
    import_ok(log, tmp_path / "g.inspectc")
    with open_report(tmp_path / "g.inspectc") as report:
        assert report.frames[0].kernel_count == 4


@pytest.mark.parametrize(
    "content, expect",
    [
        (b"", "no structured-trace records"),
        (b"hello\nworld\n", "no structured-trace records"),
        (bytes(range(256)) * 50, "no structured-trace records"),
    ],
)
def test_not_a_trace_log(tmp_path: Path, content: bytes, expect: str) -> None:
    log = tmp_path / "x.log"
    log.write_bytes(content)
    proc = run_cli("import", str(log), "-o", str(tmp_path / "x.inspectc"))
    assert proc.returncode == 2
    assert expect in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "x.inspectc").exists()


def test_bad_paths(traces_dir: Path, tmp_path: Path) -> None:
    proc = run_cli("import", str(tmp_path / "missing.log"), "-o", str(tmp_path / "r.inspectc"))
    assert proc.returncode == 2 and "no such file" in proc.stderr
    (tmp_path / "empty").mkdir()
    proc = run_cli("import", str(tmp_path / "empty"), "-o", str(tmp_path / "r.inspectc"))
    assert proc.returncode == 2 and "holds no TORCH_TRACE logs" in proc.stderr
    two = tmp_path / "two"
    two.mkdir()
    shutil.copy(traces_dir / "simple.log", two / "a.log")
    shutil.copy(traces_dir / "comp_failure.log", two / "b.log")
    proc = run_cli("import", str(two), "-o", str(tmp_path / "r.inspectc"))
    assert proc.returncode == 2 and "both have no rank" in proc.stderr


def test_multi_rank_directory(traces_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "ranks.inspectc"
    stderr = import_ok(traces_dir / "multi_rank_logs", out)
    assert "4 logs, ranks 0, 1, 2, 3" in stderr
    with open_report(out) as report:
        assert {f.rank for f in report.frames} == {0, 1, 2, 3}
        assert report.run.world_size == 4 and report.run.rank is None
        assert {k.rank for k in report.kernels} <= {0, 1, 2, 3}
    data = json.loads(run_cli("export", str(out), "--no-source", check=True).stdout)
    assert all(isinstance(f["rank"], int) for f in data["frames"])
    kinds = {(d["kind"], d["what"].split("(")[0], tuple(d["ranks_with"])) for d in data["rank_differences"]}
    # ranks 0 and 2 failed in fn(); ranks 1 and 3 compiled kernel() 15 and 7 times
    assert ("frame", "fn", (0, 2)) in kinds
    assert ("frame", "kernel", (1, 3)) in kinds
    summary = run_cli("summary", str(out), check=True).stdout
    assert "Rank differences" in summary and "r3 0/6" in summary


def live_vs_imported(run: CapturedRun, tmp_path: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    imported = tmp_path / "imported.inspectc"
    import_ok(run.trace_dir, imported)
    live = json.loads(run_cli("export", str(run.report), check=True).stdout)
    again = json.loads(run_cli("export", str(imported), check=True).stdout)
    return live, again


def only_compile_facts(data: dict[str, Any]) -> dict[str, Any]:
    """The export less what only a live run knows: run metadata and its ending, the C++ build,
    measured times, and the fused nodes of backward kernels (capture reads them from Inductor;
    a log lacks them)."""
    data = dict(data)
    data.pop("run")
    data.pop("run_end", None)  # how the run ended: an import says "imported"
    data["summary"] = data["summary"]["counts"]  # its facts and kernel times are the live run's alone
    data.pop("cpu_build", None)  # the C++ build (vector ISA, command): read from Inductor at capture
    frames = []
    for f in data["frames"]:
        f = dict(f, region_time_us=None, region_calls=None, timing=None)
        f["kernels"] = [
            dict(k, time=None, **({"fused_nodes": []} if k.get("phase") == "backward" else {}))
            for k in f["kernels"]
        ]
        frames.append(f)
    data["frames"] = frames
    # capture's own records (kernel times, autotuning feedback) are not in the trace log
    account = dict(data["records"])
    own = {k: n for k, n in account["used_by_name"].items() if k.startswith("inspectc_")}
    account["used_by_name"] = {k: n for k, n in account["used_by_name"].items() if k not in own}
    account["records"] -= sum(own.values())
    account["used"] -= sum(own.values())
    data["records"] = account
    # what each break costs is measured in the live run's timing windows (a log has no gaps):
    # the breaks stay, in one order, without their figures
    measured = (
        "measured",
        "cost_us",
        "share_of_call",
        "cheap",
        "waits_on",
        "host_gap",
        "device_idle",
        "call",
    )
    costs = dict(data["costs"])
    costs["breaks"] = sorted(
        ({k: v for k, v in b.items() if k not in measured} for b in costs["breaks"]),
        key=lambda b: (str(b["filename"]), b["line"] or 0, str(b["reason"])),
    )
    data["costs"] = costs
    return data


@pytest.mark.capture
def test_live_capture_and_import_of_its_trace_agree(captures: Captures, tmp_path: Path) -> None:
    run = captures.get("graph_breaks.py", "--size", "64", cache="gb")  # shared with test_capture
    assert run.proc.returncode == 0, run.proc.stderr[-2000:]
    live, imported = live_vs_imported(run, tmp_path)
    assert live["frames"] and live["graph_breaks"]
    assert imported["run"]["mode"] == "import" and live["run"]["mode"] == "script"
    assert imported["torch_version"] == live["torch_version"]
    assert only_compile_facts(imported) == only_compile_facts(live)
