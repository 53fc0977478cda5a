"""`inspectc ir` on what an H200 recorded: the line chain and the kernel resources. No GPU, no torch.

- the line chain on a recorded GPU report (tests/data/gpu/linemap-h200.inspectc, captured from
  tests/data/gpu/linemap_model.py): an instruction found in the PTX/SASS by its text maps, through
  ``inspectc ir --stage S --stage-line N``, to the Triton line, the FX node and the user's line,
  checked against the model file itself;
- ``ir``'s registers, spills, shared memory and occupancy against cuobjdump and Nsight Compute
  for the 78 Triton kernels of a resnet18 training step (benchmarks/gpu_r2_h200/).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import ROOT, run_cli

from inspectc.model import Kernel, fxgraph
from inspectc.model.kernel_detail import KernelDetail, achieved_estimate, grid_of, occupancy
from inspectc.model.linechain import chain
from inspectc.store.reader import Report

GPU = ROOT / "tests" / "data" / "gpu"
LINEMAP = GPU / "linemap-h200.inspectc"
MODEL = GPU / "linemap_model.py"
RESOURCES = ROOT / "benchmarks" / "gpu_r2_h200" / "resources_resnet18.json"
NORM_KERNEL = "triton_per_fused_addmm_gelu_mul_native_layer_norm_sigmoid_0"
TANH_KERNEL = "triton_poi_fused_add_addmm_tanh_1"
_USER = re.compile(r"-> user line (?P<file>.+?):(?P<line>\d+): ")


def _first_line(kernel: str, stage: str, needle: str) -> int:
    """The 1-based line of the stage's first instruction containing *needle* (plain text)."""
    with Report(LINEMAP) as report:
        k = next(k for k in report.kernels if k.name == kernel)
        detail = report.kernel_detail(k)
        assert detail is not None
        rows = detail.stages[stage].splitlines()
    return next(i + 1 for i, row in enumerate(rows) if needle in row)


def _tanh_kernel() -> tuple[Kernel, KernelDetail, str, fxgraph.FxGraph]:
    """The tanh kernel of the fixture, its detail, the output code and the post-grad graph."""
    with Report(LINEMAP) as report:
        k = next(k for k in report.kernels if k.name == TANH_KERNEL)
        detail = report.kernel_detail(k)
        code = report.graph(k.compile_id, k.graph_kind) or ""
        graph = fxgraph.parse(report.graph(k.compile_id, "post_grad"))
    assert detail is not None
    return k, detail, code, graph


@pytest.mark.parametrize(
    ("kernel", "stage", "needle", "triton", "node", "user_code"),
    [
        (NORM_KERNEL, "ptx", "rsqrt.approx", "libdevice.rsqrt(", "rsqrt", "self.norm(h)"),
        (NORM_KERNEL, "sass", "MUFU.RSQ", "libdevice.rsqrt(", "rsqrt", "self.norm(h)"),
        (TANH_KERNEL, "ptx", "ex2.approx", "libdevice.tanh(", "tanh", "torch.tanh(x)"),
        (TANH_KERNEL, "sass", "MUFU.EX2", "libdevice.tanh(", "tanh", "torch.tanh(x)"),
    ],
)
def test_a_ptx_or_sass_instruction_maps_to_its_triton_line_fx_node_and_user_line(
    kernel: str, stage: str, needle: str, triton: str, node: str, user_code: str
) -> None:
    number = _first_line(kernel, stage, needle)
    out = run_cli(
        "ir", str(LINEMAP), kernel, "--stage", stage, "--stage-line", str(number), check=True
    ).stdout
    assert f"{stage} line {number}: " in out and needle in out
    py = re.search(r"-> python line (\d+): (.*)", out)
    assert py is not None and triton in py.group(2)
    assert f"-> FX node {node} (aten.{node}.default; op and inputs)" in out
    user = _USER.search(out)
    assert user is not None and Path(user.group("file")).name == MODEL.name
    # the model file itself, not the report, says what the user's line does
    assert user_code in MODEL.read_text().splitlines()[int(user.group("line")) - 1]


def test_each_global_load_maps_to_the_buffer_the_call_passes() -> None:
    """The tanh kernel's three ``ld.global`` lines: each a ``tl.load`` line whose FX node is the
    buffer the output code's call passes for that pointer (a graph input or the mm's output)."""
    k, detail, code, graph = _tanh_kernel()
    call = re.search(rf"{TANH_KERNEL}\.run\((\w+), (\w+), (\w+),", code)
    assert call is not None and call.group(2, 3) == ("arg6_1", "arg2_1")
    rows = detail.stages["ptx"].splitlines()
    loads = [i + 1 for i, row in enumerate(rows) if "ld.global" in row]
    assert len(loads) == 3
    found = {chain("ptx", n, detail, k.fused_nodes, graph, code) for n in loads}
    by_ptr = {
        c.python_text.split("tl.load(")[1].split(" ")[0]: c.nodes[0].node for c in found if c.python_text
    }
    # in_ptr0 / in_ptr1 are the call's 2nd and 3rd arguments; in_out_ptr0 (buf7) holds the mm's output
    assert by_ptr == {"in_ptr0": "arg6_1", "in_ptr1": "arg2_1", "in_out_ptr0": "mm_default"}
    assert graph.node("add_tensor").inputs == ("arg6_1", "mm_default")  # what reads the mm's output


def test_index_arithmetic_and_lines_without_location_map_to_no_node() -> None:
    k, detail, code, graph = _tanh_kernel()
    rows = detail.stages["ptx"].splitlines()
    header = next(i + 1 for i, row in enumerate(rows) if row.strip().startswith(".visible .entry"))
    assert chain("ptx", header, detail, k.fused_nodes, graph, code).python_line is None
    source = (detail.python_source or "").splitlines()
    index_line = next(i + 1 for i, row in enumerate(source) if row.strip().startswith("x0 = "))
    from inspectc.model.irmap import line_map

    stage_rows = line_map("ptx", detail.stages["ptx"], detail.python_file).get(index_line)
    if stage_rows:  # the modulo may compile to PTX lines of its own
        c = chain("ptx", stage_rows[0], detail, k.fused_nodes, graph, code)
        assert c.python_line == index_line and not c.nodes and "index arithmetic" in c.how
    bad = run_cli("ir", str(LINEMAP), TANH_KERNEL, "--stage", "ptx", "--stage-line", "99999")
    assert bad.returncode == 2 and "lines" in bad.stderr and "Traceback" not in bad.stderr


def _resources() -> list[dict]:
    if not RESOURCES.exists():
        pytest.skip("benchmarks/gpu_r2_h200/resources_resnet18.json is missing")
    return json.loads(RESOURCES.read_text())


def _detail(row: dict) -> KernelDetail:
    """The figures capture recorded for the kernel (its own H200's device properties)."""
    return KernelDetail(
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


def test_ir_figures_agree_with_cuobjdump_and_ncu_on_resnet18_training() -> None:
    """78 kernels: registers = cuobjdump REG (= ncu's, which allocates at least 16), local
    memory = cuobjdump STACK + LOCAL, shared = ncu static + dynamic, grid and block = ncu's,
    occupancy = ncu's theoretical, the register limit = ncu's (CUDA's sub-partition rule)."""
    rows = _resources()
    assert len(rows) == 78
    for row in rows:
        ncu, cuobj = row["ncu"], row["cuobjdump"]
        assert row["regs"] == cuobj["REG"] and max(row["regs"], 16) == ncu["launch__registers_per_thread"]
        assert row["spills"] * 4 == cuobj["STACK"] + cuobj["LOCAL"]
        assert (
            row["shared"]
            == ncu["launch__shared_mem_per_block_static"] + ncu["launch__shared_mem_per_block_dynamic"]
        )
        occ = occupancy(_detail(row))
        assert occ is not None
        assert occ.fraction * 100 == pytest.approx(ncu["sm__maximum_warps_per_active_cycle_pct"], abs=1.0)
        grid = row["grid"]  # ir's grid (Inductor's launcher rule over the recorded launch)
        assert grid[0] * grid[1] * grid[2] == ncu["launch__grid_size"]
        assert row["warps"] * 32 == ncu["launch__block_size"]
        if row["regs"] >= 16:  # ncu counts the allocation's 16 for a kernel of fewer
            assert occ.limits["registers"] == ncu["launch__occupancy_limit_registers"]
        assert occ.limits["warps"] == ncu["launch__occupancy_limit_warps"]


def test_the_grid_estimate_of_achieved_occupancy_against_ncu() -> None:
    rows = [r for r in _resources() if r["grid"]]
    close = 0
    for row in rows:
        detail = _detail(row)
        found = achieved_estimate(detail, occupancy(detail), tuple(row["grid"]))
        assert found is not None
        achieved = row["ncu"]["sm__warps_active.avg.pct_of_peak_sustained_active"]
        close += abs(found * 100 - achieved) <= 10
        assert found * 100 <= occupancy(detail).fraction * 100 + 1e-9  # never above the theoretical
    assert len(rows) == 78 and close >= 59


def test_a_2d_grid_that_overflows_y_spills_into_z() -> None:
    from inspectc.model.kernel_detail import ArgRecord, Launch

    def grid(y: int) -> tuple[int, ...] | None:
        launch = Launch(
            args=(
                ArgRecord(kind="scalar", name="ynumel", value=y),
                ArgRecord(kind="scalar", name="xnumel", value=9),
            )
        )
        detail = KernelDetail(
            name="k", grid_type="Grid2DWithYZOverflow", config={"kwargs": {"XBLOCK": 16, "YBLOCK": 64}}
        )
        return grid_of(detail, launch)

    assert grid(65536) == (1, 1024, 1)  # triton_poi_fused_6 of resnet18, as ncu launched it
    assert grid(64 * 70000) == (1, 35000, 2)
