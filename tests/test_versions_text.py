"""What torch did, as the user would say it (issue 43): names, places and counts in the
summary, suggest, the TUI's tables and JSON, read from real logs of torch 2.11-2.14
(tests/data/logs/versions) and real reports (samples/reports), each compared with the raw log or
the report's own raw samples, never with inspectc's own reading of them.
"""

from __future__ import annotations

import json
import re
import shutil
import statistics
import sys
from pathlib import Path

import pytest
import rawcount
from conftest import REPORTS, ROOT, run_cli

VERSIONS = ROOT / "tests" / "data" / "logs" / "versions"


def log(version: str, scenario: str) -> Path:
    return VERSIONS / version / f"{scenario}.log.gz"


def imported(source: Path, tmp_path: Path, name: str = "r") -> tuple[Path, str]:
    report = tmp_path / f"{name}.inspectc"
    run_cli("import", str(source), "-o", str(report), check=True)
    return report, run_cli("summary", str(report), check=True).stdout


def _user_line(payload: str) -> str:
    """The innermost frame of a break's 'User code traceback' outside installed code."""
    frames = re.findall(r'File "([^"]+)", line (\d+)', payload.split("User code traceback:", 1)[1])
    mine = [(f, n) for f, n in frames if "-packages/" not in f and "/lib/python3" not in f]
    return f"{Path(mine[-1][0]).name}:{mine[-1][1]}"


@pytest.mark.parametrize("version", ["2.11.0", "2.13.0", "2.14.1"])
def test_a_break_inside_torch_optim_is_placed_at_the_users_line_everywhere(
    version: str, tmp_path: Path
) -> None:
    """The compiled optimizer's break: summary, suggest and the TUI's breaks table name the
    script's line (the summary did, suggest and the TUI said torch/optim/optimizer.py:79)."""
    source = log(version, "optim_step")
    payloads = [
        p
        for m, p in rawcount.iter_payloads(source)
        if m.get("artifact", {}).get("name") == "dynamo_graph_break_reason"
    ]
    assert payloads
    wanted = {_user_line(p or "") for p in payloads}
    report, summary = imported(source, tmp_path)
    listed = run_cli("suggest", "--list", str(report), check=True).stdout
    at = {Path(m).name for m in re.findall(r"at break (\S+)", listed)}
    assert at == wanted, listed
    assert all(w in summary for w in wanted)

    sys.path.insert(0, str(ROOT / "tui"))
    from inspectc_tui.overview.tables import _where

    from inspectc.analysis.views import break_groups
    from inspectc.store.open import open_report

    with open_report(report) as r:
        shown = {
            Path(_where(g, None).rsplit(":", 1)[0]).name + ":" + _where(g, None).rsplit(":", 1)[1]
            for g in break_groups(r.frames)
        }
    assert shown == wanted


def test_a_notebook_stack_starts_in_the_cell(tmp_path: Path) -> None:
    """~16 frames of the kernel (runpy, ipykernel, tornado, asyncio, IPython) sit above a cell's."""
    source = log("2.13.0", "notebook")
    raw = [m["dynamo_start"]["stack"] for m in rawcount.records(source) if "dynamo_start" in m]
    assert len(raw[0]) > 10  # what torch logged
    report, _ = imported(source, tmp_path)
    frames = json.loads(run_cli("export", str(report), check=True).stdout)["frames"]
    for f in frames:
        for entry in f["user_stack"]:
            assert re.search(r"/ipykernel_\d+/\d+\.py$", entry["filename"]), f["user_stack"]
    gb = frames[0]["graph_breaks"][0]
    assert gb["user_stack"][0]["filename"].startswith("/tmp/ipykernel_")


@pytest.mark.parametrize("version", ["2.11.0", "2.12.1", "2.13.0", "2.14.1"])
def test_a_graph_modules_frame_is_placed_at_the_users_call(version: str, tmp_path: Path) -> None:
    """Compiled autograd's graph compiles as ``forward`` at ``<eval_with_key>.N``: the frame
    table says where the user's code called it (the raw stack's last line in the script)."""
    source = log(version, "compiled_autograd")
    names: dict[int, str] = {}
    calls = set()
    for meta in rawcount.records(source):
        if "str" in meta:
            names[meta["str"][1]] = meta["str"][0]
        elif "dynamo_start" in meta and "compiled_autograd_id" in meta:
            stack = meta["dynamo_start"]["stack"]
            mine = [s for s in stack if not re.search(r"-packages/|^<", str(names.get(s["filename"], "<")))]
            calls.add(f"compiled_autograd.py:{mine[-1]['line']}")
    assert calls
    _, summary = imported(source, tmp_path)
    rows = [line for line in summary.splitlines() if re.match(r"\s+!\d+/\d+/\d+\s", line)]
    assert rows and all("called at" in row for row in rows), rows
    assert {re.search(r"called at \S*?(compiled_autograd\.py:\d+)", row).group(1) for row in rows} == calls


def test_the_header_says_what_is_known_and_cuts_with_an_ellipsis(tmp_path: Path) -> None:
    """An imported log records no python version (no 'python ?'); a command line past 80
    columns is cut visibly."""
    source = tmp_path / ("a-long-folder-name-" * 4) / "notebook.log.gz"
    source.parent.mkdir()
    shutil.copy(log("2.13.0", "notebook"), source)
    _, summary = imported(source, tmp_path)
    header = summary.splitlines()[1]
    assert "python" not in header, header
    assert len(f"inspectc import {source}") > 80 and "…" in header, header


def test_counts_agree_in_number(tmp_path: Path) -> None:
    """One graph break is '1 graph break' (check said '1 graph breaks')."""
    source = log("2.13.0", "notebook")
    breaks = sum(
        1
        for m in rawcount.records(source)
        if m.get("artifact", {}).get("name") == "dynamo_graph_break_reason"
    )
    assert breaks == 1
    report, summary = imported(source, tmp_path)
    gate = run_cli("check", str(report), check=True).stdout
    assert "1 graph break," in gate and "1 graph breaks" not in gate, gate
    assert summary.startswith("inspectc: 2 frames compiled, 1 graph break (1 unique)")


def test_warm_up_calls_are_marked_and_the_ranking_is_the_steady_state() -> None:
    """A real CPU training run (samples/reports/mlp_train): addmm's first call took 15 ms, its
    other nine ~30 us; it led the top kernels by its total. Ranked by the total without the
    leading calls over 5x the later half's median, as counted here from the raw samples."""
    report = REPORTS / "mlp_train.inspectc"
    data = json.loads(run_cli("export", str(report), check=True).stdout)
    steady = {}
    warm = {}
    for f in data["frames"]:
        for k in f["kernels"]:
            t = k.get("time")
            if not t or not t.get("samples"):
                continue
            s = t["samples"]
            later = statistics.median(sorted(s[len(s) // 2 :]))
            n = 0
            while len(s) == t["calls"] and len(s) >= 4 and n < len(s) // 2 and s[n] > 5 * later:
                n += 1
            warm[k["name"]] = n
            steady[k["name"]] = t["total_us"] - sum(s[:n])
    assert max(warm.values()) >= 1  # the run has warm-up calls
    summary = run_cli("summary", str(report), check=True).stdout
    table = summary.split("Top kernels", 1)[1].split("\n\n", 1)[0].splitlines()[2:]
    rows = [row for row in table if not row.lstrip().startswith(("…", "13 noisy", "timed on"))]
    rows = [row for row in rows if re.match(r"\s+[\d.]+\s+\d+\s", row)]
    names = [row.split()[-1] for row in rows]
    ranked = sorted(steady, key=lambda n: -steady[n])
    assert names == ranked[: len(names)], (names, ranked[:5])
    for name, line in zip(names, rows, strict=True):
        assert ("warm-up:" in line) == bool(warm[name]), line
        if warm[name]:
            assert f"warm-up: {warm[name]} call" in line, line


def test_suggest_on_a_script_says_to_record_it_first(tmp_path: Path) -> None:
    script = ROOT / "samples" / "sin_sin.py"
    proc = run_cli("suggest", str(script))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "inspectc run -o run.inspectc" in proc.stderr and str(script) in proc.stderr, proc.stderr


def test_the_metrics_tab_names_the_guards_tab_count(golden: Path) -> None:
    sys.path.insert(0, str(ROOT / "tui"))
    from inspectc_tui.frame.metrics import metric_rows

    from inspectc.store.open import open_report

    with open_report(golden / "graph_breaks.inspectc") as report:
        frame = next(f for f in report.frames if f.guards)
        rows = {name: value.plain for _, name, value in metric_rows(frame)}
    assert rows["guards (Guards tab)"] == str(len(frame.guards))
    assert rows["torch's guard_count"] == str(frame.metrics.guard_count)


def test_the_bisector_names_an_op_as_users_write_it() -> None:
    torch = pytest.importorskip("torch")
    from inspectc.capture.accuracy_bisect import _op_names

    op = torch.ops.aten.mish.default
    assert "OpOverload" in repr(op)
    assert _op_names(str([op])) == "[aten.mish.default]"
    assert _op_names(repr(op)) == "aten.mish.default"


def test_two_runs_normalise_to_the_same_reasons() -> None:
    """The raw BACKEND_MATCH reasons of two runs differ only by object ids, temp folders."""
    from inspectc.analysis.volatile import normalised

    texts = []
    for name in ("backend_mix", "backend_mix_again"):
        (payload,) = [
            p
            for m, p in rawcount.iter_payloads(log("2.13.0", name))
            if m.get("artifact", {}).get("name") == "recompile_reasons"
        ]
        texts.append(payload or "")
    assert texts[0] != texts[1]
    assert normalised(texts[0]) == normalised(texts[1])
    assert normalised("/tmp/ipykernel_123/4.py pid 77 at 2026-01-02 10:11:12.5") == normalised(
        "/tmp/ipykernel_999/4.py pid 12 at 2025-03-04 01:02:03.9"
    )
