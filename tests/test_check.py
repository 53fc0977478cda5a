"""inspectc check: the CI gate on golden reports and imported shared logs (no torch needed)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import ROOT, run_cli


def check(*args: str) -> tuple[int, str, str]:
    proc = run_cli("check", *args)
    return proc.returncode, proc.stdout, proc.stderr


def test_within_limits(golden: Path) -> None:
    report = str(golden / "graph_breaks.inspectc")
    code, out, err = check(report, "--max-graph-breaks", "6", "--max-recompiles", "4", "--max-frames", "12")
    assert code == 0 and err == ""
    assert out.startswith("inspectc check: ok:") and "6 graph breaks (max 6)" in out


def test_exceeded_limits_are_listed(golden: Path) -> None:
    report = str(golden / "graph_breaks.inspectc")
    code, out, _ = check(report, "--max-graph-breaks", "2", "--max-recompiles", "0", "--max-frames", "20")
    assert code == 1
    assert "2 limit(s) exceeded" in out
    assert "graph breaks: 6 > 2 allowed" in out and "recompiles: 4 > 0 allowed" in out
    assert "frames:" not in out
    assert re.search(r"3× samples/graph_breaks\.py:\d+: Unsupported Tensor\.item\(\)", out)
    data = json.loads(check(report, "--max-graph-breaks", "2", "--json")[1])
    assert data["ok"] is False and data["counts"]["graph_breaks"] == 6
    assert [(v["what"], v["count"], v["limit"]) for v in data["violations"]] == [("graph_breaks", 6, 2)]


def test_fail_on_error(traces_dir: Path, tmp_path: Path) -> None:
    report = tmp_path / "failure.inspectc"
    run_cli("import", str(traces_dir / "comp_failure.log"), "-o", str(report), check=True)
    assert check(str(report))[0] == 0
    code, out, _ = check(str(report), "--fail-on-error")
    assert code == 1 and "failed to compile: BackendCompilerFailed" in out


def test_limits_apply_per_rank(traces_dir: Path, tmp_path: Path) -> None:
    report = tmp_path / "ranks.inspectc"
    run_cli("import", str(traces_dir / "multi_rank_logs"), "-o", str(report), check=True)
    code, out, _ = check(str(report), "--max-recompiles", "10", "--max-frames", "15")
    assert code == 1
    assert "recompiles: 14 on rank 1 > 10 allowed" in out  # not the 20 of all ranks together
    assert "frames:" not in out  # 15 frames on rank 1: within the limit


def test_json_counts_say_their_rank_and_the_total(tmp_path: Path) -> None:
    """ranks4: 2 frames on ranks 0, 1, 3 and 4 on rank 2 (issue 27: no unlabelled maxima)."""
    import rawcount

    logs = ROOT / "tests" / "data" / "logs" / "ranks4"
    report = tmp_path / "r4.inspectc"
    run_cli("import", str(logs), "-o", str(report), check=True)
    code, out, _ = check(str(report), "--json")
    data = json.loads(out)
    raw = {n: rawcount.summary(logs / f"rank_{n}.log") for n in range(4)}
    assert {int(r): c["frames"] for r, c in data["per_rank"].items()} == {
        n: c["frames"] for n, c in raw.items()
    }
    assert data["total"]["frames"] == sum(c["frames"] for c in raw.values())
    assert data["counts"]["frames"] == 4 and data["counts_rank"]["frames"] == 2
    assert data["total"]["graph_breaks"] == sum(c["graph_breaks"] for c in raw.values())
    code, out, _ = check(str(report))
    assert code == 0 and "frames rank 2" in out and "in total over 4 ranks" in out


@pytest.mark.parametrize("bad", [["--max-frames", "-1"], ["--max-frames", "many"]])
def test_bad_arguments(golden: Path, bad: list[str]) -> None:
    code, out, err = check(str(golden / "sin_sin.inspectc"), *bad)
    assert code == 2 and out == ""


def test_not_a_report(tmp_path: Path) -> None:
    (tmp_path / "x.inspectc").write_text("nope")
    code, out, err = check(str(tmp_path / "x.inspectc"), "--max-frames", "1")
    assert code == 2 and "not an inspectc report" in err and len(err.strip().splitlines()) == 1


def test_summary_sections_of_a_multi_rank_report_say_the_rank(tmp_path: Path) -> None:
    """ranks4: rank 2 alone breaks and recompiles; its sections name it (issue 27)."""
    report = tmp_path / "r4.inspectc"
    run_cli("import", str(ROOT / "tests" / "data" / "logs" / "ranks4"), "-o", str(report), check=True)
    out = run_cli("summary", str(report), check=True).stdout
    assert "Graph breaks (1 unique, 1 total; ranks 0-3 together)" in out and "(r2 1/0)" in out
    recompiles = out.split("Recompiles (1; ranks 0-3 together)\n", 1)[1].splitlines()[0]
    assert recompiles.startswith("  r2 0/1 ")
