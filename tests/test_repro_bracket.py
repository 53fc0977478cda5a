"""The repro script's bracket (issue 45): the range of a kernel's in-run time, L2 warm to L2
cold, and whether the run's median lies inside it. The script's own functions, imported from a
script written for a recorded H200 kernel (torch on CPU: nothing is launched)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from inspectc.render.repro import DEFAULT_METHOD, render_script, spec_for
from inspectc.store.reader import Report

H200 = Path(__file__).parent / "data" / "bench" / "resnet18-h200.inspectc"


def _script(tmp_path: Path) -> tuple[ModuleType, float]:
    report = Report(H200)
    kernel = next(k for k in report.kernels if k.name == "triton_poi_fused_convolution_0")
    spec = spec_for(report, kernel)
    path = tmp_path / "k.py"
    path.write_text(render_script(spec, report_name="r.inspectc", compile_id=kernel.compile_id))
    found = importlib.util.spec_from_file_location("repro_bracket_k", path)
    assert found is not None and found.loader is not None
    module = importlib.util.module_from_spec(found)
    found.loader.exec_module(module)
    assert spec.in_run_median_us is not None
    return module, spec.in_run_median_us


def test_the_default_is_the_bracket_of_the_warm_and_cold_conditions(tmp_path: Path) -> None:
    module, _run = _script(tmp_path)
    assert DEFAULT_METHOD == "bracket" == module.DEFAULT_METHOD
    assert set(module.WARM_SIDE) == {"warm", "fed"} and set(module.COLD_SIDE) == {"cold", "rotate"}
    assert "L2 flushed before each launch" in module.METHOD_TEXT["bracket"]


@pytest.mark.parametrize(
    ("scale", "inside", "ratio"),
    [
        (1.0, True, 1.0),
        (0.95, True, 0.95),
        (0.85, False, 0.85),
        (1.45, True, 1.0),
        (1.6, True, 1.067),
        (1.7, False, 1.133),
    ],
)
def test_the_run_inside_or_outside_with_its_ratio_to_the_nearer_end(
    tmp_path: Path, scale: float, inside: bool, ratio: float
) -> None:
    """warm 1.0, fed 1.1 (the faster is the warm end), cold 1.3, rotate 1.5 (the slower is the
    cold end): the run at *scale* x the warm end."""
    module, _run = _script(tmp_path)
    figures = {"profiler_us": 10.0, "fed_us": 11.0, "profiler_cold_us": 13.0, "rotate_us": 15.0}
    found = module.bracket(figures, 10.0 * scale)
    assert found["bracket_us"] == [10.0, 15.0] and found["bracket_by"] == ["warm", "rotate"]
    assert found["in_bracket"] is inside
    assert found["bracket_ratio"] == pytest.approx(ratio, abs=1e-3)
    module.SPEC["in_run_median_us"] = 10.0 * scale
    line = module.bracket_line({**figures, **found})
    assert line.startswith("bracket: 10.00 us (L2 warm, warm) .. 15.00 us (L2 cold, rotate)")
    assert ("inside" if inside else "outside") in line


def test_a_missing_side_gives_no_bracket(tmp_path: Path) -> None:
    module, run = _script(tmp_path)
    assert module.bracket({"profiler_us": 3.0}, run) == {"bracket_us": None}
    assert module.bracket_line({"bracket_us": None}) is None


def _cuda() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())


@pytest.mark.skipif(not _cuda(), reason="needs a CUDA GPU: the script launches the recorded Triton kernel")
def test_on_a_gpu_the_script_times_both_ends_and_places_the_run(tmp_path: Path) -> None:
    """A kernel of the recorded GPU report, run by its script on this machine's GPU: both ends
    timed, warm no slower than cold, the line printed (the run's median is another GPU's)."""
    import json
    import subprocess
    import sys

    report = Report(Path(__file__).parent / "data" / "gpu" / "linemap-h200.inspectc")
    kernel = next(k for k in report.kernels if k.name == "triton_poi_fused_add_addmm_tanh_1")
    path = tmp_path / "k.py"
    path.write_text(render_script(spec_for(report, kernel), report_name="r", compile_id=kernel.compile_id))
    done = subprocess.run(
        [sys.executable, str(path), "--json"], capture_output=True, text=True, timeout=300, check=True
    )
    out = json.loads(done.stdout.strip().splitlines()[-1])
    low, high = out["bracket_us"]
    assert 0 < low <= high and out["method"].startswith("bracket") and "in_bracket" in out
    text = subprocess.run(
        [sys.executable, str(path)], capture_output=True, text=True, timeout=300, check=True
    ).stdout
    assert "bracket: " in text and "L2 flushed before each launch" in text
