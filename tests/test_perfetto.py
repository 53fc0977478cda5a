"""`inspectc export --perfetto`: loaded by Perfetto's own trace processor (the engine of
ui.perfetto.dev, run offline from its WebAssembly build: tests/perfetto_wasm.py).

Compile phases are checked against an independent count of the raw log's chromium_event
records (tests/rawcount.py); kernel slices against the report's measured times.
"""

from __future__ import annotations

import collections
import json
from pathlib import Path

import pytest
import rawcount
from conftest import run_cli
from perfetto_wasm import WasmTraceProcessor

LOGS = Path(__file__).parent / "data" / "logs"


def _load(trace: Path) -> WasmTraceProcessor:
    return WasmTraceProcessor(trace=str(trace))


def _slices(tp: WasmTraceProcessor, thread_like: str) -> list[dict]:
    sql = (
        "select s.name, s.ts, s.dur, s.depth, t.name as thread, p.pid from slice s "
        "join thread_track tt on s.track_id = tt.id join thread t using(utid) "
        f"left join process p using(upid) where t.name like '{thread_like}' order by s.ts"
    )
    return [dict(r.__dict__) for r in tp.query(sql)]


def _raw_spans(log: Path) -> tuple[collections.Counter[str], dict[str, float]]:
    """Begin events per name, and the first entire_frame_compile's duration (us), from the log."""
    begins: collections.Counter[str] = collections.Counter()
    opened: dict[str, float] = {}
    first: dict[str, float] = {}
    for rec, payload in rawcount.iter_payloads(log):
        if "chromium_event" not in rec or not payload:
            continue
        ev = json.loads(payload)
        if ev.get("ph") == "B":
            begins[ev["name"]] += 1
            opened.setdefault(ev["name"], ev["ts"])
        elif ev.get("ph") == "E" and ev["name"] in opened and ev["name"] not in first:
            first[ev["name"]] = ev["ts"] - opened[ev["name"]]
    return begins, first


@pytest.fixture(scope="module")
def training_trace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("perfetto")
    report = tmp / "training.inspectc"
    run_cli("import", str(LOGS / "training" / "trace.log"), "-o", str(report), check=True)
    out = tmp / "training.json"
    proc = run_cli("export", str(report), "--perfetto", str(out))
    assert proc.returncode == 0, proc.stderr
    return out


def test_compile_phases_match_the_raw_log(training_trace: Path) -> None:
    begins, first = _raw_spans(LOGS / "training" / "trace.log")
    tp = _load(training_trace)
    try:
        bad = [
            dict(r.__dict__)
            for r in tp.query("select name, value from stats where value > 0 and severity != 'info'")
        ]
        assert bad == []  # nothing dropped, nothing misnested
        compile_slices = _slices(tp, "compile")
        got = collections.Counter(s["name"] for s in compile_slices)
        assert got == begins
        efc = next(s for s in compile_slices if s["name"] == "entire_frame_compile")
        assert efc["depth"] == 1  # inside Dynamo's "dynamo" span, as torch nests them
        assert {s["name"] for s in compile_slices if s["depth"] == 0} >= {"dynamo"}
        assert efc["dur"] == pytest.approx(first["entire_frame_compile"] * 1000, abs=2)  # ns
    finally:
        tp.close()


def test_kernel_times_of_forward_and_backward(golden: Path, tmp_path: Path) -> None:
    from inspectc.store.open import open_report

    out = tmp_path / "mlp.json"
    proc = run_cli("export", str(golden / "mlp_train.inspectc"), "--perfetto", str(out))
    assert proc.returncode == 0, proc.stderr
    with open_report(golden / "mlp_train.inspectc") as report:
        timed = {(k.graph_kind, k.name): k.time.mean_us for k in report.kernels if k.time}
    tp = _load(out)
    try:
        kernels = [s for s in _slices(tp, "kernels %") if s["depth"] == 1]
        threads = {s["thread"] for s in kernels}
        assert threads == {"kernels 0/0 forward", "kernels 0/0 backward"}
        assert len(kernels) == len(timed)
        for s in kernels:
            kind = "output_code_backward" if s["thread"].endswith("backward") else "output_code"
            assert s["dur"] == pytest.approx(timed[(kind, s["name"])] * 1000, abs=2)
        assert not list(tp.query("select * from stats where value > 0 and severity = 'error'"))
    finally:
        tp.close()


def test_ranks_are_processes(tmp_path: Path) -> None:
    report = tmp_path / "ranks.inspectc"
    run_cli("import", str(LOGS / "ranks4"), "-o", str(report), check=True)
    out = tmp_path / "ranks.json"
    assert run_cli("export", str(report), "--perfetto", str(out)).returncode == 0
    tp = _load(out)
    try:
        names = {r.name for r in tp.query("select name from process where name like 'rank %'")}
        assert names == {"rank 0", "rank 1", "rank 2", "rank 3"}
    finally:
        tp.close()


def test_refuses_a_file_it_did_not_write(golden: Path, tmp_path: Path) -> None:
    mine = tmp_path / "notes.json"
    mine.write_text('{"mine": true}')
    proc = run_cli("export", str(golden / "sin_sin.inspectc"), "--perfetto", str(mine))
    assert proc.returncode == 2 and "refusing to overwrite" in proc.stderr
    assert mine.read_text() == '{"mine": true}'
