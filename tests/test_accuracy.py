"""``inspectc accuracy``: a planted fault is named down to the op, pass, kernel and user line;
a correct training loop with dropout, unseeded, with a reassociated reduction raises no alarm.

Two real runs of ``samples/accuracy_fault.py`` (one session fixture each) feed every test.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import SAMPLES, run_cli

from inspectc.model.accuracy import DIVERGES, AccuracyRun
from inspectc.store.open import open_report

SAMPLE = SAMPLES / "accuracy_fault.py"
MISH_LINE = next(i for i, t in enumerate(SAMPLE.read_text().splitlines(), 1) if "nn.functional.mish(" in t)


def _accuracy(tmp: Path, name: str, *args: str) -> Path:
    out = tmp / f"{name}.inspectc"
    proc = run_cli("accuracy", "-q", "-o", str(out), str(SAMPLE), *args, cwd=tmp)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out


@pytest.fixture(scope="session")
def fault_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _accuracy(tmp_path_factory.mktemp("acc-fault"), "fault", "--fault", "--dim", "64")


@pytest.fixture(scope="session")
def lowering_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # CompilerBisector's walk through Inductor's subsystems takes ~15 compiles (over a minute
    # here): checked by hand (docs/accuracy.md); the test stops at the stage, node, kernel and line
    tmp = tmp_path_factory.mktemp("acc-lowering")
    out = tmp / "lowering.inspectc"
    proc = run_cli(
        "accuracy",
        "-q",
        "--no-bisector",
        "-o",
        str(out),
        str(SAMPLE),
        "--fault",
        "lowering",
        "--dim",
        "64",
        cwd=tmp,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out


@pytest.fixture(scope="session")
def clean_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # training with dropout, no seed, a long sum Inductor reassociates: none of it is a bug
    return _accuracy(
        tmp_path_factory.mktemp("acc-clean"),
        "clean",
        "--train",
        "2",
        "--dropout",
        "0.3",
        "--unseeded",
        "--dim",
        "256",
    )


def _run(path: Path) -> AccuracyRun:
    with open_report(path) as report:
        run = report.accuracy
    assert run is not None
    return run


@pytest.mark.capture
def test_planted_fault_is_named_down_to_op_pass_kernel_and_line(fault_report: Path) -> None:
    run = _run(fault_report)
    [bad] = run.diverging
    assert bad.graph == "forward"
    assert bad.first_stage == "aot_eager_decomp_partition"  # decompositions, not AOT alone
    assert [s.verdict for s in bad.stages][:2] == ["ok", DIVERGES]
    assert bad.bisection is not None and bad.bisection.subsystem == "decomposition"
    assert "aten.mish" in (bad.bisection.debug_info or "")
    loc = bad.location
    assert loc is not None and "mish" in loc.target
    assert loc.filename is not None and loc.filename.endswith("accuracy_fault.py") and loc.line == MISH_LINE
    assert loc.kernels and "mish" in loc.kernels[0].name
    assert loc.max_rel_error is not None and loc.eager_rel_error is not None
    assert loc.max_rel_error > 1000 * loc.eager_rel_error
    assert run.kept_bytes <= run.kept_bound_bytes


@pytest.mark.capture
@pytest.mark.slow
def test_wrong_lowering_is_named_to_the_inductor_stage_kernel_and_line(lowering_report: Path) -> None:
    [bad] = _run(lowering_report).diverging
    assert bad.first_stage == "inductor"  # AOT and the decompositions are right
    assert [s.verdict for s in bad.stages] == ["ok", "ok", DIVERGES]
    assert bad.bisection is None  # --no-bisector
    loc = bad.location
    assert loc is not None and "mish" in loc.target and loc.line == MISH_LINE
    assert loc.kernels and "tanh" in loc.kernels[0].fused_nodes


@pytest.mark.capture
def test_summary_leads_with_it_and_export_carries_it(fault_report: Path) -> None:
    text = run_cli("summary", str(fault_report), check=True).stdout
    lines = text.splitlines()
    first_section = next(i for i, t in enumerate(lines) if t and not t.startswith(" ") and i > 0)
    assert lines[first_section].startswith("Accuracy: 1 of 1 graphs diverge")
    assert f"accuracy_fault.py:{MISH_LINE}" in text and "aten.mish" in text and "cpp_fused" in text
    data = json.loads(run_cli("export", str(fault_report), "--json", check=True).stdout)
    assert data["accuracy"]["graphs"][0]["verdict"] == DIVERGES
    assert data["accuracy"]["graphs"][0]["location"]["kernels"][0]["name"].startswith("cpp_fused")


@pytest.mark.capture
def test_check_gates_on_rel_error(fault_report: Path, clean_report: Path) -> None:
    bad = run_cli("check", str(fault_report), "--max-rel-error", "1e-3")
    assert bad.returncode == 1 and "rel. error" in bad.stdout
    good = run_cli("check", str(clean_report), "--max-rel-error", "1e-3")
    assert good.returncode == 0, good.stdout


@pytest.mark.capture
def test_no_false_alarm_on_training_with_dropout_unseeded(clean_report: Path) -> None:
    run = _run(clean_report)
    assert not run.diverging
    kinds = {g.graph for g in run.graphs}
    assert kinds == {"forward", "backward"}  # gradients compared too
    assert all(g.verdict == "ok" for g in run.graphs)
    assert any("dropout" in r for g in run.graphs for r in g.reasons)  # said, not hidden
    assert run.max_rel_error is not None and run.max_rel_error < 1e-4  # reassociation is noise
    assert "float noise: no alarm" in run_cli("summary", str(clean_report), check=True).stdout


def test_report_without_accuracy_fails_the_gate_with_one_line() -> None:
    proc = run_cli("check", str(SAMPLES / "reports" / "sin_sin.inspectc"), "--max-rel-error", "0.01")
    assert proc.returncode == 1 and "accuracy not checked" in proc.stdout
    proc = run_cli("check", str(SAMPLES / "reports" / "sin_sin.inspectc"), "--max-rel-error", "nan")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr


def test_bad_options_are_one_line(tmp_path: Path) -> None:
    proc = run_cli("accuracy", "--calls", "0", str(SAMPLE), cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "--calls" in proc.stderr


def test_reassociation_is_noise_and_a_wrong_value_is_not() -> None:
    import torch

    from inspectc.capture.accuracy_compare import Tolerance, compare_one

    gen = torch.Generator().manual_seed(0)
    x = torch.randn(64, 4096, generator=gen)
    fp64 = x.double().sum(-1)
    eager = x.sum(-1)
    reassociated = x.view(64, 64, 64).sum(-1).sum(-1)  # another order: another rounding
    tight = Tolerance(atol=0.0, rtol=0.0, tol=0.0)  # only the fp64 criterion can pass it
    assert not torch.equal(eager, reassociated)
    assert compare_one("sum", eager, reassociated, fp64, tight).verdict == "ok"
    wrong = eager.clone()
    wrong[3] += 1.0
    check = compare_one("sum", eager, wrong, fp64, tight)
    assert check.verdict == DIVERGES and check.max_abs_error == pytest.approx(1.0, rel=1e-3)


def test_an_fp64_run_with_other_draws_is_no_reference() -> None:
    # CUDA's dropout draws other masks in float64: eager is as far from fp64 as compiled is
    import torch

    from inspectc.capture.accuracy_compare import Tolerance, compare_one

    gen = torch.Generator().manual_seed(0)
    eager = torch.randn(256, generator=gen)
    fp64 = (eager * (torch.rand(256, generator=gen) > 0.2)).double()  # another mask
    compiled = eager + 1e-7 * eager.abs().max()
    check = compare_one("out 0", eager, compiled, fp64, Tolerance())
    assert check.verdict == "ok"
    assert check.max_rel_error is not None and check.max_rel_error < 1e-6  # against eager, not fp64
    assert check.reason is not None and "fp64 reference far from eager" in check.reason
