"""Roofline and isolated figures on a real H200 report (captured with --kernel-harness, then
`inspectc bench`ed; torch 2.11, Triton 3.6): readers only, no torch needed."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest
from conftest import run_cli

from inspectc.readers.graph import fusion_dot
from inspectc.readers.graph.style import ROOF_BANDS
from inspectc.readers.roofline import NOT_MEASURED, NOT_RECORDED, limit_text, roofline
from inspectc.report.bench import BenchResults, BenchRun, summarize
from inspectc.report.model import Kernel
from inspectc.report.open import open_report

H200 = Path(__file__).parent / "data" / "bench" / "resnet18-h200.inspectc"
GB = re.compile(r"""['"]kernel_num_gb['"]:\s*([0-9.eE+-]+)""")


def _raw_bandwidth(path: Path) -> float:
    db = sqlite3.connect(path)
    try:
        return float(
            json.loads(db.execute("SELECT value FROM meta WHERE key = 'bench'").fetchone()[0])[
                "bandwidth_gbps"
            ]
        )
    finally:
        db.close()


def test_fraction_is_bytes_over_the_isolated_columns_time_over_the_copy_bandwidth() -> None:
    """One basis: the isolated column's profile (device time per launch), not the harness's
    do_bench time, which carries the launch overhead (the harness only where no profile)."""
    limit = _raw_bandwidth(H200)
    assert 3000 < limit < 5000  # an H200 copies about 4.3 TB/s
    checked = 0
    with open_report(H200) as r:
        for k in r.kernels:
            rf = roofline(k, r.bench)
            if k.language != "triton":
                assert rf is None and limit_text(rf) == "-"
                continue
            found = GB.search(r.kernel_source(k))  # the generated source, not our parser
            assert found is not None and rf is not None and rf.gb == pytest.approx(float(found.group(1)))
            figures = r.bench.kernel(k.rank, k.compile_id, k.graph_kind, k.name)
            profile = figures.get("module_profiler")
            if profile is not None and profile.launches:
                launch_us = profile.median_us / profile.launches
                assert rf.basis is not None and "profiler" in rf.basis
            else:
                launch_us = figures["kernel_harness"].median_us
            expected = float(found.group(1)) / (launch_us * 1e-6) / limit
            assert rf.fraction == pytest.approx(expected)
            assert limit_text(rf) == f"{expected * 100:.0f}%" + ("*" if expected > 1 else "")
            checked += 1
    assert checked > 10


def test_kernels_table_and_graph_show_isolated_and_limit() -> None:
    shown = run_cli("kernels", str(H200), check=True).stdout
    assert "% limit" in shown.splitlines()[0] and "isolated" in shown.splitlines()[0]
    assert re.search(r"triton_\S+.*n=\d+\s+\d+%", shown), shown
    assert "limit " in shown and "GB/s" in shown
    with open_report(H200) as r:
        dot = fusion_dot(r, "0/0", max_nodes=0, color_by="roofline")
    assert "% of limit" in dot and "achieved bandwidth" in dot
    assert sum(dot.count(colour) for _, colour, _ in ROOF_BANDS) > 10


def test_without_metadata_or_bench_it_says_why() -> None:
    triton = Kernel(
        id=1,
        compile_id="0/0",
        name="triton_poi_fused_add_0",
        language="triton",
        kind="pointwise",
        source_size=1,
    )
    assert limit_text(roofline(triton, BenchResults())) == NOT_RECORDED
    meta = {"inductor_meta": {"kernel_num_gb": 0.5}}
    with_gb = Kernel(
        id=2, compile_id="0/0", name="k", language="triton", kind="pointwise", source_size=1, meta=meta
    )
    assert limit_text(roofline(with_gb, BenchResults())) == NOT_MEASURED
    fig = summarize([10.0] * 5, "kernel_harness", per="launch")
    assert fig is not None
    bench = BenchResults(
        run=BenchRun(started=0.0, bandwidth_gbps=100_000.0),
        figures={(None, "0/0", "output_code", "k"): {"kernel_harness": fig}},
    )
    assert limit_text(roofline(with_gb, bench)) == "50%"  # 0.5 GB in 10 µs = 50 TB/s of 100


def test_a_new_bench_run_replaces_its_modules_and_never_mixes_devices() -> None:
    from inspectc.report import bench as table

    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    fig = summarize([1.0, 2.0, 3.0], "module_profiler")
    assert fig is not None

    def keys() -> set[tuple[str, str]]:
        return {(c, k) for c, k in db.execute("SELECT compile_id, kernel FROM bench")}

    table.write(
        db,
        BenchRun(started=1, device="H200", bandwidth_gbps=4000.0),
        [((None, "0/0", "output_code", "a"), fig)],
    )
    table.write(db, BenchRun(started=2, device="H200"), [((None, "0/1", "output_code", "b"), fig)])
    assert keys() == {("0/0", "a"), ("0/1", "b")}
    stored = json.loads(db.execute("SELECT value FROM meta WHERE key = 'bench'").fetchone()[0])
    assert stored["bandwidth_gbps"] == 4000.0 and stored["started"] == 2
    table.write(db, BenchRun(started=3, device="H200"), [((None, "0/1", "output_code", "c"), fig)])
    assert keys() == {("0/0", "a"), ("0/1", "c")}  # the re-measured module's old figures went
    table.write(db, BenchRun(started=4, device="cpu"), [((None, "0/1", "output_code", "d"), fig)])
    assert keys() == {("0/1", "d")}
