"""The report tells the whole truth about a real TORCH_TRACE log (issue 15).

Every test here reads real logs: torch 2.13 ones in ``tests/data/logs`` (``make_logs.py``) and
``tests/data/fidelity`` (see its README), other people's in ``../shared/traces``. What the
report says is compared with the log's own records, read by the parsers directly or counted by
``tests/rawcount.py`` (written apart from inspectc).
"""

from __future__ import annotations

from pathlib import Path

from conftest import ROOT

from inspectc.capture.importer import import_logs
from inspectc.model import CompileId
from inspectc.store.open import open_report
from inspectc.store.reader import Report
from inspectc.trace.payloads.breaks import parse_break
from inspectc.trace.payloads.guards import parse_guards
from inspectc.trace.records import compile_id, event_name, parse_file

DATA = ROOT / "tests" / "data"
FIDELITY = DATA / "fidelity"


def imported(log: Path, tmp_path: Path) -> Report:
    out = tmp_path / (log.stem + ".inspectc")
    import_logs(log, out)
    return open_report(out)


def payloads(log: Path, name: str) -> list[tuple[str | None, str]]:
    records, _ = parse_file(log)
    return [(compile_id(r.metadata), r.payload or "") for r in records if event_name(r.metadata) == name]


# -- parse into the model: nothing parsed is dropped on the way (issue 14) -----------------------
def test_guards_reach_the_report_whole(tmp_path: Path) -> None:
    log = FIDELITY / "skip_and_hints.log"
    raw = payloads(log, "dynamo_cpp_guards_str")
    assert raw
    with imported(log, tmp_path) as report:
        for cid, text in raw:
            frame = report.frame(CompileId.parse(cid or ""))
            assert frame is not None
            assert frame.guards == tuple(parse_guards(text))
        guards = [g for f in report.frames for g in f.guards]
        assert any(g.hint == "type MLP" for g in guards)  # "(HINT: type MLP)" on the module
        assert any(g.function == "forward" and g.line is not None for g in guards)


def test_graph_breaks_keep_debug_context_and_frame_skipped(tmp_path: Path) -> None:
    log = FIDELITY / "skip_and_hints.log"
    raw = [parse_break(text) for _, text in payloads(log, "artifact:dynamo_graph_break_reason")]
    assert [b.frame_skipped for b in raw] == [False, True]
    with imported(log, tmp_path) as report:
        got = [gb for f in report.frames for gb in f.graph_breaks]
        assert [(b.reason, b.debug_context, b.frame_skipped, b.raw) for b in got] == [
            (b.reason, b.debug_context, b.frame_skipped, b.raw) for b in raw
        ]
        assert all(b.debug_context for b in got)
