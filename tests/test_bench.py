"""`inspectc bench`: isolated re-measurement of a real CPU capture, end to end, and its readers."""

from __future__ import annotations

import hashlib
import re
import shutil
import sqlite3
from pathlib import Path

import pytest
from conftest import _SESSION_TMP, CapturedRun, Captures, run_cli

from inspectc.store.bench import MODULE, summarize
from inspectc.store.open import open_report

pytestmark = pytest.mark.capture
CACHE = "fusion-mlp"  # the mlp_train capture of test_fusion_timings: one compile for both
FAST = (
    "--budget",
    "0.5",
    "--min-rounds",
    "3",
    "--window",
    "3",
    "--yes",
)  # --yes: a golden report is not ours


@pytest.fixture(scope="module")
def mlp(captures: Captures) -> CapturedRun:
    run = captures.get("mlp_train.py", "--steps", "12", cache=CACHE)
    assert run.proc.returncode == 0, run.proc.stderr
    return run


def _env() -> dict[str, str]:
    return {"TORCHINDUCTOR_CACHE_DIR": str(_SESSION_TMP / f"cache-{CACHE}")}


@pytest.fixture(scope="module")
def benched(mlp: CapturedRun, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    copy = tmp_path_factory.mktemp("bench") / "mlp.inspectc"
    shutil.copyfile(mlp.report, copy)
    proc = run_cli("bench", str(copy), *FAST, env=_env(), timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return copy, proc.stdout


def _rows(path: Path) -> list[tuple[int, str, str, str, str]]:
    db = sqlite3.connect(path)
    try:
        return db.execute("SELECT rank, compile_id, graph_kind, kernel, method FROM bench").fetchall()
    finally:
        db.close()


def test_every_cpu_kernel_and_module_gets_isolated_figures(benched: tuple[Path, str]) -> None:
    path, _ = benched
    rows = _rows(path)  # read with sqlite3, not through our reader
    with open_report(path) as r:
        bench = r.bench
        assert bench.run is not None and bench.run.device == "cpu" and not bench.run.errors
        kinds = {(k.compile_id, k.graph_kind) for k in r.kernels}
        assert {
            kind for kind in ("output_code", "output_code_backward") if any(g == kind for _, g in kinds)
        } == {
            "output_code",
            "output_code_backward",
        }
        for cid, kind in kinds:
            module = bench.module(cid, kind)
            assert module is not None and module.method == "benchmark_compiled_module"
            assert (-1, str(cid), kind, MODULE, "benchmark_compiled_module") in rows
        for k in r.kernels:
            fig = bench.primary(k.compile_id, k.graph_kind, k.name)
            assert fig is not None, f"{k.name} not measured"
            code = r.graph(k.compile_id, k.graph_kind) or ""
            sites = len(re.findall(rf"^\s+{re.escape(k.name.split(':')[0])}\(", code, re.MULTILINE))
            assert fig.method == "module_profiler" and fig.n >= 3
            assert fig.launches == (sites if k.language == "cpp" else 1.0), k.name  # every launch counted
            assert 0 < fig.min_us <= fig.median_us <= fig.p90_us and fig.cv >= 0
            assert (-1, str(k.compile_id), k.graph_kind, k.name, "module_profiler") in rows
        assert len(rows) == len(r.kernels) + len(kinds)


def test_readers_show_isolated_beside_in_run(benched: tuple[Path, str], mlp: CapturedRun) -> None:
    path, bench_stdout = benched
    assert "isolated figures written to" in bench_stdout
    shown = run_cli("kernels", str(path), check=True).stdout
    with open_report(path) as r:
        names = [k.name for k in r.kernels]
    table = shown.splitlines()[1 : 1 + len(names)]
    assert all("n=" in line for line in table), shown
    assert "isolated: inspectc bench on cpu" in shown
    plain = run_cli("kernels", str(mlp.report), check=True).stdout
    head = plain.splitlines()[0]  # not benched: no isolated or % limit column, the footer says how
    assert "isolated" not in head and "% limit" not in head and "median" in head
    assert "not measured" not in plain.splitlines()[1] and "isolated: not measured (inspectc bench" in plain
    exported = run_cli("export", str(path), "--json", check=True).stdout
    assert '"isolated"' in exported and '"module_profiler"' in exported


def test_output_copy_leaves_the_input_untouched(mlp: CapturedRun, tmp_path: Path) -> None:
    before = hashlib.sha256(mlp.report.read_bytes()).hexdigest()
    out = tmp_path / "copy.inspectc"
    proc = run_cli(
        "bench",
        str(mlp.report),
        "--kernel",
        "extern_kernels.addmm:1",
        "-q",
        "-o",
        str(out),
        *FAST,
        env=_env(),
    )
    assert proc.returncode == 0, proc.stderr
    assert hashlib.sha256(mlp.report.read_bytes()).hexdigest() == before
    rows = _rows(out)  # --kernel: that kernel and its module (the forward) only
    assert {(kernel, method) for _, _, _, kernel, method in rows} == {
        ("extern_kernels.addmm:1", "module_profiler"),
        (MODULE, "benchmark_compiled_module"),
    }
    assert not open_report(mlp.report).bench


def test_refuses_to_overwrite_or_to_write_into_what_is_not_a_report(mlp: CapturedRun, tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("mine")
    proc = run_cli("bench", str(mlp.report), "-o", str(notes))
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and notes.read_text() == "mine"
    link = tmp_path / "link.inspectc"
    link.symlink_to(mlp.report)
    proc = run_cli("bench", str(link))
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "-o" in proc.stderr
    proc = run_cli("bench", str(mlp.report), "--frame", "9/9", "-o", str(tmp_path / "x.inspectc"))
    assert proc.returncode == 2 and "no frame 9/9" in proc.stderr


def test_summarize_takes_median_min_p90_and_cv() -> None:
    fig = summarize([4.0, 1.0, 3.0, 2.0, 10.0], "module_profiler")
    assert fig is not None
    assert (fig.n, fig.median_us, fig.min_us) == (5, 3.0, 1.0)
    assert fig.p90_us == pytest.approx(7.6)  # stats.quantile: the one p90, as kernel timings have it
    assert fig.cv == pytest.approx(10**0.5 / 4) and not fig.few  # population SD over the mean
    assert summarize([], "x") is None and summarize([1.0], "x").few  # type: ignore[union-attr]


def test_a_module_that_cannot_run_here_is_named_and_the_report_unchanged(tmp_path: Path) -> None:
    copy = tmp_path / "h200.inspectc"  # Triton kernels of an H200 run: no CUDA or Triton here
    shutil.copyfile(Path(__file__).parent / "data" / "bench" / "resnet18-h200.inspectc", copy)
    before = hashlib.sha256(copy.read_bytes()).hexdigest()
    proc = run_cli("bench", str(copy), *FAST, timeout=300)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "not measured: 0/0 output_code:" in proc.stderr and "unchanged" in proc.stderr
    assert hashlib.sha256(copy.read_bytes()).hexdigest() == before


def test_l2_flushed_flushes_before_each_launch_of_the_named_kernels_and_puts_them_back() -> None:
    """The CUDA bench wraps an output code module's Triton kernel objects (``.run``) for its
    L2-flushed profile; here a module of plain objects and a counting flush (no GPU)."""
    import types

    from inspectc.capture.bench_measure import l2_flushed

    order: list[str] = []

    class Kernel:
        fn = "the kernel's own attribute"

        def run(self, *args: object, stream: int = 0) -> tuple[object, ...]:
            order.append("run")
            return (*args, stream)

    triton_a, other = Kernel(), Kernel()
    mod = types.SimpleNamespace(triton_a=triton_a, triton_b=other, cpp_fused_0=len)
    with l2_flushed(mod, ["triton_a", "cpp_fused_0", "missing"], flush=lambda: order.append("flush")):
        assert mod.triton_a.run(1, 2, stream=7) == (1, 2, 7) and mod.triton_a.fn == Kernel.fn
        mod.triton_b.run()
        assert mod.cpp_fused_0 is len  # no .run: not a Triton kernel object, left as it is
    assert order == ["flush", "run", "run"]
    assert mod.triton_a is triton_a and mod.triton_b is other
    with l2_flushed(mod, []):  # on CPU bench passes no names: nothing is touched, no GPU needed
        assert mod.triton_a is triton_a
