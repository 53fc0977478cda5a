"""What a user running torch.compile reads (issue 43), on real runs: the graph of a Hugging
Face model titled and drawn as its user knows it, the backends a run used among the registered
ones, a run that compiled nothing in its own process, and a kernel's standalone repro. Each
figure is checked against the run's raw TORCH_TRACE log or the report's raw samples.
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import rawcount
from conftest import REPORTS, Captures, run_cli

HF_BERT = ("hf_bert.py", "--device", "cpu", "--layers", "1")  # shared with test_workloads


def _raw_post_grad_nodes(trace_dir: Path) -> int:
    """Nodes of the largest post-grad graph in the raw log: its inputs (the ``forward``'s
    parameters), one per assignment line, and its output."""
    counts = []
    for log in trace_dir.glob("*.log"):
        for meta, payload in rawcount.iter_payloads(log):
            if rawcount.event_name(meta) in ("artifact:inductor_post_grad_graph", "inductor_post_grad_graph"):
                text = payload or ""
                head = re.search(r"def forward\(self,?(.*?)\):", text, re.S)
                inputs = len(re.findall(r"\w+\s*:", head.group(1))) if head else 0
                counts.append(inputs + len(re.findall(r'^\s+\w+(?:: "[^"]*")? = ', text, re.M)) + 1)
    return max(counts, default=0)


@pytest.mark.capture
@pytest.mark.slow
def test_a_hf_model_graph_is_titled_by_its_class_and_folded(captures: Captures, tmp_path: Path) -> None:
    """``BertModel.forward`` compiles as transformers' ``wrapper`` (utils/generic.py): the
    picture's title names the model and the user's call; a graph of more than 120 nodes is
    folded by default (340 nodes drawn whole made a 17092x3193 px picture)."""
    pytest.importorskip("transformers")
    run = captures.get(*HF_BERT)
    assert run.proc.returncode == 0, run.proc.stderr[-2000:]
    nodes = _raw_post_grad_nodes(run.trace_dir)
    assert nodes > 120
    data = json.loads(run_cli("export", str(run.report), check=True).stdout)
    frame = next(f for f in data["frames"] if f["kernels"])
    assert frame["function"] == "wrapper" and frame["callable_name"] == "BertModel.forward"
    dot = run_cli("graph", str(run.report), "--frame", frame["compile_id"], check=True).stdout
    title = dot.split("label=<", 1)[1].split("<BR/>", 1)[0]
    assert "BertModel.forward called at" in title and "hf_bert.py" in title, title
    assert "wrapper at" not in title
    assert "collapsed" in dot, "a graph past 120 nodes is folded by default"
    summary = run_cli("summary", str(run.report), check=True).stdout
    assert "BertModel.forward (wrapper)" in summary
    assert "(wrapper): Dynamo compiled a wrapper of the callable named" in summary


@pytest.mark.capture
def test_the_backends_a_run_used_are_among_the_registered(captures: Captures) -> None:
    """torch's list_backends() leaves out debug backends (aot_eager, eager): the line listing
    the registered backends names the ones the script compiled with."""
    run = captures.get("compile_modes.py", "--mode", "aot_eager")
    assert run.proc.returncode == 0, run.proc.stderr[-2000:]
    summary = run_cli("summary", str(run.report), check=True).stdout
    (line,) = [x for x in summary.splitlines() if "registered backends:" in x]
    assert "aot_eager" in line.split("registered backends:", 1)[1], line


SPAWNS = """\
import multiprocessing as mp
import torch

def work(n):
    return float(torch.compile(lambda x: x.sin() + 1, backend="eager")(torch.ones(n)).sum())

if __name__ == "__main__":
    with mp.get_context("spawn").Pool(1) as pool:
        print(pool.map(work, [3]))
"""


@pytest.mark.capture
def test_a_run_that_compiles_only_in_its_workers_is_accounted(tmp_path: Path) -> None:
    """The script compiled nothing itself (its worker did): its report says so, not that
    it was made before the account or killed."""
    (tmp_path / "spawns.py").write_text(SPAWNS)
    trace = tmp_path / "trace"
    report = tmp_path / "spawns.inspectc"
    run_cli(
        "run", "-q", "-o", str(report), "spawns.py", cwd=tmp_path, env={"TORCH_TRACE": str(trace)}, check=True
    )
    starts = {p.name: sum(1 for m in rawcount.records(p) if "dynamo_start" in m) for p in trace.glob("*.log")}
    assert sum(starts.values()) == 1  # the worker's log; the script's own has none
    summary = run_cli("summary", str(report), check=True).stdout
    assert summary.startswith("inspectc: 0 frames compiled")
    assert "not accounted" not in summary
    assert "0 records: torch logged no compile in this process" in summary


@pytest.mark.slow  # a C++ kernel built by g++ and timed: ~25 s
def test_a_kernel_repro_keeps_stderr_clean_and_its_ratio_in_figures(tmp_path: Path) -> None:
    """The repro script of a real run's C++ kernel (samples/reports/mlp_train): Kineto's
    'USDT ... profiler_start' lines stay out of stderr; the ratio to the in-run median keeps
    3 significant figures (a 1000x faster repro was 'ratio_to_in_run: 0.0')."""
    pytest.importorskip("torch")
    script = tmp_path / "k.py"
    report = REPORTS / "mlp_train.inspectc"
    run_cli("repro", str(report), "cpp_fused_gelu_native_layer_norm_0", "-o", str(script), check=True)
    done = subprocess.run(
        [sys.executable, str(script), "--json"],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert not [line for line in done.stderr.splitlines() if line.startswith("USDT")], done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    ratio, repro, in_run = result["ratio_to_in_run"], result["repro_us"], result["in_run_median_us"]
    expect = repro / in_run  # from the two printed figures (each rounded too: a hair of slack)
    half_unit = 0.5 * 10 ** (math.floor(math.log10(expect)) - 2)  # of the 3rd significant figure
    assert ratio > 0 and abs(ratio - expect) <= half_unit + 1e-3 * expect, result
