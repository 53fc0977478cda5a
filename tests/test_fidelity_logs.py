"""Nothing merged or lost silently, on real logs (issue 15 items 1, 2, 4, 5, 6, 9, 10).

Logs: tests/data/logs (torch 2.13 CPU, tests/data/make_logs.py) and ../shared/traces
(tlparse's inputs, older torch). Each figure is compared with tests/rawcount.py's count of
the raw log, never with inspectc's own parser. Crafted inputs are copies of real logs,
renamed or with records removed, as another torch version or a careless copy would leave them.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
import rawcount
from conftest import ROOT, quick_first, run_cli

LOGS = ROOT / "tests" / "data" / "logs"


def imported(source: Path, tmp_path: Path, name: str = "r") -> tuple[Path, dict[str, Any], str]:
    report = tmp_path / f"{name}.inspectc"
    run_cli("import", str(source), "-o", str(report), check=True)
    data = json.loads(run_cli("export", str(report), "--json", check=True).stdout)
    return report, data, run_cli("summary", str(report), check=True).stdout


def all_kernels(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [k for f in data["frames"] for k in f["kernels"]]


def headline_kernels(summary: str) -> int:
    found = re.search(r" (\d+) kernels[ ,]", summary.splitlines()[0])
    assert found, summary.splitlines()[0]
    return int(found.group(1))


# -- 1. ranks --------------------------------------------------------------------------
def test_ranks_are_decided_once_and_count_alike(tmp_path: Path) -> None:
    _, data, summary = imported(LOGS / "ranks4", tmp_path)
    logs = sorted((LOGS / "ranks4").glob("rank_*.log"))
    raw = {rawcount.summary(p)["ranks"][0]: rawcount.summary(p) for p in logs}
    assert sorted({f["rank"] for f in data["frames"]}) == sorted(raw) == [0, 1, 2, 3]
    for rank, counts in raw.items():
        frames = [f for f in data["frames"] if f["rank"] == rank]
        assert len(frames) == counts["dynamo_starts"]
        generated = [k for f in frames for k in f["kernels"] if k["language"] != "extern"]
        assert len(generated) == counts["kernels"]
        assert all(k["rank"] == rank for f in frames for k in f["kernels"])
    assert headline_kernels(summary) == len(all_kernels(data))  # the summary counts what the JSON lists


def test_a_log_whose_records_name_another_rank_imports_as_its_name_says(tmp_path: Path) -> None:
    """tlparse's multi_rank_runtime/_schedule folders hold such copies: read as the name's rank,
    with a one-line warning (issue 27); the file alone imports the same way."""
    folder = tmp_path / "logs"
    folder.mkdir()
    for n in (0, 1):
        shutil.copyfile(LOGS / "ranks4" / f"rank_{n}.log", folder / f"rank_{n}.log")
    shutil.copyfile(LOGS / "ranks4" / "rank_1.log", folder / "rank_5.log")  # renamed by hand
    raw = rawcount.summary(folder / "rank_5.log")
    for source, name in ((folder, "r"), (folder / "rank_5.log", "alone")):
        proc = run_cli("import", str(source), "-o", str(tmp_path / f"{name}.inspectc"))
        assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
        (line,) = [x for x in proc.stderr.splitlines() if "warning" in x]
        assert "rank_5.log" in line and "rank 1" in line and "rank 5" in line
        data = json.loads(run_cli("export", str(tmp_path / f"{name}.inspectc"), "--json", check=True).stdout)
        five = [f for f in data["frames"] if f["rank"] == 5]
        assert len(five) == raw["frames"]


def test_records_of_two_ranks_in_one_log_are_refused(tmp_path: Path) -> None:
    """rank_1's records appended to rank_0's log (past the lines import peeks at first)."""
    folder = tmp_path / "logs"
    folder.mkdir()
    both = (LOGS / "ranks4" / "rank_0.log").read_text() + (LOGS / "ranks4" / "rank_1.log").read_text()
    (folder / "rank_0.log").write_text(both)
    proc = run_cli("import", str(folder), "-o", str(tmp_path / "r.inspectc"))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert "rank_0.log" in line and "records of rank 1" in line
    assert not (tmp_path / "r.inspectc").exists()


def test_two_logs_of_one_rank_are_refused(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    shutil.copyfile(LOGS / "ranks4" / "rank_1.log", folder / "rank_1.log")
    shutil.copyfile(LOGS / "ranks4" / "rank_1.log", folder / "copy.log")  # no rank in its name
    proc = run_cli("import", str(folder), "-o", str(tmp_path / "r.inspectc"))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert "copy.log" in line and "rank_1.log" in line and "rank 1" in line


# -- 2. one compile id seen more than once ----------------------------------------------
def test_a_compile_id_started_again_is_its_own_entry(tmp_path: Path) -> None:
    log = LOGS / "cache_seq" / "trace.log"
    _, data, summary = imported(log, tmp_path)
    raw = rawcount.summary(log)
    frames = data["frames"]
    assert [f["compile_id"] for f in frames] == ["0/0", "0/0#2", "0/0#3"]
    assert len(frames) == raw["dynamo_starts"] == raw["compilation_metrics"]
    assert [f["id"]["occurrence"] for f in frames] == [1, 2, 3]
    assert [f["cache"]["fx_graph"] for f in frames] == ["miss", "hit", "miss"]  # the hit is kept
    assert [len(f["kernels"]) for f in frames] == [1, 1, 1]
    assert len(all_kernels(data)) == raw["kernels"] == headline_kernels(summary) == 3
    times = [f["compile_time_s"] for f in frames]
    assert len(set(times)) == 3  # three compiles, three times (none overwritten)


def test_a_restart_counts_its_attempts(tmp_path: Path) -> None:
    log = LOGS / "restart" / "trace.log"
    _, data, _ = imported(log, tmp_path)
    raw = rawcount.summary(log)
    by_id = {f["compile_id"]: f for f in data["frames"]}
    assert len(by_id) == raw["frames"] == raw["dynamo_starts"]
    attempts = {
        (r["frame_id"], r["frame_compile_id"], r.get("attempt", 0))
        for r in rawcount.records(log)
        if "frame_id" in r
    }
    for cid, frame in by_id.items():
        fid, n = map(int, cid.split("/"))
        assert frame["attempts"] == sum(1 for a in attempts if a[:2] == (fid, n))
    assert by_id["0/0"]["attempts"] == 2 and by_id["0/0"]["graphs"]["dynamo"]  # attempt 1's graph
    assert len(by_id["0/0"]["graph_breaks"]) == 1  # attempt 0's break


# -- 4. the post-grad graph under every name ----------------------------------------------
@pytest.mark.parametrize(
    "source, cid",
    quick_first(
        [
            ("logs:cache_seq/trace.log", "0/0#2"),  # envelope, on an FX-graph-cache hit
            ("shared:inductor_provenance_jit_log.txt", "0/0"),  # artifact after_post_grad_graph (2.8)
            ("shared:simple.log", "0/0"),  # envelope inductor_post_grad_graph
            ("logs:cache_seq/trace.log", "0/0"),  # artifact inductor_post_grad_graph (2.10+)
        ]
    ),
)
def test_graph_frame_finds_the_post_grad_graph(
    source: str, cid: str, tmp_path: Path, traces_dir: Path
) -> None:
    where, name = source.split(":")
    report, data, _ = imported((traces_dir if where == "shared" else LOGS) / name, tmp_path)
    frame = next(f for f in data["frames"] if f["compile_id"] == cid)
    assert frame["graphs"]["post_grad"]
    out = tmp_path / "f.dot"
    proc = run_cli("graph", str(report), "--frame", cid, "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "has no post_grad graph" not in proc.stderr and out.read_text().startswith(("digraph", "strict"))


# -- 5. one recompile, a list of failed guards ------------------------------------------
def test_a_recompile_lists_its_failed_guards(tmp_path: Path) -> None:
    log = LOGS / "multi_recompile" / "trace.log"
    report, data, summary = imported(log, tmp_path)
    raw = [
        r for r in rawcount.iter_payloads(log) if rawcount.event_name(r[0]) == "artifact:recompile_reasons"
    ]
    assert len(raw) == rawcount.summary(log)["recompiles"] == 3
    by_id = {f["compile_id"]: f for f in data["frames"]}
    for meta, payload in raw:
        frame = by_id[f"{meta['frame_id']}/{meta['frame_compile_id']}"]
        (recompile,) = frame["recompiles"]
        listed = json.loads(payload) if payload.startswith("[") else [payload]
        assert [g["text"] for g in recompile["failed"]] == listed
        assert len(frame["recompile_reasons"]) == 1
    assert sum(len(f["recompiles"]) for f in data["frames"]) == 3
    section = summary.split("Recompiles (3)\n", 1)[1].split("\n\n", 1)[0]
    assert len(re.findall(r"^  0/\d ", section, re.M)) == 3
    assert "3 cache entries failed their guards" in section
    proc = run_cli("check", str(report), "--max-recompiles", "2")
    assert proc.returncode == 1 and "3" in proc.stdout + proc.stderr


# -- 6. a reason is never cut; the user's words first ------------------------------------
def test_the_users_words_and_whole_reasons(tmp_path: Path) -> None:
    report, data, summary = imported(LOGS / "messages" / "trace.log", tmp_path)
    (line,) = [x for x in summary.splitlines() if "messages.py:6" in x and "×" in x]
    said = '"the sensor read needs eager mode see docs/sensors.md"'
    assert said in line and line.index(said) < line.index("Call to")
    failed = summary.split("Failed frames (1)\n", 1)[1].splitlines()[0]
    assert "backend='broken' raised:" in failed and "RuntimeError: broken backend" in failed
    assert "its second line" in failed
    (frame,) = [f for f in data["frames"] if f["failure"]]
    assert (
        frame["failure"]["reason"]
        == "backend='broken' raised:\nRuntimeError: broken backend\nits second line"
    )
    out = tmp_path / "b.dot"
    run_cli("graph", str(report), "--breaks", "-o", str(out), check=True)
    picture = out.read_text()
    assert "the sensor read needs eager mode see docs/sensors.md" in picture
    assert "RuntimeError: broken backend" in picture


# -- 9. artifacts surfaced -----------------------------------------------------------------
def test_fx_graph_cache_keys_are_surfaced(tmp_path: Path, traces_dir: Path) -> None:
    _, data, summary = imported(traces_dir / "artifacts.log", tmp_path, "a")
    assert "FX graph cache keys (1)" in summary and len(data["cache_keys"]) == 1
    log = LOGS / "cache_seq" / "trace.log"
    _, data, _ = imported(log, tmp_path, "c")
    keys = [
        json.loads(p)["key"]
        for m, p in rawcount.iter_payloads(log)
        if rawcount.event_name(m) in ("artifact:fx_graph_cache_miss", "artifact:fx_graph_cache_hit")
    ]
    assert [f["metrics"]["extra"]["fx_graph_cache_key"] for f in data["frames"]] == keys


# -- 10. never null where the JSON export (docs/json.md) says str / int ---------------------
def test_a_break_read_from_restart_reasons_has_a_place(tmp_path: Path) -> None:
    """Older torch logged no dynamo_graph_break_reason: the restart log without them."""
    lines = (LOGS / "restart" / "trace.log").read_text().splitlines(keepends=True)
    kept: list[str] = []
    skipping = False
    for line in lines:
        if line.startswith("\t"):
            if not skipping:
                kept.append(line)
            continue
        skipping = '"name": "dynamo_graph_break_reason"' in line
        if not skipping:
            kept.append(line)
    log = tmp_path / "older" / "trace.log"
    log.parent.mkdir()
    log.write_text("".join(kept))
    assert rawcount.summary(log)["graph_breaks"] == 0
    _, data, _ = imported(log, tmp_path)
    breaks = [gb for f in data["frames"] for gb in f["graph_breaks"]]
    assert len(breaks) == 2  # from compilation_metrics' restart_reasons
    for gb in breaks:
        assert isinstance(gb["reason"], str) and gb["reason"]
        assert isinstance(gb["filename"], str) and isinstance(gb["line"], int)
        assert isinstance(gb["hints"], list) and isinstance(gb["user_stack"], list)
    for group in data["graph_breaks"]:
        assert isinstance(group["filename"], str) and isinstance(group["line"], int)


def test_compiled_autograd_and_dump_file_records_are_read(tmp_path: Path) -> None:
    log = LOGS / "rare" / "trace.log"
    _, data, _ = imported(log, tmp_path)
    raw = {rawcount.event_name(m): p for m, p in rawcount.iter_payloads(log)}
    (autograd,) = [f for f in data["frames"] if f["compile_id"] == "!0"]
    assert (
        autograd["status"] == "ok"
        and autograd["graphs"]["compiled_autograd"] == raw["compiled_autograd_graph"]
    )
    dumped = sum(1 for m in rawcount.records(log) if rawcount.event_name(m) == "dump_file")
    assert sum(a["count"] for a in data["artifacts"] if a["name"] == "dump_file") == dumped == 2
