"""torch.export, draft_export and AOTInductor: what a run logged without compiling a frame.

Real logs only: tests/data/logs (torch 2.13 CPU, made by tests/data/make_logs.py), tlparse's
``export.log`` (an older torch) in ../shared/traces, and a real capture of a script that
exports, draft-exports and AOT-compiles. Counts are checked against the raw log records read
here with json, not through inspectc.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, run_cli, torch_older_than

from inspectc.model.runrecords import RunRecords
from inspectc.trace.payloads import artifacts, export
from inspectc.trace.records import StringTable, parse_file

LOGS = ROOT / "tests" / "data" / "logs"


def log(name: str) -> Path:
    path = LOGS / name
    if not path.is_file():
        pytest.skip(f"{path} is not generated yet (tests/data/make_logs.py)")
    return path


def raw(path: Path, name: str) -> list[dict[str, Any]]:
    """The metadata (and payload, under "payload") of the records named *name*, read plainly."""
    out = []
    for rec in parse_file(path)[0]:
        if name in rec.metadata or (rec.metadata.get("artifact") or {}).get("name") == name:
            out.append({**rec.metadata, "payload": rec.payload})
    return out


def imported(path: Path, tmp_path: Path) -> tuple[dict[str, Any], str]:
    report = tmp_path / f"{path.parent.name}.inspectc"
    run_cli("import", str(path), "-o", str(report), check=True)
    data = json.loads(run_cli("export", str(report), check=True).stdout)
    return data, run_cli("summary", str(report), check=True).stdout


def test_draft_export_report(tmp_path: Path) -> None:
    path = log("draft_export/dtrace.log")
    data, summary = imported(path, tmp_path)
    assert data["frames"] == []
    (program,) = data["exported_programs"]
    assert program["program"] == raw(path, "exported_program")[0]["payload"]
    dd = {
        r["propagate_real_tensors_provenance"]["expr"] for r in raw(path, "propagate_real_tensors_provenance")
    }
    guards = {
        r["guard_added"]["expr"]
        for r in raw(path, "guard_added")
        if r["guard_added"].get("prefix") != "runtime_assert"
    }
    kinds = [(i["kind"], i["expr"]) for i in program["issues"]]
    assert sorted(kinds) == sorted(
        [("data_dependent_error", e) for e in dd] + [("guard_added", e) for e in guards]
    )
    assert all(
        i["filename"].endswith("draft_export.py") and i["line"] and i["code"] for i in program["issues"]
    )
    assert len(data["export_issues"]) == len(program["issues"])
    unbacked = [r["create_unbacked_symbol"]["symbol"] for r in raw(path, "create_unbacked_symbol")]
    assert program["unbacked_symbols"] == unbacked
    assert f"({len(dd)} data-dependent, {len(guards)} guard added)" in summary
    assert "1 exported program (" in summary.splitlines()[2]


def test_exported_program(tmp_path: Path) -> None:
    path = log("export/dtrace.log")
    data, summary = imported(path, tmp_path)
    (program,) = data["exported_programs"]
    text = raw(path, "exported_program")[0]["payload"]
    assert program["inputs"] == [
        "p_lin_weight: PARAMETER target='lin.weight'",
        "p_lin_bias: PARAMETER target='lin.bias'",
        "x: USER_INPUT",
    ]
    assert len(program["outputs"]) == text.split("# outputs", 1)[1].count("USER_OUTPUT")
    statements = re.findall(r'^ {12}\w+(?:: "[^"]*")? = ', text, re.MULTILINE)  # forward's body
    assert program["op_count"] == len(statements) == 8
    assert "aten.nonzero.default" in program["ops"] and program["unbacked_symbols"] == ["u0"]
    assert program["issues"] == [] and "Draft-export report: no issues" in summary


def test_export_logged_with_torch_trace_only(tmp_path: Path) -> None:
    """Without TORCH_DTRACE torch logs no exported program: say so instead of "0 frames"."""
    path = log("export/trace.log")
    assert raw(path, "exported_program") == []
    data, summary = imported(path, tmp_path)
    assert data["exported_programs"] == [] and data["frames"] == []
    assert "torch.export ran, but this log holds no exported program" in summary


def test_an_older_torch_export_log(traces_dir: Path, tmp_path: Path) -> None:
    """tlparse's export.log: ``ExportGraphSignature(...)`` printed whole, no ``prefix`` on guards."""
    data, summary = imported(traces_dir / "export.log", tmp_path)
    (program,) = data["exported_programs"]
    assert program["inputs"] == ["x: USER_INPUT", "y: USER_INPUT"] and program["outputs"] == [
        "slice_1: USER_OUTPUT"
    ]
    kinds = sorted(i["kind"] for i in program["issues"])
    # its guard_added records have no draft-export "prefix": ShapeEnv's log, no issue (tlparse: 1)
    raw_guards = raw(traces_dir / "export.log", "guard_added")
    assert raw_guards and not any(r["guard_added"].get("prefix") for r in raw_guards)
    assert kinds == ["data_dependent_error"] * len(
        raw(traces_dir / "export.log", "propagate_real_tensors_provenance")
    )
    assert "test_draft_export.py:279" in summary


def test_aot_inductor_compile(tmp_path: Path) -> None:
    path = log("aoti/trace.log")
    data, summary = imported(path, tmp_path)
    (aot,) = data["aot_compiles"]
    code = {r["graph_dump"]["name"]: r["payload"] for r in raw(path, "graph_dump")}
    kernel_code, wrapper = code["inductor_aot_kernel_code"], code["inductor_aot_wrapper_code"]
    defined = re.findall(r'^extern "C"\s+void\s+(\w+)\(.*\)\s*$', kernel_code, re.MULTILINE) or re.findall(
        r'extern "C"\s+void\s+(\w+)\([^;{]*\)\s*\{', kernel_code
    )
    called = re.findall(r"\b(aoti_torch_cpu_\w+)\(", wrapper)
    names = [k["kernel"]["name"] for k in aot["kernels"]]
    assert sorted(names) == sorted(set(defined) | set(called)), names
    for k in aot["kernels"]:
        assert k["source"] and k["kernel"]["name"] in k["source"]
    assert aot["code_text"]["aot_wrapper_code"] == wrapper
    assert {"aot_inference", "post_grad", "aot_wrapper_code", "aot_kernel_code"} <= set(aot["graph_kinds"])
    (metrics,) = [r["compilation_metrics"] for r in raw(path, "compilation_metrics")]
    assert aot["compile_s"] == pytest.approx((metrics["end_time_us"] - metrics["start_time_us"]) / 1e6)
    assert f"AOTInductor compile aoti/0: {len(names)} kernels" in summary
    assert "provenance_tracking_level = 1" in summary  # this log has no provenance


def test_parsers_on_odd_input() -> None:
    strings = StringTable()
    assert export.export_issue("guard_added", "not a dict", strings.resolve) is None
    assert export.export_issue("str", {}, strings.resolve) is None
    issue = export.export_issue("missing_fake_kernel", {"op": "demo.twice.default"}, strings.resolve)
    assert issue is not None and issue.kind == "missing_fake_kernel" and issue.filename is None
    assert export.aot_code({"name": "inductor_aot_wrapper_code"}, None) is None
    assert export.exported_program("", index=0, rank=None, key="export/0").op_count == 0
    assert artifacts.collective_schedule("not json") is None
    assert artifacts.runtime_estimates('{"ops": 3}') is None
    order = artifacts.execution_order(
        '{"graph_execution_order": ["0/1", {"compile_id": "0/0"}, {"graph": 2}, 7]}', rank=1
    )
    assert order is not None and [str(c) for c in order.compile_ids] == ["0/1", "0/0", "?"]
    assert {c.rank for c in order.compile_ids} == {1} and not order.compile_ids[2].known
    assert not RunRecords()


CAPTURE = """
import torch


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(8, 4)

    def forward(self, x):
        y = torch.sin(self.lin(x)) + 1
        return y.relu() * x.sum()


class DataDependent(torch.nn.Module):
    def forward(self, x, y):
        n = x.sum().item()
        if n > 0:  # a data-dependent branch
            return y[: int(n) % 3 + 1] * 2
        return y


@torch.library.custom_op("demo::twice", mutates_args=())
def twice(x: torch.Tensor) -> torch.Tensor:
    return x * 2


class UsesOp(torch.nn.Module):
    def forward(self, x):
        return twice(x) + 1  # an op with no fake kernel


ep = torch.export.export(Net(), (torch.randn(2, 8),))
torch.export.draft_export(DataDependent(), (torch.ones(3), torch.randn(5, 2)))
torch.export.draft_export(UsesOp(), (torch.randn(3),))
path = torch._inductor.aoti_compile_and_package(ep, package_path="net.pt2")
print(torch._inductor.aoti_load_package(path)(torch.randn(2, 8)).shape)
"""


@pytest.mark.capture
@pytest.mark.slow
@pytest.mark.skipif(
    torch_older_than("2.12"),
    reason="torch 2.11's draft_export fails on this program under plain python too"
    " (AssertionError: Unknown symbol zuf0 created by constraints solver)",
)
def test_export_draft_export_and_aoti_captured(tmp_path: Path) -> None:
    script = tmp_path / "prog.py"
    script.write_text(CAPTURE)
    report = tmp_path / "prog.inspectc"
    env = {"TORCH_DTRACE": str(tmp_path / "dtrace"), "TORCHINDUCTOR_CACHE_DIR": str(tmp_path / "cache")}
    run_cli("run", "-q", "-o", str(report), "prog.py", cwd=tmp_path, env=env, check=True)
    data = json.loads(run_cli("export", str(report), check=True).stdout)
    net, dd, op = data["exported_programs"]  # draft_export logs its program twice: one each
    assert net["inputs"][-1] == "x: USER_INPUT" and net["issues"] == []
    assert [(i["kind"], i["line"]) for i in dd["issues"]] == [
        ("data_dependent_error", 18),
        ("data_dependent_error", 19),
    ]
    assert [(i["kind"], i["op"]) for i in op["issues"]] == [("missing_fake_kernel", "demo.twice.default")]
    (aot,) = data["aot_compiles"]
    assert aot["provenance"] is True  # inspectc run turns provenance tracking on
    fused = {k["kernel"]["name"]: k["kernel"]["fused_nodes"] for k in aot["kernels"]}
    (pointwise,) = [name for name in fused if name.startswith("cpp_fused_add_mul_relu_sin")]
    assert {"sin", "relu", "mul"} <= set(fused[pointwise])
    lines = {(o["filename"], o["line"]) for k in aot["kernels"] for o in k["kernel"]["origins"]}
    assert ("prog.py", 11) in lines or (str(script), 11) in lines
    summary = run_cli("summary", str(report), check=True).stdout
    assert "3 exported programs (3 draft-export issues) · 1 AOTInductor compile" in summary
    listed = run_cli("kernels", str(report), check=True).stdout  # AOT kernels are in no frame: said
    assert f"AOTInductor: {len(aot['kernels'])} kernels in 1 compile, not listed above" in listed, listed
    assert "missing fake kernel" in summary and "torch.ops.demo.twice.default has no fake kernel" in summary

    # torch 2.13's draft_export removes TORCH_TRACE's handler for good (and writes its own
    # log): the main log stops at the first export, so no log has the AOT compile; capture,
    # a handler of its own on torch.__trace, saw it all
    logs = list((tmp_path / "dtrace").glob("*.log"))
    assert len(logs) == 3 and not any("graph_dump" in p.read_text() for p in logs)
    (main_log,) = [p for p in logs if '{"export": {}' in p.read_text()]
    again, _ = imported(main_log, tmp_path)
    assert [p["program"] for p in again["exported_programs"]] == [net["program"]]


STRICT_FAILS = """\
import torch


class M(torch.nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x + 1
        return x - 1


try:
    torch.export.export(M(), (torch.ones(3),), strict=True)
except Exception as exc:
    print("export failed:", type(exc).__name__)
"""


@pytest.mark.capture
def test_a_failed_strict_export_is_a_failed_frame_and_fails_check(tmp_path: Path) -> None:
    """Dynamo logs a strict export's failure as a ``compilation_metrics`` with no compile id
    (its records before carry one; no ``dynamo_start``): it was kept raw and the frame read as
    still compiling, and ``check --fail-on-error`` passed the run (held-out script)."""
    (tmp_path / "strict.py").write_text(STRICT_FAILS)
    report = tmp_path / "strict.inspectc"
    env = {"TORCH_TRACE": str(tmp_path / "trace"), "TORCHINDUCTOR_CACHE_DIR": str(tmp_path / "cache")}
    proc = run_cli("run", "-q", "-o", str(report), "strict.py", cwd=tmp_path, env=env, check=True)
    assert "export failed: " in proc.stdout
    (log_file,) = (tmp_path / "trace").glob("*.log")
    failing = [m for m in raw(log_file, "compilation_metrics") if m["compilation_metrics"].get("fail_type")]
    assert len(failing) == 1 and failing[0].get("frame_id") is None  # the raw log's own count
    for source in (report, tmp_path / "imported.inspectc"):
        if source != report:
            run_cli("import", str(log_file), "-o", str(source), check=True)
        data = json.loads(run_cli("export", str(source), check=True).stdout)
        failed = [f for f in data["frames"] if f["failure"]]
        assert len(failed) == len(failing), data["frames"]
        assert failed[0]["function"] == "forward" and failed[0]["status"] == "failed"
        assert failed[0]["failure"]["graph_break"]["gb_type"] == "Data-dependent branching"
        assert not [f for f in data["frames"] if f["status"] == "compiling"]
        gate = run_cli("check", "--fail-on-error", str(source))
        assert gate.returncode == 1 and "forward() failed to compile" in gate.stdout
