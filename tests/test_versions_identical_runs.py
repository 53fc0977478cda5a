"""Two runs of one unchanged script: ``diff`` finds nothing structural, ``check`` says the same
of both (issue 43: a CI gate on them must never fail on identical runs).

Each sample that compiles quickly, and a Hugging Face model from a config, runs twice under
``inspectc run``; the first run is the one other tests capture (shared through the session's
``Captures``), the second its twin. Every difference between them is checked against their
raw TORCH_TRACE logs: the logs hold the same compiles (``dynamo_start`` per function, graph
breaks and recompiles per reason with object ids blanked), so any structural change ``diff``
reported would be inspectc's own.
"""

from __future__ import annotations

import collections
import json
import re
from pathlib import Path

import pytest
import rawcount
from conftest import CapturedRun, Captures, run_cli

pytestmark = [pytest.mark.capture, pytest.mark.slow, pytest.mark.timeout(900)]

# (sample, its args, the private cache and the labels of its two runs): the first run is the one
# other tests capture; a second that another test makes too ("warm": the same cache, warm) is
# reused, so only the others cost a run here.
SAMPLES = [
    ("graph_breaks.py", ("--size", "64"), "gb", "", "warm"),
    ("sin_sin.py", ("--device", "cpu", "--calls", "12"), "fusion-sin", "", "warm"),
    ("mlp_train.py", ("--steps", "12"), "fusion-mlp", "", "warm"),
    ("compiled_autograd.py", ("--steps", "3"), "compiled-autograd", "", "again"),
    ("compile_modes.py", ("--mode", "aot_eager"), None, "", "again"),
    ("gpt2_tiny.py", ("--steps", "2"), None, "", "again"),
    ("suggest_item.py", (), None, "suggest", "again"),
    ("suggest_logging.py", (), None, "suggest", "again"),
    ("suggest_nofix.py", (), None, "suggest", "again"),
    ("stderr_chatter.py", (), None, "", "again"),
    ("hf_bert.py", ("--device", "cpu", "--layers", "1"), None, "", "again"),  # Hugging Face, from a config
]
_ADDRESS = re.compile(r"0x[0-9a-f]{4,16}|\b\d{12,}\b")


def _pair(
    captures: Captures, sample: str, args: tuple[str, ...], cache: str | None, labels: tuple[str, str]
) -> tuple[CapturedRun, CapturedRun]:
    first = captures.get(sample, *args, cache=cache, label=labels[0])
    second = captures.get(sample, *args, cache=cache, label=labels[1])
    for run in (first, second):
        assert run.proc.returncode == 0, run.proc.stderr[-2000:]
    return first, second


def _raw_shape(run: CapturedRun) -> collections.Counter[str]:
    """What a run compiled, from its raw log alone: starts per function, breaks and recompile
    reasons per text (addresses and long ids blanked: they differ between any two runs)."""
    shape: collections.Counter[str] = collections.Counter()
    for log in sorted(run.trace_dir.glob("*.log")):
        names = {}
        for meta, payload in rawcount.iter_payloads(log):
            if "str" in meta and isinstance(meta["str"], list):
                names[meta["str"][1]] = meta["str"][0]
            elif "dynamo_start" in meta:
                top = meta["dynamo_start"]["stack"][-1]
                shape[f"start {Path(str(names.get(top['filename']))).name}:{top['name']}"] += 1
            elif meta.get("artifact", {}).get("name") in ("dynamo_graph_break_reason", "recompile_reasons"):
                first = (payload or "").splitlines()[:2]
                shape[f"{meta['artifact']['name']} {_ADDRESS.sub('?', ' '.join(first))}"] += 1
    return shape


@pytest.mark.parametrize(
    ("sample", "args", "cache", "labels"),
    [(s[0], s[1], s[2], s[3:]) for s in SAMPLES],
    ids=[" ".join((s[0], *s[1])) for s in SAMPLES],
)
def test_two_runs_of_one_script_are_the_same(
    captures: Captures, sample: str, args: tuple[str, ...], cache: str | None, labels: tuple[str, str]
) -> None:
    first, second = _pair(captures, sample, args, cache, labels)
    assert _raw_shape(first) == _raw_shape(second)  # torch compiled the same things both times
    diff = run_cli("diff", "--json", str(first.report), str(second.report))
    data = json.loads(diff.stdout)
    assert data["changes"] == [] and diff.returncode == 0, data["changes"]
    texts = run_cli("diff", str(first.report), str(second.report))
    assert "No structural differences (exit 0)" in texts.stdout, texts.stdout
    checks = []
    for run in (first, second):
        gate = run_cli("check", "--json", "--fail-on-error", str(run.report))
        checks.append({k: v for k, v in json.loads(gate.stdout).items() if k != "report"})
    assert checks[0] == checks[1]
