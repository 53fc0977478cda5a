"""inspectc diff: golden reports, imported shared logs, and real captures before/after a change."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import rawcount
from conftest import Captures, run_cli

from inspectc.analysis.diff import ReportDiff, RunSide, TimeChange, op_signature
from inspectc.analysis.paths import comparable_path
from inspectc.model import CompileId, Kernel
from inspectc.render.diff import slowdown_text
from inspectc.store.open import open_report


def diff(*args: str) -> tuple[int, str, str]:
    proc = run_cli("diff", *args)
    return proc.returncode, proc.stdout, proc.stderr


def diff_json(a: Path, b: Path, *more: str) -> dict[str, Any]:
    code, out, _ = diff("--json", str(a), str(b), *more)
    data = json.loads(out)
    assert data["exit_code"] == code
    return data


def test_a_report_against_itself(golden: Path) -> None:
    report = golden / "graph_breaks.inspectc"
    code, out, err = diff(str(report), str(report))
    assert code == 0 and err == ""
    assert "No structural differences (exit 0)" in out
    data = diff_json(report, report)
    assert data["structural"] is False and data["changes"] == []


def test_run_metadata_is_not_a_difference(golden: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy.inspectc"
    shutil.copy(golden / "graph_breaks.inspectc", copy)
    with sqlite3.connect(copy) as db:
        (text,) = db.execute("SELECT value FROM meta WHERE key = 'run'").fetchone()
        run = json.loads(text)
        run.update(argv=["other", "argv"], started=1.0, ended=2.0, hostname="elsewhere", pid=1)
        db.execute("UPDATE meta SET value = ? WHERE key = 'run'", (json.dumps(run),))
    assert diff(str(golden / "graph_breaks.inspectc"), str(copy))[0] == 0


def test_different_programs(golden: Path) -> None:
    code, out, _ = diff(str(golden / "sin_sin.inspectc"), str(golden / "mlp_train.inspectc"))
    assert code == 1
    assert "- removed fn() at samples/sin_sin.py:" in out
    assert "+ added   forward() at samples/mlp_train.py:" in out
    assert "structural differences (exit 1)" in out


def test_cpu_and_cuda_logs_of_one_model(traces_dir: Path, tmp_path: Path) -> None:
    for name in ("inductor_provenance_jit_log.txt", "inductor_provenance_jit_cuda_log.txt", "simple.log"):
        run_cli("import", str(traces_dir / name), "-o", str(tmp_path / f"{name}.inspectc"), check=True)
    data = diff_json(
        tmp_path / "inductor_provenance_jit_log.txt.inspectc",
        tmp_path / "inductor_provenance_jit_cuda_log.txt.inspectc",
    )
    assert data["structural"] and {c["kind"] for c in data["changes"]} == {"kernel"}
    added = {c["what"].split(": ", 1)[1] for c in data["changes"] if c["change"] == "added"}
    assert "triton_poi_fused_mul_1" in added  # the CUDA run's Triton kernels are new
    # the same log with an altered (chromium) payload compiles the same
    simple = tmp_path / "simple.log.inspectc"
    run_cli(
        "import",
        str(traces_dir / "simple_corrupted_json.log"),
        "-o",
        str(tmp_path / "c.inspectc"),
        check=True,
    )
    assert diff(str(simple), str(tmp_path / "c.inspectc"))[0] == 0


def test_errors_exit_2(golden: Path, tmp_path: Path) -> None:
    code, out, err = diff(str(golden / "sin_sin.inspectc"), str(tmp_path / "missing.inspectc"))
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    code, _, err = diff(
        str(golden / "sin_sin.inspectc"), str(golden / "sin_sin.inspectc"), "--fail-on-slowdown", "x"
    )
    assert code == 2


def test_kernel_matching_helpers() -> None:
    def k(name: str) -> Kernel:
        return Kernel(
            id=1,
            compile_id=CompileId.parse("0/0"),
            name=name,
            language="cpp",
            kind="pointwise",
            source_size=1,
        )

    assert op_signature(k("cpp_fused_add_mul_3")) == "fused_add_mul"
    assert op_signature(k("triton_poi_fused_add_mul_0")) == "fused_add_mul"
    assert op_signature(k("extern_kernels.mm:2")) == "extern_kernels.mm"


def test_comparable_paths() -> None:
    assert comparable_path("/venv/lib/python3.11/site-packages/torch/nn/x.py", "/w") == "torch/nn/x.py"
    assert comparable_path("/w/proj/train.py", "/w/proj") == "train.py"
    assert comparable_path("/w/proj/train.py", "/w/proj/") == "train.py"
    assert comparable_path("./train.py", "/elsewhere") == "train.py"
    assert comparable_path("C:\\w\\proj\\train.py", "C:\\w\\proj") == "train.py"
    # a run that recorded no directory (an imported log) borrows the other run's
    assert comparable_path("/w/proj/train.py", None, ["/w/proj"]) == "train.py"
    assert comparable_path("/w/proj/train.py", "/other", ["/w/proj"]) == "/w/proj/train.py"
    assert comparable_path("/w/projx/train.py", None, ["/w/proj"]) == "/w/projx/train.py"
    assert comparable_path(None, "/w") == "?"


def test_slowdown_changes_the_exit_code_only_when_asked() -> None:
    side = RunSide("a", None, 1, 0, 0, 2)
    d = ReportDiff(side, side)
    d.times = [TimeChange("f() big", 100.0, 130.0, 0.9), TimeChange("f() tiny", 1.0, 3.0, 0.01)]
    assert d.exit_code() == 0
    assert d.exit_code(fail_on_slowdown=50) == 0
    assert d.exit_code(fail_on_slowdown=20) == 1
    assert [slowdown_text(s) for s in d.slowdowns(20)] == [
        "kernel time per call of 2 matched kernels: ×1.32",
        "f() big: ×1.30 (100.0µs -> 130.0µs)",
    ]


SCRIPT = """
import sys
import torch


def step(x):
    y = torch.sin(x) * 2
    if "--with-break" in sys.argv:
        print("tracing past a print")  # a graph break
    return torch.relu(y) + 1


torch.compile(step)(torch.randn(16))
"""


@pytest.fixture(scope="module")
def with_break(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``inspectc run step.py --with-break`` once, in a folder of its own (two tests read it)."""
    folder = tmp_path_factory.mktemp("step")
    (folder / "step.py").write_text(SCRIPT)
    run_cli("run", "-q", "-o", "before.inspectc", "step.py", "--with-break", cwd=folder, check=True)
    return folder / "before.inspectc"


@pytest.mark.capture
def test_a_fixed_graph_break(with_break: Path, tmp_path: Path) -> None:
    before, after = with_break, tmp_path / "after.inspectc"
    shutil.copy(before.parent / "step.py", tmp_path / "step.py")
    run_cli("run", "-q", "-o", str(after), "step.py", cwd=tmp_path, check=True)
    code, out, _ = diff(str(before), str(after))
    assert code == 1, out
    line = SCRIPT.splitlines().index('        print("tracing past a print")  # a graph break') + 1
    assert f"- fixed   step.py:{line}" in out
    data = diff_json(before, after)
    changes = {(c["kind"], c["change"]) for c in data["changes"]}
    assert ("graph_break", "fixed") in changes
    assert ("frame", "removed") in changes  # the resume function after the break is gone
    assert ("kernel", "added") in changes  # one fused kernel instead of two
    assert diff(str(after), str(after))[0] == 0


@pytest.mark.capture
def test_cold_and_warm_cache_runs_of_one_program_do_not_differ(captures: Captures) -> None:
    cold = captures.get("graph_breaks.py", "--size", "64", cache="gb")
    warm = captures.get("graph_breaks.py", "--size", "64", cache="gb", label="warm")
    code, out, _ = diff(str(cold.report), str(warm.report))
    assert code == 0, out


@pytest.mark.capture
def test_a_captured_run_and_the_imported_log_of_a_plain_run_match(with_break: Path, tmp_path: Path) -> None:
    """``inspectc run step.py`` records ``step.py``; ``python step.py``'s TORCH_TRACE log
    records ``/abs/path/step.py`` and an imported report has no working directory."""
    import subprocess
    import sys

    script = with_break.parent / "step.py"  # the plain run in the captured run's folder
    captured, imported = with_break, tmp_path / "imported.inspectc"
    env = {**os.environ, "TORCH_TRACE": str(tmp_path / "trace")}
    subprocess.run(
        [sys.executable, "step.py", "--with-break"],
        cwd=script.parent,
        env=env,
        check=True,
        capture_output=True,
    )
    run_cli("import", str(tmp_path / "trace"), "-o", str(imported), check=True)
    frames = json.loads(run_cli("export", str(imported), check=True).stdout)["frames"]
    assert frames[0]["filename"] == str(script)  # what torch recorded is kept as recorded
    for a, b in ((imported, captured), (captured, imported)):
        code, out, _ = diff(str(a), str(b))
        assert code == 0, out
        assert "No structural differences" in out


@pytest.mark.capture
def test_a_change_within_noise_is_never_a_slowdown(captures: Captures) -> None:
    """Real samples: every kernel of a real CPU training run (a busy two-core machine: CVs of
    50-150% are common). Its odd and even calls are two runs of one program: their medians
    differ by far more than 5%, and the rule must call that noise. The same samples moved past
    their own spread (plus twice the maximum) are a real slowdown and must be one."""
    from dataclasses import replace

    from inspectc.analysis.difftimes import slowdowns, time_change
    from inspectc.model import KernelTime
    from inspectc.model.stats import summary

    def time_of(samples: list[float]) -> KernelTime:
        s = summary(samples)
        keep = ("calls", "total_us", "mean_us", "min_us", "max_us", "median_us", "p90_us", "cv")
        return KernelTime(**{k: s[k] for k in keep}, samples=tuple(samples))

    run = captures.get("mlp_train.py", "--steps", "12", cache="fusion-mlp")
    assert run.proc.returncode == 0, run.proc.stderr
    with open_report(run.report) as r:
        timed = [k for k in r.kernels if k.time is not None and len(k.time.samples) >= 10]
    assert len(timed) >= 10
    halves, slower, few = [], [], []
    for k in timed:
        assert k.time is not None
        s = list(k.time.samples)
        share = 1 / len(timed)
        halves.append(replace(time_change(k.name, time_of(s[0::2]), time_of(s[1::2])), share=share))
        moved = [v + 2 * max(s) for v in s]
        slower.append(replace(time_change(k.name, time_of(s), time_of(moved)), share=share))
        few.append(replace(time_change(k.name, time_of(s[:3]), time_of(s[-3:])), share=share))
    assert any(abs(c.ratio - 1) > 0.05 for c in halves + few)  # the noise is real
    assert [c.what for c in halves if not c.noise] == []
    assert slowdowns(halves, 5) == [] and slowdowns(few, 5) == []
    assert all(c.noise and "n=3" in c.noise for c in few)
    assert all(c.noise is None for c in slower)
    assert len(slowdowns(slower, 5)) == 1 + len(timed)  # the total and every kernel


def test_multi_rank_diff_says_which_rank(tmp_path: Path) -> None:
    """Two 4-rank runs where rank 2's log is rank 0's in B: every count and change is labelled
    with its rank, and each rank's counts equal the raw logs' (tests/rawcount.py)."""
    logs = Path(__file__).parent / "data" / "logs" / "ranks4"
    folder = tmp_path / "b"
    folder.mkdir()
    for n in range(4):
        shutil.copyfile(logs / f"rank_{0 if n == 2 else n}.log", folder / f"rank_{n}.log")
    a, b = tmp_path / "a.inspectc", tmp_path / "b.inspectc"
    run_cli("import", str(logs), "-o", str(a), check=True)
    run_cli("import", str(folder), "-o", str(b), check=True)
    data = diff_json(a, b)

    def raw(log: Path) -> dict[str, int]:
        s = rawcount.summary(log)
        return {
            "frames": s["dynamo_starts"],
            "graph_breaks": s["graph_breaks"],
            "recompiles": s["recompiles"],
        }

    for side, where in (("a", logs), ("b", folder)):
        per_rank = {row["rank"]: row for row in data[side]["per_rank"]}
        assert sorted(per_rank) == [0, 1, 2, 3]
        for n in range(4):
            counts = per_rank[n]
            assert {k: counts[k] for k in ("frames", "graph_breaks", "recompiles")} == raw(
                where / f"rank_{n}.log"
            )
    assert data["changes"] and {c["rank"] for c in data["changes"]} == {2}
    assert all(c["what"].startswith("r2 ") for c in data["changes"])
    code, out, _ = diff(str(a), str(b))
    assert code == 1
    r2 = raw(logs / "rank_2.log")
    b2 = raw(logs / "rank_0.log")
    assert "(ranks together)" in out.splitlines()[1]
    assert (
        f"    r2: frames {r2['frames']} -> {b2['frames']}, graph breaks {r2['graph_breaks']} -> {b2['graph_breaks']}"
        in out
    )
    assert "    r0: frames" in out and "    r1: frames" in out
