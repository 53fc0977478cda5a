"""Multi-rank analyses on a real torchrun log (tests/data/logs/ranks3_diverge: 3 gloo ranks,
a deliberate divergence, made by tests/data/make_logs.py): cache hit/miss, collective
schedules and parity, execution order, tensor metadata, in summary, JSON, check and share.

Expected values come from the raw logs (tests/rawcount.py reads them), not from inspectc.
Every rank also recompiles on an object id (``___check_obj_id(fn.__code__, 1401...)``),
which differs in every process: that must not be reported as a divergence.
"""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

import pytest
import rawcount
from conftest import run_cli

from inspectc.analysis.ranks import normalise_reason

LOGS = Path(__file__).parent / "data" / "logs" / "ranks3_diverge"


def _raw() -> dict[int, dict[str, object]]:
    """Per rank, from the log: FX cache status by frame id, collectives scheduled, graphs run."""
    out: dict[int, dict[str, object]] = {}
    for log in sorted(LOGS.glob("rank_*.log")):
        rank = int(log.stem.split("_")[1])
        cache: dict[int, str] = {}
        collectives = 0
        ran = 0
        for rec, payload in rawcount.iter_payloads(log):
            name = (rec.get("artifact") or {}).get("name") if isinstance(rec.get("artifact"), dict) else None
            if name in ("fx_graph_cache_hit", "fx_graph_cache_miss"):
                cache[rec["frame_id"]] = name.rsplit("_", 1)[1]
            elif name == "inductor_collective_schedule":
                collectives += sum(1 for op in json.loads(payload or "[]") if "wait_tensor" not in op)
            elif name == "graph_execution":
                ran += len(json.loads(payload or "{}")["graph_execution_order"])
        out[rank] = {"cache": cache, "collectives": collectives, "ran": ran}
    return out


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("ranks3") / "ranks3.inspectc"
    run_cli("import", str(LOGS), "-o", str(out), check=True)
    return out


@pytest.fixture(scope="module")
def diffs(report: Path) -> list[dict]:
    proc = run_cli("export", str(report), "--json", "--no-source")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["rank_differences"]


def _of(diffs: list[dict], kind: str) -> list[dict]:
    return [d for d in diffs if d["kind"] == kind]


def test_cache_divergence_is_the_logs(diffs: list[dict]) -> None:
    raw = _raw()
    frames = sorted({fid for r in raw.values() for fid in r["cache"]})  # type: ignore[attr-defined]
    expected = 0
    for fid in frames:
        statuses = {rank: r["cache"].get(fid) for rank, r in raw.items()}  # type: ignore[attr-defined]
        if len(set(statuses.values())) > 1:
            expected += 1
            odd = [rank for rank, s in statuses.items() if list(statuses.values()).count(s) == 1]
            assert any(d["ranks_with"] == odd for d in _of(diffs, "cache")), (fid, statuses)
    assert expected == 2 and len(_of(diffs, "cache")) == expected


def test_collectives_schedule_parity_and_execution_order(diffs: list[dict]) -> None:
    raw = _raw()
    (parity,) = _of(diffs, "collectives_parity")
    scheduled = {rank: r["collectives"] for rank, r in raw.items() if r["collectives"]}
    assert {int(k): v for k, v in parity["per_rank"].items() if v != "not recorded"} == scheduled
    assert scheduled == {1: 2, 2: 1}  # rank 0's graph came from the cache: no schedule logged
    (schedule,) = _of(diffs, "collective_schedule")
    assert schedule["per_rank"]["0"].startswith("not recorded (FX graph cache hit)")
    assert len(schedule["per_rank"]["1"]) == 4 and len(schedule["per_rank"]["2"]) == 2
    (order,) = _of(diffs, "execution_order")
    assert order["ranks_with"] == [0]
    assert [int(v.split()[0]) for v in order["per_rank"].values()] == [raw[r]["ran"] for r in (0, 1, 2)]
    assert _of(diffs, "tensor_meta")


def test_object_ids_are_not_divergence(diffs: list[dict], report: Path) -> None:
    logs = "".join(p.read_text() for p in LOGS.glob("rank_*.log"))
    ids = set(re.findall(r"___check_obj_id\(fn\.__code__, (\d+)\)", logs))
    assert len(ids) == 3  # one per process: the raw reasons do differ
    assert not _of(diffs, "recompile_reason") and not _of(diffs, "recompile")
    assert normalise_reason("___check_obj_id(fn.__code__, 140118962476784), type=<class 'code'>") == (
        "___check_obj_id(fn.__code__, <id>), type=<class 'code'>"
    )
    assert normalise_reason("<function f at 0x7f3a2b1c4d50>") == "<function f at <address>>"


@pytest.mark.slow
def test_summary_check_and_share(report: Path, tmp_path: Path) -> None:
    summary = run_cli("summary", str(report)).stdout
    for kind in ("cache", "collective_schedule", "collectives_parity", "execution_order", "tensor_meta"):
        assert f"  {kind} " in summary, kind
    failed = run_cli("check", str(report), "--fail-on-rank-differences", "--json")
    assert failed.returncode == 1
    violation = json.loads(failed.stdout)["violations"][0]
    assert violation["what"] == "rank_differences" and violation["count"] >= 7
    only_reasons = run_cli("check", str(report), "--fail-on-rank-differences", "recompile_reason")
    assert only_reasons.returncode == 0, only_reasons.stdout
    bad = run_cli("check", str(report), "--fail-on-rank-differences", "cache,nope")
    assert bad.returncode == 2 and "unknown kind nope" in bad.stderr
    share = run_cli("share", str(report), "-o", str(tmp_path))
    assert share.returncode == 0, share.stderr
    md = next(tmp_path.glob("*.md")).read_text()
    assert "### Rank differences" in md and "collectives\\_parity" in md
    with zipfile.ZipFile(next(tmp_path.glob("*.zip"))) as bundle:
        assert bundle.namelist()
