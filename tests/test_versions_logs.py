"""torch 2.11-2.14 logs counted as torch wrote them (issue 43), on real logs of each version.

Logs: tests/data/logs/versions/<torch>/<scenario>.log.gz, made by tests/data/make_version_logs.py
under torch 2.11.0, 2.12.1, 2.13.0 and 2.14.1 (CPU). Every figure is compared with a count of the
raw log made here or by tests/rawcount.py (json over the TORCH_TRACE lines), never with
inspectc's own parser.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import rawcount
from conftest import ROOT, run_cli

from inspectc.analysis.views import totals
from inspectc.capture.importer import import_logs
from inspectc.store.open import open_report

VERSIONS = ROOT / "tests" / "data" / "logs" / "versions"
LOGS = sorted(VERSIONS.glob("*/*.log.gz"))
_LEAF = re.compile(r"^(?:\| )*\+- (\S+?)(?::|\s|$)")


def _id(log: Path) -> str:
    return f"{log.parent.name}-{log.name.removesuffix('.log.gz')}"


def logs(scenario: str) -> list[Path]:
    return [p for p in LOGS if p.name == f"{scenario}.log.gz"]


def _read(log: Path, tmp_path: Path) -> Any:
    out = tmp_path / f"{_id(log)}.inspectc"
    import_logs(log, out)
    return open_report(out)


def _raw_guard_leaves(payload: str) -> int:
    """Guards in a raw guard tree: its ``+-`` lines that are no manager (a line of a repr that
    spans lines starts with no ``+-``)."""
    heads = (_LEAF.match(line) for line in payload.splitlines())
    return sum(1 for m in heads if m is not None and not m.group(1).endswith("Manager"))


def _key(meta: dict[str, Any]) -> str | None:
    fid, cid = meta.get("frame_id"), meta.get("frame_compile_id")
    return None if fid is None or cid is None else rawcount.compile_key(meta)


def test_every_version_has_its_logs() -> None:
    made = {p.name for p in VERSIONS.iterdir() if p.is_dir()}
    assert {"2.11.0", "2.12.1", "2.13.0", "2.14.1"} <= made, made
    counts = json.loads((VERSIONS / "counts.json").read_text())
    assert sorted(counts) == sorted(f"{p.parent.name}/{p.name}" for p in LOGS)


@pytest.mark.parametrize("log", LOGS, ids=_id)
def test_the_headline_counts_the_frames_dynamo_started(log: Path, tmp_path: Path) -> None:
    """Frames = ``dynamo_start`` records; compiled autograd's graphs, strict export traces and
    compile ids refused at the recompile limit are counted on their own, never as frames."""
    recs = rawcount.records(log)
    starts = [r for r in recs if "dynamo_start" in r]
    started = {_key(r) for r in starts}
    autograd = {r["compiled_autograd_id"] for r in recs if "compiled_autograd_graph" in r}
    metrics = [r["compilation_metrics"] for r in recs if "compilation_metrics" in r]
    limit = [
        m for m in metrics if m.get("compile_id") and "recompile limit" in str(m.get("fail_reason")).lower()
    ]
    limit = [m for m in limit if not any(_key(r) and _key(r).endswith(m["compile_id"]) for r in starts)]
    exported = [m for m in metrics if m.get("compile_id") is None] if not starts else []
    with _read(log, tmp_path) as report:
        t = totals(report.frames)
    assert t.frames == len(starts), (t, len(starts), started)
    assert t.autograd_graphs == len(autograd)
    assert t.limit_hits == len(limit)
    assert t.export_traces == len(exported)


@pytest.mark.parametrize("log", LOGS, ids=_id)
def test_every_guard_is_one_guard(log: Path, tmp_path: Path) -> None:
    """torch 2.11/2.12 print ``type=<repr>`` after an ID_MATCH guard; an optimizer's or a
    Parameter's repr spans lines, which read as fake CODE guards (6 guards listed as 17)."""
    trees: dict[str | None, int] = {}
    for meta, payload in rawcount.iter_payloads(log):
        if "dynamo_cpp_guards_str" in meta and payload:
            trees[_key(meta)] = _raw_guard_leaves(payload)
    if not trees:
        pytest.skip("no guard tree in this log")
    with _read(log, tmp_path) as report:
        listed = {f.compile_id.text: f.guards for f in report.frames if f.guards}
        for key, count in trees.items():
            if key is None:  # a strict export's tree carries no compile id: its one frame's
                (guards,) = [f.guards for f in report.frames if f.kind == "export"]
            else:
                guards = listed[key]
            assert len(guards) == count, key
            assert not [g for g in guards if g.kind == "CODE"], key


@pytest.mark.parametrize("log", logs("optim_step"), ids=_id)
def test_an_optimizer_guard_keeps_its_place(log: Path, tmp_path: Path) -> None:
    """The repr after ``type=`` ends with the guard's location comment: it stays the guard's."""
    with _read(log, tmp_path) as report:
        guards = [
            g for f in report.frames for g in f.guards if g.kind == "ID_MATCH" and "Adam" in (g.code or "")
        ]
    multi = [g for g in guards if "\n" in (g.code or "")]
    if not multi:
        pytest.skip("this torch prints no repr after ID_MATCH")
    assert all(g.filename and g.line for g in multi)


def _raw_backends(log: Path) -> list[tuple[str, str]]:
    found = []
    for meta, payload in rawcount.iter_payloads(log):
        if meta.get("artifact", {}).get("name") == "recompile_reasons":
            for old, new in re.findall(
                r"Cached backend: .*?compiler='(\w+)'.*?New backend: .*?compiler='(\w+)'", payload or ""
            ):
                found.append((old, new))
    return found


@pytest.mark.parametrize("log", logs("backend_mix"), ids=_id)
def test_a_backend_change_names_both_backends(log: Path, tmp_path: Path) -> None:
    raw = _raw_backends(log)
    if not raw:
        pytest.skip("this torch logs no BACKEND_MATCH reason")
    report = tmp_path / "r.inspectc"
    run_cli("import", str(log), "-o", str(report), check=True)
    summary = run_cli("summary", str(report), check=True).stdout
    lines = [x for x in summary.splitlines() if "BACKEND_MATCH" in x]  # its section, what to fix first
    old, new = raw[0]
    assert lines and all(f"from {old} to {new}" in line for line in lines), lines


@pytest.mark.parametrize("log", logs("backend_mix"), ids=_id)
def test_two_runs_of_one_script_diff_and_check_the_same(log: Path, tmp_path: Path) -> None:
    """Two runs of one unchanged script (their guards name other object ids, their scripts sit in
    other temp folders): ``diff`` finds nothing structural and ``check`` says the same of both."""
    again = log.with_name("backend_mix_again.log.gz")
    a, b = tmp_path / "a.inspectc", tmp_path / "b.inspectc"
    run_cli("import", str(log), "-o", str(a), check=True)
    run_cli("import", str(again), "-o", str(b), check=True)
    diff = run_cli("diff", str(a), str(b))
    assert diff.returncode == 0 and "No structural differences" in diff.stdout, diff.stdout
    starts = sum(1 for r in rawcount.records(log) if "dynamo_start" in r)
    for report in (a, b):
        gate = run_cli("check", "--max-frames", str(starts), "--max-recompiles", "1", str(report))
        assert gate.returncode == 0, gate.stdout


@pytest.mark.parametrize("log", logs("breaks"), ids=_id)
def test_an_unresumable_break_reads_as_its_break(log: Path, tmp_path: Path) -> None:
    """'Encountered graph break that we cannot resume from. ... Graph break encountered:' is a
    preamble: the break is the gb block after it, as for any other break."""
    raw = []
    for meta, payload in rawcount.iter_payloads(log):
        if meta.get("artifact", {}).get("name") == "dynamo_graph_break_reason" and "cannot resume" in (
            payload or ""
        ):
            after = (payload or "").split("Graph break encountered:", 1)[1]
            raw.append(next(line.strip() for line in after.splitlines() if line.strip()))
    if not raw:
        pytest.skip("no unresumable break in this log")
    with _read(log, tmp_path) as report:
        breaks = [gb for f in report.frames for gb in f.graph_breaks if "cannot resume" in gb.raw]
    assert [gb.gb_type for gb in breaks] == raw
    assert not [gb for gb in breaks if "Graph break encountered" in gb.reason]


@pytest.mark.parametrize("log", logs("breaks"), ids=_id)
def test_suggest_lists_the_tolist_break(log: Path, tmp_path: Path) -> None:
    raw = [
        p
        for m, p in rawcount.iter_payloads(log)
        if "tolist()" in (p or "") and "dynamo_graph_break_reason" in json.dumps(m)
    ]
    assert raw  # every version breaks on a float tensor's .tolist()
    report = tmp_path / "r.inspectc"
    run_cli("import", str(log), "-o", str(report), check=True)
    listed = run_cli("suggest", "--list", str(report), check=True).stdout
    assert ".tolist()" in listed and "tolist() with" in listed
