"""Registers of a GPT-2 training step's Triton kernels on an H100: ``ir`` against cuobjdump, the
driver and Nsight Compute (issue 45). No GPU, no torch: the figures were recorded on the device
by ``STEPS="regs_abi r2_gpt2" bash benchmarks/gpu_kernel_depth.sh`` (benchmarks/gpu_r2_h100/).

``ir`` shows the kernel's own count: the cubin's REG and the driver's ``NUM_REGS`` of the binary
the run's autotuner launched. Nsight Compute's ``launch__registers_per_thread`` is the launch's
allocation: 16 for a kernel that uses fewer, and 32 for one whose machine code calls a function
(Inductor's bounds check on an embedding index calls ``__assertfail``) and uses fewer. Both
floors leave the occupancy alone (32 registers x 2048 threads fill the 64K register file).
"""

from __future__ import annotations

import csv
import json
import sys

import pytest
from conftest import ROOT

from inspectc.model.kernel_detail import KernelDetail, occupancy

DATA = ROOT / "benchmarks" / "gpu_r2_h100"
sys.path.insert(0, str(ROOT / "benchmarks"))
from gpu_regs import agrees, regs_verdict, verdict  # noqa: E402


def _load(name: str) -> object:
    path = DATA / name
    if not path.exists():
        pytest.skip(f"benchmarks/gpu_r2_h100/{name} is missing")
    return json.loads(path.read_text())


def _rows() -> list[dict]:
    rows = _load("resources_gpt2.json")
    assert isinstance(rows, list) and len(rows) == 30
    return rows


def _allocation(reg: int, calls: bool) -> int:
    return max(reg, 16, 32 if calls else 0)


def test_ir_shows_the_registers_of_the_binary_the_run_launched() -> None:
    """ir = cuobjdump REG of the cubin = the driver's count in the profiled process, and ir's
    config and binary are the ones the run's own autotuner held at its end (read from the
    process by gpu_models.py, not through inspectc)."""
    tuners = _load("tuners_gpt2.json")
    assert isinstance(tuners, list)
    for row in _rows():
        assert row["regs"] == row["cuobjdump"]["REG"] == row["repro"]["driver_regs"], row["name"]
        ran = [
            t
            for t in tuners
            if t["name"] == row["name"] and t["filename"] == row["python_file"] and t["launchers"]
        ]
        assert len(ran) == 1 and len(ran[0]["launchers"]) == 1, row["name"]
        launcher = ran[0]["launchers"][0]
        assert launcher["cache_hash"] == row["cache_hash"] and launcher["n_regs"] == row["regs"]
        assert launcher["config"] == row["config"] == row["repro"]["config"]


def test_ncu_reports_the_launch_allocation_16_or_32_with_a_call() -> None:
    rows = _rows()
    floors = {16: 0, 32: 0}
    for row in rows:
        reg, calls = row["cuobjdump"]["REG"], row["cuobjdump"]["CALL"] > 0
        ncu = row["ncu"]["launch__registers_per_thread"]
        assert ncu == _allocation(reg, calls), row["name"]
        assert calls == bool(row["ptx_calls"])  # the SASS's CALL is the PTX's call to __assertfail
        if ncu != reg:
            floors[int(ncu)] += 1
    assert floors == {16: 6, 32: 2}
    assert sum(r["regs"] == r["ncu"]["launch__registers_per_thread"] for r in rows) == 22


def test_the_floors_leave_the_occupancy_alone() -> None:
    for row in _rows():
        detail = KernelDetail(
            name=row["name"],
            n_regs=row["regs"],
            num_warps=row["warps"],
            shared=row["shared"],
            device={
                "multi_processor_count": 132,
                "regs_per_multiprocessor": 65536,
                "max_threads_per_multi_processor": 2048,
            },
        )
        occ = occupancy(detail)
        assert occ is not None
        ncu = row["ncu"]["sm__maximum_warps_per_active_cycle_pct"]
        assert occ.fraction * 100 == pytest.approx(ncu, abs=1.0), row["name"]
        assert occ.blocks_per_sm == row["repro"]["driver_blocks_per_sm"], row["name"]


def _abi() -> list[tuple[dict, int]]:
    """benchmarks/gpu_regs_abi.py under ncu: each kernel's line beside ncu's row, in launch order."""
    path = DATA / "regs_abi.txt"
    if not path.exists():
        pytest.skip("benchmarks/gpu_r2_h100/regs_abi.txt is missing")
    lines = path.read_text().splitlines()
    ours = [json.loads(x[4:]) for x in lines if x.startswith("ABI ")]
    names = {o["kernel"] for o in ours}  # ncu also profiled torch.randn's kernel
    theirs = [
        (row[4], int(row[-1]))
        for row in csv.reader(x for x in lines if x.startswith('"'))
        if row[4] in names and "launch__registers_per_thread" in row
    ]
    assert [name for name, _ in theirs] == [o["kernel"] for o in ours]
    return [(o, n) for o, (_, n) in zip(ours, theirs, strict=True)]


def test_a_kernel_that_calls_a_function_is_allocated_at_least_32() -> None:
    """The same copy kernel with and without a call (an assert compiled in, a print never made)."""
    pairs = _abi()
    assert len(pairs) == 8
    for ours, ncu in pairs:
        assert ours["n_regs"] == ours["REG"]
        assert ncu == _allocation(ours["REG"], ours["CALL"] > 0), ours
    raised = [o for o, n in pairs if n != o["REG"]]
    assert [(o["kernel"], o["warps"], o["REG"]) for o in raised] == [("copy_assert", 4, 30)]
    assert any(o["CALL"] == 0 and 16 <= o["REG"] < 32 for o, _ in pairs)  # no call: its own count


def test_each_kernel_gets_a_verdict_that_names_the_floor() -> None:
    rows = _rows()
    said = [regs_verdict(r) for r in rows]
    assert all(agrees(s) for s in said)
    assert sum(s == "agree" for s in said) == 22
    assert sum("32 for a kernel that calls a function" in s for s in said) == 2
    assert verdict(24, 24, 32, 24, calls=False) == "ncu differs from the cubin"
    assert verdict(24, 24, 32, 24, calls=True).startswith("agree")
    assert verdict(8, 8, 16, 8).startswith("agree")
    assert verdict(30, 24, 24, 24) == "ir differs from the cubin of its own cache_hash"
    assert verdict(24, 24, 26, 26) == "the repro launched another binary (its registers = ncu's)"
