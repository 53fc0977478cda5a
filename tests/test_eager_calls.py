"""The calls that ran eagerly because a frame hit the recompile limit, counted against the
function's own count. ``samples/recompile_limit.py`` compiles ``energy`` for four lengths, is
refused at the fifth, and calls it with six more lengths three times: 18 calls run eagerly,
which the function counts itself (``torch.compiler.is_compiling()`` is False only then).

On Python 3.12+ capture counts them with ``sys.monitoring`` on that one code object; on 3.11
the limit hit is ranked and said, with the calls "not recorded" and why."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
import rawcount
from conftest import CapturedRun, Captures, run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from inspectc.model.costs import EagerFrame, eager_from_record, eager_record

pytestmark = pytest.mark.capture


@pytest.fixture(scope="module")
def limited(captures: Captures) -> CapturedRun:
    run = captures.get("recompile_limit.py")
    assert run.proc.returncode == 0, run.proc.stderr[-2000:]
    return run


def _own(run: CapturedRun) -> int:
    found = re.search(r"eager calls: (\d+)", run.proc.stdout)
    assert found, run.proc.stdout[-500:]
    return int(found.group(1))


def test_the_limit_hit_ranks_first_with_its_eager_calls(limited: CapturedRun) -> None:
    data = json.loads(run_cli("export", str(limited.report), check=True).stdout)
    first, *rest = data["costs"]["recompiles"]
    # the compile id refused at the limit, as the raw log has it (independent parser)
    logs = sorted(limited.trace_dir.glob("*.log"))
    assert logs and sum(rawcount.summary(p)["recompiles"] for p in logs) == 1 + len(rest)
    assert first["limit_hit"] and first["compile_id"] == "0/4" and first["function"] == "energy"
    assert not any(r["limit_hit"] for r in rest)
    summary = run_cli("summary", str(limited.report), check=True).stdout
    assert "recompile limit hit at 0/4 energy()" in summary
    if sys.version_info >= (3, 12):
        assert _own(limited) == 18
        assert first["eager_calls"] == _own(limited), first
        assert first["eager_call"]["calls"] == first["eager_calls"] and first["eager_call"]["median_us"] > 0
        assert f"then {first['eager_calls']} call(s) ran eagerly" in summary
    else:
        assert first["eager_calls"] is None
        assert first["eager_not_recorded"] == "Python 3.11 has no sys.monitoring"
        assert "ran eagerly were not recorded (Python 3.11 has no sys.monitoring)" in summary


def test_every_output_says_it(limited: CapturedRun, tmp_path: Path) -> None:
    """The HTML page and the shared Markdown render the same section as the terminal."""
    page = tmp_path / "r.html"
    run_cli("html", str(limited.report), "-o", str(page), "-q", check=True)
    run_cli("share", str(limited.report), "-o", str(tmp_path / "share"), check=True)
    md = next((tmp_path / "share").glob("*.md")).read_text(encoding="utf-8")
    for text in (page.read_text(encoding="utf-8"), md):
        assert "recompile limit hit at" in text


@settings(max_examples=200, deadline=None, derandomize=True)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=6),
        max_leaves=30,
    )
)
def test_a_strangers_record_reads_or_is_left_out(data: object) -> None:
    for frame in eager_from_record(data) + eager_from_record({"frames": [data]}):
        assert isinstance(frame.compile_id, str)
        assert frame.calls is None or (isinstance(frame.calls, int) and frame.calls >= 0)


def test_the_record_round_trips() -> None:
    frames = [EagerFrame(compile_id="0/8", function="f", filename="/x.py", line=3, calls=7)]
    _, payload = eager_record(frames)
    assert eager_from_record(json.loads(payload)) == frames


def test_a_312_capture_reads_anywhere() -> None:
    """Captured under Python 3.12 (tests/data/py312/README.md): the count the function made
    itself (18), read on whatever Python runs the tests."""
    report = Path(__file__).parent / "data" / "py312" / "recompile-limit.inspectc"
    data = json.loads(run_cli("export", str(report), check=True).stdout)
    first = data["costs"]["recompiles"][0]
    assert (first["compile_id"], first["limit_hit"], first["eager_calls"]) == ("0/4", True, 18)
    assert first["eager_call"]["calls"] == 18
    assert "then 18 call(s) ran eagerly" in run_cli("summary", str(report), check=True).stdout


def test_a_limit_hit_is_not_a_failure_in_any_output(tmp_path: Path) -> None:
    """The compile id refused at the recompile limit is counted apart from the failed frames
    (the headline's "not frames: 1 recompile limit hit"), and every output says so the same
    way: the frames table, the HTML page, the graph, and `check` (its counts and
    --fail-on-error). The JSON export keeps what was recorded: status failed, kind
    recompile_limit, with Dynamo's reason as the failure."""
    report = Path(__file__).parent / "data" / "py312" / "recompile-limit.inspectc"
    data = json.loads(run_cli("export", str(report), check=True).stdout)
    limit = [f for f in data["frames"] if f["kind"] == "recompile_limit"]
    assert [(f["compile_id"], f["status"]) for f in limit] == [("0/4", "failed")]
    assert "recompile limit" in limit[0]["failure"]["reason"].lower()
    assert data["summary"]["counts"]["failed"] == 0
    summary = run_cli("summary", str(report), check=True).stdout
    assert "0 failed" in summary and "not frames: 1 recompile limit hit" in summary
    table = summary.split("frame  function", 1)[1].splitlines()  # the frames table's rows
    row = next(line for line in table if line.split()[:1] == ["0/4"])
    assert "limit_hit" in row.split() and "failed" not in row.split(), row
    checked = run_cli("check", "--json", str(report), check=True)
    counts = json.loads(checked.stdout)["counts"]
    assert (counts["failed"], counts["limit_hits"]) == (0, 1), counts
    assert run_cli("check", "--fail-on-error", str(report)).returncode == 0
    assert run_cli("check", "--max-recompiles", "3", str(report)).returncode == 1  # 4 recompiles: gated there
    page = tmp_path / "r.html"
    run_cli("html", str(report), "-o", str(page), "-q", check=True)
    html = page.read_text(encoding="utf-8")
    assert 'class="st st-limit_hit">limit_hit<' in html and 'class="st-limit_hit"' in html  # head, sidebar
    assert 'class="st st-failed"' not in html and 'class="st-failed"' not in html
    dot = tmp_path / "g.dot"
    run_cli("graph", "--breaks", str(report), "-o", str(dot), check=True)
    assert "limit hit" in dot.read_text(encoding="utf-8")
