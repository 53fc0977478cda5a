"""torch's chromium_event begins and ends pair into spans, also where they interleave.

Inductor's ``compile_file`` and ``async_compile.wait`` interleave on one thread; the
Perfetto export used to drop the ``async_compile.wait`` span as "unmatched" although the
log's begins and ends balance.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from conftest import run_cli

from inspectc.model.decode.chromium import compile_spans
from inspectc.render.perfetto import chrome_trace
from inspectc.store.open import open_report

INTERLEAVED = [  # as inductor_provenance_jit_log.txt has them (seq 77-82)
    ("B", "compile_file", 1.0),
    ("B", "async_compile.wait", 2.0),
    ("B", "compile_file", 3.0),
    ("E", "compile_file", 4.0),
    ("E", "compile_file", 5.0),
    ("E", "async_compile.wait", 6.0),
]


def events(rows: list[tuple[str, str, float]]) -> list[tuple[int, dict[str, Any]]]:
    return [(0, {"ph": ph, "name": name, "ts": ts, "tid": 0}) for ph, name, ts in rows]


def nests(spans: list[dict[str, Any]]) -> bool:
    """Every lane's complete events nest (what Perfetto needs of one thread)."""
    by_lane: dict[tuple[int, int], list[tuple[float, float]]] = {}
    for e in spans:
        if e["ph"] == "X":
            by_lane.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"]))
    for lane in by_lane.values():
        ends: list[float] = []
        for start, end in sorted(lane, key=lambda se: (se[0], -se[1])):
            while ends and ends[-1] <= start:
                ends.pop()
            if ends and end > ends[-1]:
                return False
            ends.append(end)
    return True


def test_interleaved_spans_all_pair() -> None:
    found = compile_spans(events(INTERLEAVED))
    assert found.dropped_ends == 0
    spans = sorted((e["name"], e["ts"], e["ts"] + e["dur"]) for e in found.events)
    assert spans == [
        ("async_compile.wait", 2.0, 6.0),
        ("compile_file", 1.0, 5.0),
        ("compile_file", 3.0, 4.0),
    ]
    assert nests(found.events) and len({e["tid"] for e in found.events}) == 2


def test_an_end_without_begin_is_counted_and_a_begin_without_end_is_unfinished() -> None:
    found = compile_spans(events([("E", "dynamo", 1.0), ("B", "inductor_compile", 2.0), ("i", "x", 3.0)]))
    assert found.dropped_ends == 1
    (span,) = [e for e in found.events if e["ph"] == "X"]
    assert span["args"]["unfinished"] is True and span["dur"] == 1.0


def test_a_shared_log_keeps_every_balanced_span(traces_dir: Path, tmp_path: Path) -> None:
    report = tmp_path / "jit.inspectc"
    run_cli("import", str(traces_dir / "inductor_provenance_jit_log.txt"), "-o", str(report), check=True)
    with open_report(report) as r:
        trace = chrome_trace(r)
    assert trace["otherData"]["unmatched_compile_ends"] == 0
    names = Counter(e["name"] for e in trace["traceEvents"] if e["ph"] == "X" and e.get("cat") != "kernel")
    assert names["async_compile.wait"] == 1 and names["compile_file"] == 2
    assert nests(trace["traceEvents"])
