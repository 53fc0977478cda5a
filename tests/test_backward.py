"""Backward-graph kernels of a real CPU training loop: fused nodes, user lines, times, phase.

torch 2.13 logs a lazily compiled backward's provenance without its kernel -> node table;
capture reads the table from Inductor (``inspectc_kernel_nodes``). With ``--fresh`` the
backward has no FX graph key, so its timings are tied to the frame by kernel names. The
fused nodes are checked against the backward post-grad graph's own node names.
"""

from __future__ import annotations

import json
import re

import pytest
from conftest import CapturedRun, Captures, run_cli

from inspectc.store.open import open_report

pytestmark = pytest.mark.capture

STEPS = 12
_NODE = re.compile(r"^\s+(\w+): \"", re.MULTILINE)


@pytest.fixture(scope="module", params=["cached", "fresh"])
def train_run(request: pytest.FixtureRequest, captures: Captures) -> CapturedRun:
    if request.param == "cached":  # the same capture test_fusion_timings uses (FX graph key set)
        return captures.get("mlp_train.py", "--steps", str(STEPS), cache="fusion-mlp")
    return captures.get("mlp_train.py", "--steps", str(STEPS), cache="bwd-fresh", run_opts=("--fresh",))


def test_every_backward_kernel_is_fused_timed_and_traced(train_run: CapturedRun) -> None:
    assert train_run.proc.returncode == 0, train_run.proc.stderr
    with open_report(train_run.report) as report:
        (frame,) = report.frames
        post_grad = report.graph(frame.compile_id, "post_grad_backward")
        assert post_grad, frame.graph_kinds
        graph_nodes = set(_NODE.findall(post_grad))
        kernels = report.frame_kernels(frame.compile_id)
        backward = [k for k in kernels if k.graph_kind == "output_code_backward"]
        generated = [k for k in backward if k.language != "extern"]
        assert len(generated) >= 3 and len(backward) > len(generated)
        for k in backward:
            assert k.fused_nodes, k.name
            assert set(k.fused_nodes) <= graph_nodes, (k.name, k.fused_nodes)
            # user lines through the forward nodes the backward nodes came from
            assert k.origins and all(o.filename and o.line for o in k.origins), k.name
            assert all(str(o.filename).endswith("mlp_train.py") for o in k.origins), k.origins
            assert k.time is not None, k.name
            assert 1 <= k.time.calls <= STEPS - 1
        shares = sum(k.time.share or 0.0 for k in kernels if k.time)
        assert shares == pytest.approx(1.0, abs=1e-6)  # one frame: forward and backward together
        fused = [k for k in generated if {"sum", "mul"} & {re.sub(r"_\d+$", "", n) for n in k.fused_nodes}]
        assert fused, [(k.name, k.fused_nodes) for k in generated]
        assert not [e for e in report.run.capture_errors if "kernel timings" in e or "fused nodes" in e]


def test_json_names_each_kernels_graph(train_run: CapturedRun) -> None:
    proc = run_cli("export", str(train_run.report), "--json", "--no-source")
    assert proc.returncode == 0, proc.stderr
    (frame,) = json.loads(proc.stdout)["frames"]
    phases = {(k["graph"], k["phase"]) for k in frame["kernels"]}
    assert phases == {("output_code", "forward"), ("output_code_backward", "backward")}


def test_inference_kernels_say_inference(captures: Captures) -> None:
    run = captures.get("sin_sin.py", "--device", "cpu", "--calls", "12", cache="fusion-sin")
    proc = run_cli("export", str(run.report), "--json", "--no-source")
    assert proc.returncode == 0, proc.stderr
    kernels = [k for f in json.loads(proc.stdout)["frames"] for k in f["kernels"]]
    assert kernels and {k["phase"] for k in kernels} == {"inference"}
