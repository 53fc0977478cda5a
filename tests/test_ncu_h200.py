"""Recorded H200 fixtures (issue 29): Nsight Compute's CSV and inspectc's DRAM share on its basis.

``tests/data/gpu/ncu/ncu_h200.csv`` is an excerpt of a real ``ncu --clock-control none --csv``
run of ``benchmarks/ncu_compare.py`` (resnet18 training and a transformer block, H200, torch 2.11,
triton 3.6); ``launches.json`` holds the same kernels' first recorded launch (capture's) and their
isolated time per launch (``inspectc bench``). No GPU needed.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

from inspectc.analysis.roofline import DRAM_PEAK_GBPS, DramShare, read_bytes
from inspectc.model.kernel_detail import parse_detail

DATA = Path(__file__).parent / "data" / "gpu" / "ncu"
ROOT = Path(__file__).resolve().parent.parent
PCT = "dram__throughput.avg.pct_of_peak_sustained_elapsed"


def _ncu_compare() -> ModuleType:
    spec = importlib.util.spec_from_file_location("ncu_compare", ROOT / "benchmarks" / "ncu_compare.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _recorded() -> tuple[dict[str, dict], dict[str, dict]]:
    values = _ncu_compare().parse((DATA / "ncu_h200.csv").read_text())
    return values, json.loads((DATA / "launches.json").read_text())


def test_ncu_csv_gives_each_kernels_last_launch_in_us_and_bytes() -> None:
    values, launches = _recorded()
    assert set(values) == set(launches)
    fused8 = values["triton_poi_fused_8"]
    assert fused8["dram__bytes_read.sum"] == 9_442_304  # "9,442,304" byte, of the later launch (ID 3)
    assert 6.0 < fused8["gpu__time_duration.sum"] < 7.0  # "ns" in the CSV, µs here
    assert fused8[PCT] == 30.96  # ID 2 read 31.28
    peak = fused8["dram__bytes.sum.peak_sustained"] * fused8["dram__cycles_elapsed.avg.per_second"] / 1e9
    assert abs(peak / DRAM_PEAK_GBPS["NVIDIA H200"] - 1.0) < 0.01  # ncu's peak: 1504 B/cycle x 3.19 GHz


def test_input_bytes_are_the_dram_reads_and_the_share_is_within_10_points_of_ncu() -> None:
    """Outputs stay in the H200's L2 during the launch (ncu: ~0 DRAM bytes written), so the
    inputs of the recorded launch are the DRAM bytes; over the isolated time against the DRAM
    peak, each kernel here is within 10 points of ncu's dram__throughput."""
    values, launches = _recorded()
    for name, rec in launches.items():
        ncu = values[name]
        detail = parse_detail(json.dumps(rec["detail"]))
        reads = read_bytes(detail)
        assert reads is not None and abs(reads - ncu["dram__bytes_read.sum"]) <= 0.01 * reads, name
        assert ncu["dram__bytes_write.sum"] <= 0.01 * reads, name
        share = DramShare(
            read_bytes=reads, launch_us=rec["isolated_us"], peak_gbps=DRAM_PEAK_GBPS["NVIDIA H200"]
        )
        assert share.fraction is not None and abs(share.fraction * 100 - ncu[PCT]) <= 10, (
            name,
            share.fraction,
        )


def test_read_bytes_needs_a_launch_with_named_inputs() -> None:
    assert read_bytes(None) is None
    detail = parse_detail(json.dumps({"name": "k", "launches": []}))
    assert read_bytes(detail) is None
