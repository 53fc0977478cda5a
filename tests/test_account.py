"""Every structured-trace record accounted for: used by the model, or kept raw (issue 15).

Every log in ../shared/traces (tlparse's inputs, torch 2.4 to 2.9-era builds) and every log
under tests/data/logs (torch 2.13, tests/data/make_logs.py) is imported; the report's account
is compared, name by name, with ``tests/rawcount.py``'s independent count of the raw log, and
so are frames, graph breaks, recompiles, kernels and graphs. No record type torch 2.11-2.14
writes may be left unused.
"""

from __future__ import annotations

import collections
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
import rawcount
from conftest import ROOT, run_cli, shared_traces

from inspectc.capture.importer import import_logs
from inspectc.store.open import open_report

LOGS = ROOT / "tests" / "data" / "logs"

# Record types torch 2.11-2.14 writes (notes/trace-records.md §3-§9), by account name. The
# artifact names are open-ended (bytecode listings, AOT wrapper sources, pass names...):
# every ``artifact:`` and ``graph_dump:`` name counts as one of them.
TYPES_2_11_2_14 = frozenset(
    {
        "str",
        "dynamo_start",
        "dynamo_output_graph",
        "dynamo_guards",
        "dynamo_cpp_guards_str",
        "optimize_ddp_split_graph",
        "optimize_ddp_split_child",
        "compiled_autograd_graph",
        "aot_joint_graph",
        "aot_forward_graph",
        "aot_backward_graph",
        "aot_inference_graph",
        "inductor_post_grad_graph",
        "inductor_output_code",
        "compilation_metrics",
        "bwd_compilation_metrics",
        "compilation_metrics_runtime",
        "bwd_compilation_metrics_runtime",
        "chromium_event",
        "describe_storage",
        "describe_tensor",
        "describe_source",
        "symbolic_shape_specialization",
        "guard_added_fast",
        "create_symbol",
        "create_unbacked_symbol",
        "propagate_real_tensors_provenance",
        "guard_added",
        "expression_created",
        "export",
        "exported_program",
        "link",
    }
)


def in_2_11_2_14(name: str) -> bool:
    return name in TYPES_2_11_2_14 or name.startswith(("artifact:", "graph_dump:"))


def _sources() -> list[tuple[str, Path]]:
    """(test id, log file or rank folder): each one import."""
    found: list[tuple[str, Path]] = []
    shared = shared_traces()
    if shared is not None:
        found += [(f"shared/{p.name}", p) for p in sorted(shared.iterdir()) if p.suffix in (".log", ".txt")]
        found += [(f"shared/{p.name}", p) for p in sorted(shared.iterdir()) if p.is_dir()]
    for scenario in sorted(p for p in LOGS.iterdir() if p.is_dir()):
        logs = sorted(scenario.glob("*.log"))
        if scenario.name.startswith("ranks"):
            found.append((f"logs/{scenario.name}", scenario))
        else:  # export has trace.log and dtrace.log: two runs, imported one at a time
            found += [(f"logs/{scenario.name}/{p.name}", p) for p in logs]
    return found


SOURCES = _sources()


def raw_counts(source: Path) -> tuple[collections.Counter[str], dict[str, int]]:
    """rawcount's records by type and its summary, over the file or the folder's logs."""
    by_type: collections.Counter[str] = collections.Counter()
    summary: collections.Counter[str] = collections.Counter()
    for log in [source] if source.is_file() else sorted(source.glob("*.log")):
        by_type.update(rawcount.count_by_type(log))
        summary.update({k: v for k, v in rawcount.summary(log).items() if isinstance(v, int)})
    by_type.pop(rawcount.MALFORMED, None)  # skipped lines, not records
    return by_type, dict(summary)


@pytest.mark.parametrize("source", [s for _, s in SOURCES], ids=[i for i, _ in SOURCES])
def test_every_record_is_accounted_for(source: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.inspectc"
    import_logs(source, out)
    by_type, raw = raw_counts(source)
    with open_report(out) as report:
        account = report.account
        frames, kernels = report.frames, report.kernels
        graph_rows = collections.Counter(kind for f in frames for kind in f.graph_kinds)
    assert account.recorded and account.records == raw["records"] == sum(by_type.values())
    assert account.used_count + account.kept_raw_count == account.records
    both = collections.Counter(account.used) + collections.Counter(account.kept_raw)
    assert both == by_type  # name by name, as the raw count names them
    unused = {name: n for name, n in account.kept_raw.items() if in_2_11_2_14(name)}
    if source.name == "simple_corrupted_json.log":
        assert unused == {"chromium_event": 1}  # the one record whose JSON payload was cut
    else:
        assert unused == {}
    # One entry per compile Dynamo started; the rest as the raw log has them.
    assert len([f for f in frames if f.compile_id.frame is not None]) == raw["dynamo_starts"]
    # a compiled-autograd compile without Dynamo frame ids ("!0") is an entry of its own
    autograd = {(log, m["compiled_autograd_id"]) for log, m in _records(source) if _autograd_only(m)}
    assert len([f for f in frames if f.compile_id.frame is None]) == len(autograd)
    # torch before the break artifact (2024) wrote breaks only as restart reasons
    assert sum(len(f.graph_breaks) for f in frames) == (raw["graph_breaks"] or raw["restart_breaks"])
    assert sum(len(f.recompiles) for f in frames) == raw["recompiles"]
    assert sum(1 for k in kernels if k.language != "extern") == raw["kernels"]
    assert sum(n for kind, n in graph_rows.items() if kind.startswith("output_code")) == raw["output_code"]
    assert graph_rows["dynamo"] == by_type["dynamo_output_graph"]
    if raw["frames"] == raw["dynamo_starts"]:  # no id compiled twice: restarts add up
        assert sum(f.attempts for f in frames if f.compile_id.frame is not None) == raw["attempts"]


def _records(source: Path) -> list[tuple[Path, dict[str, Any]]]:
    logs = [source] if source.is_file() else sorted(source.glob("*.log"))
    return [(log, meta) for log in logs for meta in rawcount.records(log)]


def _autograd_only(meta: dict[str, Any]) -> bool:
    """A compiled-autograd compile with no Dynamo frame ids: its own entry ("!0")."""
    return isinstance(meta.get("compiled_autograd_id"), int) and "frame_id" not in meta


def crafted_log(tmp_path: Path) -> Path:
    """tests/data/logs/messages plus two records no torch writes (a plugin's, and an
    artifact with no name): they must be counted and shown as kept raw."""
    text = (LOGS / "messages" / "trace.log").read_text()
    prefix = "V1203 10:00:00.000000 4242 my_plugin.py:1] "
    extra = [
        {"my_plugin_event": {"n": 1}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0},
        {"my_plugin_event": {"n": 2}},
        {"artifact": {"encoding": "string"}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0},
    ]
    path = tmp_path / "crafted" / "trace.log"
    path.parent.mkdir()
    path.write_text(text + "".join(prefix + json.dumps(e) + "\n" for e in extra))
    return path


def test_summary_json_and_tui_count_alike(tmp_path: Path) -> None:
    log = crafted_log(tmp_path)
    report = tmp_path / "r.inspectc"
    run_cli("import", str(log), "-o", str(report), check=True)
    summary = run_cli("summary", str(report), check=True).stdout.rstrip().splitlines()
    data: dict[str, Any] = json.loads(run_cli("export", str(report), "--json", check=True).stdout)
    records = data["records"]
    total = sum(rawcount.count_by_type(log).values())
    assert records["records"] == total and records["kept_raw"] == 3
    assert records["kept_raw_by_name"] == {"my_plugin_event": 2, "artifact": 1}
    assert records["used"] == total - 3 == sum(records["used_by_name"].values())
    assert (
        summary[-1] == f"{total:,} records: {total - 3:,} used, 3 kept raw: my_plugin_event ×2, artifact ×1"
    )


@pytest.mark.parametrize("name", ["cache_seq/trace.log", "restart/trace.log"])
def test_json_record_figures_are_the_raw_counts(name: str, tmp_path: Path) -> None:
    report = tmp_path / "r.inspectc"
    run_cli("import", str(LOGS / name), "-o", str(report), check=True)
    data = json.loads(run_cli("export", str(report), "--json", check=True).stdout)
    by_type = rawcount.count_by_type(LOGS / name)
    assert data["records"]["used_by_name"] == dict(by_type) and data["records"]["kept_raw"] == 0
    last = run_cli("summary", str(report), check=True).stdout.rstrip().splitlines()[-1]
    assert re.fullmatch(
        rf"{sum(by_type.values()):,} records: {sum(by_type.values()):,} used, 0 kept raw", last
    )


def test_a_report_without_an_account_says_so(tmp_path: Path) -> None:
    old = ROOT / "tests" / "data" / "reports"
    v1 = next(iter(sorted(old.glob("*.inspectc"))), None)
    if v1 is None:
        pytest.skip("no committed older report")
    copy = tmp_path / v1.name
    shutil.copyfile(v1, copy)
    last = run_cli("summary", str(copy), check=True).stdout.rstrip().splitlines()[-1]
    assert last.startswith("records: not accounted")
