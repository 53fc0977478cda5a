"""Distributed runs: per-rank differences, merging rank reports, opening a directory of them,
and a real 2-rank CPU run (gloo) of a DDP-wrapped compiled model under torchrun."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from conftest import SAMPLES, run_cli

from inspectc.analysis.ranks import DdpSplit, rank_differences
from inspectc.model import CompileId, Frame, GraphBreak, Kernel, Recompile
from inspectc.store.open import open_report


def frame(rank: int, cid: str, **kw: Any) -> Frame:
    return Frame(
        compile_id=CompileId.parse(cid), rank=rank, filename="/w/train.py", line=10, function="forward", **kw
    )


def kernel(rank: int, cid: str, name: str) -> Kernel:
    return Kernel(
        id=0,
        compile_id=CompileId.parse(cid),
        rank=rank,
        name=name,
        language="cpp",
        kind="pointwise",
        source_size=1,
    )


def test_identical_ranks_have_no_differences() -> None:
    frames = [frame(0, "0/0"), frame(1, "0/0")]
    kernels = [kernel(0, "0/0", "cpp_fused_add_0"), kernel(1, "0/0", "cpp_fused_add_0")]
    assert rank_differences(frames, kernels) == []
    assert rank_differences([frame(0, "0/0")]) == []  # one rank: nothing to compare


def test_ranks_that_record_one_file_differently_match() -> None:
    """Rank 0 ran from /home/a/proj (absolute paths), rank 1 from /scratch/proj (relative)."""
    gb = GraphBreak(reason="print()", filename="/home/a/proj/train.py", line=12)
    ours = Frame(
        compile_id=CompileId.parse("0/0"),
        rank=0,
        filename="/home/a/proj/train.py",
        line=10,
        function="forward",
    )
    theirs = Frame(
        compile_id=CompileId.parse("0/0"), rank=1, filename="train.py", line=10, function="forward"
    )
    frames = [
        replace(ours, graph_breaks=(gb,)),
        replace(theirs, graph_breaks=(replace(gb, filename="train.py"),)),
    ]
    cwds = {0: "/home/a/proj", 1: "/scratch/proj"}
    assert rank_differences(frames, cwds=cwds) == []
    kinds = {d.kind for d in rank_differences(frames)}  # without the directories: two files
    assert kinds == {"frame", "graph_break"}


def test_recompile_break_kernel_and_split_differences() -> None:
    gb = GraphBreak(reason="print()", filename="/w/train.py", line=12)
    frames = [
        frame(0, "0/0"),
        frame(1, "0/0", graph_breaks=(gb,), status="graph_break"),
        frame(1, "0/1", recompiles=(Recompile(text="0/0: size mismatch", guard="size mismatch"),)),
    ]
    kernels = [kernel(0, "0/0", "cpp_fused_add_0"), kernel(1, "0/0", "cpp_fused_add_mul_0")]
    splits = [
        DdpSplit(CompileId.parse("0/0", 0), ("submod_0", "submod_1")),
        DdpSplit(CompileId.parse("0/0", 1), ("submod_0",)),
    ]
    diffs = {d.kind: d for d in rank_differences(frames, kernels, splits)}
    assert set(diffs) == {"recompile", "graph_break", "status", "kernels", "ddp_split"}
    rec = diffs["recompile"]
    assert rec.ranks_with == (1,) and rec.ranks_without == (0,)
    assert rec.per_rank["1"] == {"compiles": 2, "reasons": ["size mismatch"]}
    assert diffs["graph_break"].ranks_with == (1,) and "train.py:12" in diffs["graph_break"].what
    assert diffs["kernels"].per_rank == {
        "0": ["output_code:cpp_fused_add_0"],
        "1": ["output_code:cpp_fused_add_mul_0"],
    }
    assert diffs["ddp_split"].per_rank == {"0": 2, "1": 1}


def test_frame_missing_on_a_rank() -> None:
    other = Frame(
        compile_id=CompileId.parse("1/0"), rank=0, filename="/w/train.py", line=30, function="helper"
    )
    frames = [frame(0, "0/0"), frame(1, "0/0"), frame(2, "0/0"), other]
    (diff,) = rank_differences(frames)
    assert diff.kind == "frame" and diff.ranks_with == (0,) and diff.ranks_without == (1, 2)


@pytest.fixture(scope="module")
def rank_reports(traces_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Ranks 0 and 1 of the shared multi-rank logs, imported one file at a time."""
    folder = tmp_path_factory.mktemp("ranks")
    for rank in (0, 1):
        log = traces_dir / "multi_rank_logs" / f"dedicated_log_torch_trace_rank_{rank}.log"
        run_cli("import", str(log), "-o", str(folder / f"run.rank{rank}.inspectc"), check=True)
    return folder


def export(path: Path | str) -> dict[str, Any]:
    return json.loads(run_cli("export", str(path), check=True).stdout)


def test_merge_equals_importing_the_ranks_together(
    rank_reports: Path, traces_dir: Path, tmp_path: Path
) -> None:
    merged = tmp_path / "merged.inspectc"
    proc = run_cli("merge", *sorted(map(str, rank_reports.glob("*.inspectc"))), "-o", str(merged), check=True)
    assert "2 reports" in proc.stderr and "ranks 0, 1" in proc.stderr
    together = tmp_path / "together"
    together.mkdir()
    for rank in (0, 1):
        name = f"dedicated_log_torch_trace_rank_{rank}.log"
        shutil.copy(traces_dir / "multi_rank_logs" / name, together / name)
    both = tmp_path / "both.inspectc"
    run_cli("import", str(together), "-o", str(both), check=True)
    a, b = export(merged), export(both)
    assert {f["rank"] for f in a["frames"]} == {0, 1}
    a.pop("run"), b.pop("run")
    sa, sb = a.pop("summary"), b.pop("summary")  # its facts name each report's own command
    assert sa["counts"] == sb["counts"] and [s["title"] for s in sa["sections"]] == [
        s["title"] for s in sb["sections"]
    ]
    assert a == b  # same frames, graphs, kernel sources (slices moved with the events)
    with open_report(merged) as r:
        assert r.event_count() == sum(open_report(p).event_count() for p in rank_reports.glob("*.inspectc"))


def test_directory_of_rank_reports_opens_as_one(rank_reports: Path, tmp_path: Path) -> None:
    summary = run_cli("summary", str(rank_reports), check=True).stdout
    assert "Rank differences" in summary
    data = export(rank_reports)
    assert {f["rank"] for f in data["frames"]} == {0, 1}
    assert data["rank_differences"]
    # a merged report left in the folder is not merged again
    run_cli("merge", str(rank_reports), "-o", str(rank_reports / "all.inspectc"), check=True)
    assert len(export(rank_reports)["frames"]) == len(data["frames"])
    (rank_reports / "all.inspectc").unlink()


def test_reports_without_ranks_are_numbered(traces_dir: Path, tmp_path: Path) -> None:
    for name in ("simple.log", "comp_failure.log"):
        run_cli("import", str(traces_dir / name), "-o", str(tmp_path / f"{name}.inspectc"), check=True)
    out = tmp_path / "m.inspectc"
    proc = run_cli(
        "merge",
        str(tmp_path / "simple.log.inspectc"),
        str(tmp_path / "comp_failure.log.inspectc"),
        "-o",
        str(out),
    )
    assert proc.returncode == 0 and "numbered by position" in proc.stderr
    with open_report(out) as r:
        assert sorted((f.rank, f.status) for f in r.frames) == [(0, "ok"), (1, "failed")]
        assert all(r.kernel_source(k) for k in r.kernels)


def test_a_folder_of_reports_without_ranks_is_not_read_as_ranks(traces_dir: Path, tmp_path: Path) -> None:
    """`inspectc summary .` in a folder of unrelated reports (a held-out sweep: three scripts'
    reports) read them as ranks 0..2 of one job, renumbered a real rank 0, and compared them
    as ranks. A folder is one job's ranks; `merge` numbers others by position when asked."""
    for name in ("simple.log", "comp_failure.log"):
        run_cli("import", str(traces_dir / name), "-o", str(tmp_path / f"{name}.inspectc"), check=True)
    for command in ("summary", "export", "kernels"):
        proc = run_cli(command, str(tmp_path))
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
        assert "do not name distinct ranks" in proc.stderr and "inspectc merge" in proc.stderr
    assert not list(tmp_path.glob("*merge*"))


def test_merge_errors(tmp_path: Path) -> None:
    proc = run_cli("merge", str(tmp_path / "nope.inspectc"), "-o", str(tmp_path / "m.inspectc"))
    assert proc.returncode == 2 and "no such report" in proc.stderr
    assert not (tmp_path / "m.inspectc").exists()


def torchrun(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2", *args],
        cwd=cwd,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.mark.capture
@pytest.mark.slow
def test_ddp_under_torchrun(tmp_path: Path) -> None:
    pytest.importorskip("torch.distributed")
    trace = tmp_path / "trace"
    proc = torchrun(
        "-m",
        "inspectc",
        "run",
        "-q",
        str(SAMPLES / "ddp_train.py"),
        "--skew",
        cwd=tmp_path,
        env={"TORCH_TRACE": str(trace)},
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    reports = sorted(p.name for p in tmp_path.glob("*.inspectc"))
    assert reports == ["ddp_train.rank0.inspectc", "ddp_train.rank1.inspectc"]
    for rank in (0, 1):
        with open_report(tmp_path / f"ddp_train.rank{rank}.inspectc") as r:
            assert r.run.rank == rank and r.run.world_size == 2
            assert {f.rank for f in r.frames} == {rank}

    data = export(tmp_path)  # the directory opens as one merged report
    from test_user_stacks import assert_stacks_start_at

    assert_stacks_start_at(data, "ddp_train.py")  # not torchrun's, inspectc's or runpy's frames
    forward = [f for f in data["frames"] if f["function"] == "forward"]
    assert sorted(f["rank"] for f in forward) == [0, 1, 1]
    # DDPOptimizer's bucket splits are DDP splits, not graph breaks
    splits = {(s["rank"], s["compile_id"]): s["submodules"] for s in data["ddp_splits"]}
    for f in forward:
        assert len(splits[(f["rank"], f["compile_id"])]) >= 2
        assert f["graph_breaks"] == [] and f["metrics"]["extra"].get("num_graph_breaks", 0) >= 2
    # --skew: only rank 1 saw batch 5, so only rank 1 recompiled forward()
    recompiles = [
        d for d in data["rank_differences"] if d["kind"] == "recompile" and d["what"].startswith("forward()")
    ]
    assert len(recompiles) == 1 and recompiles[0]["ranks_with"] == [1]
    assert "size mismatch" in recompiles[0]["per_rank"]["1"]["reasons"][0]
    summary = run_cli("summary", str(tmp_path), check=True).stdout
    assert "DDPOptimizer split these graphs" in summary and "Rank differences" in summary

    # the same run imported from the ranks' TORCH_TRACE logs gives the same compile facts
    imported = tmp_path / "imported.inspectc"
    run_cli("import", str(trace), "-o", str(imported), check=True)
    from test_import import only_compile_facts

    assert only_compile_facts(export(imported)) == only_compile_facts(data)
