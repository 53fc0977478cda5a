"""Capture end to end: the installed CLI runs real torch.compile (CPU Inductor) on samples.

Counts in the report are checked against the raw TORCH_TRACE log torch writes alongside in
the same run (read here with a few lines of independent parsing, not inspectc's parser).
"""

from __future__ import annotations

import gc
import json
import re
import subprocess
import sys
import textwrap
import weakref
from collections import Counter
from pathlib import Path

import pytest
import rawcount
from conftest import SAMPLES, CapturedRun, Captures, run_cli

from inspectc.store.open import open_report

pytestmark = pytest.mark.capture


def raw_events(run: CapturedRun) -> list[dict]:
    """Metadata of every event in the TORCH_TRACE log, parsed independently."""
    events = []
    for line in run.trace_log().splitlines():
        if line.startswith("\t") or "] {" not in line:
            continue
        events.append(json.loads(line.split("] ", 1)[1]))
    return events


def raw_count(run: CapturedRun, name: str) -> int:
    count = 0
    for md in raw_events(run):
        if name in md or (md.get("artifact") or {}).get("name") == name:
            count += 1
    return count


def sample_line(sample: str, marker: str) -> int:
    for number, text in enumerate((SAMPLES / sample).read_text().splitlines(), 1):
        if marker in text:
            return number
    raise AssertionError(f"{marker!r} not in {sample}")


@pytest.fixture(scope="module")
def gb_cold(captures: Captures) -> CapturedRun:
    return captures.get("graph_breaks.py", "--size", "64", cache="gb")


@pytest.fixture(scope="module")
def gb_warm(captures: Captures, gb_cold: CapturedRun) -> CapturedRun:
    return captures.get("graph_breaks.py", "--size", "64", cache="gb", label="warm")


@pytest.mark.parametrize("which", ["gb_cold", "gb_warm"])
def test_graph_breaks_counts_match_the_raw_trace(which: str, request: pytest.FixtureRequest) -> None:
    run: CapturedRun = request.getfixturevalue(which)
    assert run.proc.returncode == 0, run.proc.stderr
    assert run.proc.stdout.strip().endswith("done")  # the script's stdout stays clean
    assert "inspectc:" in run.proc.stderr and "Graph breaks" in run.proc.stderr
    with open_report(run.report) as report:
        frames = report.frames
        assert len(frames) == raw_count(run, "compilation_metrics")
        # every record capture saw is accounted for, as the trace log torch wrote counts them
        account = report.account
        seen = Counter(account.used) + Counter(account.kept_raw)
        own = {name: n for name, n in seen.items() if name.startswith("inspectc_")}  # capture's own
        by_type: Counter[str] = Counter()
        for log in sorted(run.trace_dir.glob("*.log")):
            by_type.update(rawcount.count_by_type(log))
        assert seen - Counter(own) == by_type and account.kept_raw == {}
        breaks = [gb for f in frames for gb in f.graph_breaks]
        assert len(breaks) == raw_count(run, "dynamo_graph_break_reason")
        lines = {(Path(gb.filename or "").name, gb.line) for gb in breaks}
        for marker in (
            'print("with_print',
            ".item() breaks",
            "    torch._dynamo.graph_break()",
            "zlib.crc32(",
        ):
            assert ("graph_breaks.py", sample_line("graph_breaks.py", marker)) in lines, marker
        for gb in breaks:
            assert gb.reason and gb.user_stack, gb
            assert gb.user_stack[-1].line == gb.line
        recompiled = [f for f in frames if f.recompiles]
        assert len(recompiled) == raw_count(run, "recompile_reasons")
        assert all(len(f.recompiles) == 1 for f in recompiled)  # one per recompile_reasons record
        failed = [g for f in recompiled for r in f.recompiles for g in r.failed_guards]
        texts = " ".join(g.text for g in failed)
        assert "size mismatch" in texts and "dtype" in texts
        assert all(g.earlier_compile_id for g in failed)
        ok = [f for f in frames if f.kernel_count]
        assert ok, "no frame produced kernels"
        for f in frames:
            assert f.function and f.filename and f.line
            assert f.guards, f.compile_id
            assert f.metrics.guard_count is not None
        sources = {g.source for f in frames for g in f.guards}
        assert "L['x']" in sources
        assert any(g.kind == "TENSOR_MATCH" for f in frames for g in f.guards)
        for f in ok:
            assert "dynamo" in f.graph_kinds and "output_code" in f.graph_kinds
            for k in report.frame_kernels(f.compile_id):
                assert k.language in ("cpp", "extern")
                assert report.kernel_source(k).strip()


def test_warm_cache_is_marked_and_complete(gb_cold: CapturedRun, gb_warm: CapturedRun) -> None:
    with open_report(gb_cold.report) as cold, open_report(gb_warm.report) as warm:
        assert [f.compile_id for f in cold.frames] == [f.compile_id for f in warm.frames]
        # cold: compiled afresh (a graph seen earlier in the same run may already hit)
        assert "miss" in {f.cache.get("fx_graph") for f in cold.frames if f.kernel_count}
        assert {f.cache.get("fx_graph") for f in warm.frames if f.kernel_count} == {"hit"}
        assert [f.kernel_count for f in cold.frames] == [f.kernel_count for f in warm.frames]
        assert [len(f.graph_breaks) for f in cold.frames] == [len(f.graph_breaks) for f in warm.frames]


def test_training_step_has_forward_and_backward(captures: Captures) -> None:
    # the capture test_backward, test_fusion_timings, test_bench and test_diff share: no compile of its own
    run = captures.get("mlp_train.py", "--steps", "12", cache="fusion-mlp")
    assert run.proc.returncode == 0, run.proc.stderr
    # What torch itself wrote to TORCH_TRACE in the same run: one wrapper per compiled graph,
    # headed "# AOT ID: ['0_forward']" / "['0_backward']". A missing backward is then either
    # torch's (no record) or capture's (a record the report lost), never a guess.
    headers = re.findall(r"^\t# AOT ID: \['\d+_(\w+)'\]$", run.trace_log(), re.MULTILINE)
    assert raw_count(run, "inductor_output_code") == len(headers) == 2, headers
    assert sorted(headers) == ["backward", "forward"], headers
    with open_report(run.report) as report:
        (frame,) = [f for f in report.frames if f.kernel_count]
        for kind in ("dynamo", "aot_forward", "aot_backward", "post_grad", "output_code_backward"):
            assert kind in frame.graph_kinds, (kind, frame.graph_kinds, report.run.capture_errors)
        assert [k for k in frame.graph_kinds if k.startswith("output_code")] == [
            "output_code",
            "output_code_backward",
        ], frame.graph_kinds
        assert "relu" not in (report.graph(frame.compile_id, "aot_forward") or "")
        kernels = report.frame_kernels(frame.compile_id)
        assert any(k.language == "cpp" for k in kernels)
        assert any(k.language == "extern" and "addmm" in k.name for k in kernels)
        assert {k.graph_kind for k in kernels} == {"output_code", "output_code_backward"}


def test_transformers_gpt2(captures: Captures) -> None:
    pytest.importorskip("transformers")
    run = captures.get("gpt2_tiny.py", "--steps", "2")
    assert run.proc.returncode == 0, run.proc.stderr
    with open_report(run.report) as report:
        assert len(report.frames) == raw_count(run, "compilation_metrics")
        assert sum(f.kernel_count for f in report.frames) > 3
        breaks = sum(len(f.graph_breaks) for f in report.frames)
        assert breaks == raw_count(run, "dynamo_graph_break_reason")


def test_json_export_contract(gb_cold: CapturedRun) -> None:
    proc = run_cli("export", str(gb_cold.report), "--json", check=True)
    data = json.loads(proc.stdout)
    for key in ("schema_version", "inspectc_version", "torch_version", "run", "frames", "graph_breaks"):
        assert key in data
    assert data["run"]["exit_code"] == 0 and isinstance(data["run"]["argv"], list)
    frame = data["frames"][0]
    for key in (
        "compile_id",
        "function",
        "filename",
        "line",
        "status",
        "cache",
        "graph_breaks",
        "recompile_reasons",
        "guards",
        "graphs",
        "kernels",
        "compile_time_s",
    ):
        assert key in frame, key
    assert re.fullmatch(r"\d+/\d+", frame["compile_id"])
    assert set(frame["graphs"]) >= {"dynamo", "aot_forward", "aot_backward", "post_grad"}
    group = data["graph_breaks"][0]
    assert set(group) >= {"filename", "line", "reason", "gb_type", "count", "compile_ids"}
    assert sum(g["count"] for g in data["graph_breaks"]) == sum(
        len(f["graph_breaks"]) for f in data["frames"]
    )
    kernels = [k for f in data["frames"] for k in f["kernels"]]
    assert kernels and all(k["language"] in ("cpp", "extern", "triton") for k in kernels)
    summary = run_cli("summary", str(gb_cold.report), check=True).stdout
    assert "Graph breaks" in summary and "graph_breaks.py:" in summary


# -- the notebook API, and captures one after another in one process ---------------------------

# One more dimension each time forces a recompile; the same 8 elements give the same C++
# kernel, so only the first graph pays for a C++ compile (and the next test hits the caches).
SHAPES = [(8,), (2, 4), (2, 2, 2)]
NOTEBOOK = textwrap.dedent(
    f"""
    import sys
    import torch
    import inspectc

    SHAPES = {SHAPES!r}
    fn = torch.compile(lambda x: x.sin() + 1)
    for shape, path in zip(SHAPES, sys.argv[1:]):
        with inspectc.capture(path):
            fn(torch.ones(shape))  # one more dimension each time: one recompile each
        import inspectc.capture.session  # the submodule import that used to shadow the function
        assert callable(inspectc.capture), inspectc.capture
    print("ok")
    """
)


def test_notebook_api_captures_three_times_in_one_process(tmp_path: Path) -> None:
    paths = [tmp_path / f"cell{i}.inspectc" for i in range(3)]
    proc = subprocess.run(
        [sys.executable, "-c", NOTEBOOK, *map(str, paths)], capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr
    for i, path in enumerate(paths):
        with open_report(path) as report:
            assert report.run.mode == "api" and report.run.exit_code == 0
            assert report.run.capture_errors == ()
            (frame,) = report.frames
            assert str(frame.compile_id) == f"0/{i}" and frame.kernel_count >= 1
            assert bool(frame.recompiles) == (i > 0)


def test_capture_stop_cycles_free_their_captures_and_builders(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    import inspectc
    from inspectc.capture import forks

    fn = torch.compile(lambda x: x.sin() + 1)
    freed: list[tuple[weakref.ref, weakref.ref]] = []
    for i, shape in enumerate(SHAPES):
        with inspectc.capture(tmp_path / f"cycle{i}.inspectc") as cap:
            fn(torch.ones(shape))
            assert cap in forks.LIVE
        assert cap.ok and cap not in forks.LIVE
        freed.append((weakref.ref(cap), weakref.ref(cap._recorder.builder)))
        del cap
    gc.collect()
    assert [(c() is None, b() is None) for c, b in freed] == [(True, True)] * 3
    with open_report(tmp_path / "cycle2.inspectc") as report:
        (frame,) = report.frames  # the third compile of fn, recorded only by the third capture
        assert frame.recompiles and frame.kernel_count >= 1


OPTIONS_SCRIPT = """
import json, sys
import torch
import torch._dynamo.config as dynamo_config
import torch._inductor.config as inductor_config

dynamo_config.capture_scalar_outputs = True
dynamo_config.cache_size_limit = 17  # an alias: recorded as recompile_limit
inductor_config.fallback_random = True

def f(x):
    return torch.sin(x) * 2

def g(x):
    return torch.cos(x) + 1

tuned = torch.compile(f, mode="max-autotune-no-cudagraphs", fullgraph=True, dynamic=False)
plain = torch.compile(g, backend="eager")
tuned(torch.randn(8)); plain(torch.randn(8))
json.dump({"dynamo": {"capture_scalar_outputs": dynamo_config.capture_scalar_outputs,
                      "recompile_limit": dynamo_config.recompile_limit},
           "inductor": {"fallback_random": inductor_config.fallback_random}}, sys.stdout)
"""

DEFAULTS_SCRIPT = """
import json, sys
import torch._dynamo.config as d, torch._inductor.config as i
json.dump({"dynamo": {k: repr(v) for k, v in d.get_config_copy().items()},
           "inductor": {k: repr(v) for k, v in i.get_config_copy().items()}}, sys.stdout)
"""


def test_run_records_compile_options_and_non_default_config(tmp_path: Path) -> None:
    """backend, mode, dynamic and fullgraph of each torch.compile call, and every Dynamo and
    Inductor option unlike a fresh interpreter's (run.options.config; capture's own are not);
    the summary, the run dialog's rows and the share Markdown show them."""
    script = tmp_path / "opts.py"
    script.write_text(OPTIONS_SCRIPT)
    report = tmp_path / "opts.inspectc"
    env = {"TORCHINDUCTOR_COMPILE_THREADS": "1"}
    proc = run_cli("run", "-o", str(report), str(script), cwd=tmp_path, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr
    set_by_script = json.loads(proc.stdout)
    fresh = subprocess.run(
        [sys.executable, "-c", DEFAULTS_SCRIPT], capture_output=True, text=True, check=True, timeout=300
    )
    defaults = json.loads(fresh.stdout)
    with open_report(report) as r:
        options = r.run.options
    calls = {b.name: b for b in options.compile_backends}
    assert set(calls) == {"inductor", "eager"}
    assert calls["inductor"].mode == "max-autotune-no-cudagraphs" and calls["inductor"].fullgraph is True
    assert calls["inductor"].dynamic is False and calls["inductor"].options.get("max_autotune") is True
    assert calls["eager"].fullgraph is False and calls["eager"].mode is None
    assert options.config is not None
    recorded = {c.key: c.value for c in options.config if c.origin == "run"}
    for which in ("dynamo", "inductor"):
        for name, value in set_by_script[which].items():
            assert recorded.get(f"{which}.{name}") == repr(value), (which, name, recorded)
    for key, value in recorded.items():  # each differs from a fresh interpreter's default
        which, _, name = key.partition(".")
        if which in defaults:
            assert name in defaults[which] and defaults[which][name] != value, (key, value)
    own = {"inductor.trace.provenance_tracking_level", "inductor.cpp.enable_kernel_profile"}
    assert not own & set(recorded)  # capture's own switches are restored before the run is recorded

    summary = run_cli("summary", str(report), check=True).stdout
    assert "inductor (mode=max-autotune-no-cudagraphs, " in summary and "fullgraph" in summary
    assert "dynamo.capture_scalar_outputs=True" in summary and "inductor.fallback_random=True" in summary
    from inspectc.render.options import option_rows

    rows = option_rows(options)  # what the TUI's run dialog (i) lists
    assert any("fullgraph=True" in v and "mode=max-autotune-no-cudagraphs" in v for _, v in rows), rows
    assert ("torch config", "dynamo.recompile_limit = 17  (not the default when the run ended)") in rows, rows
    shared = run_cli("share", str(report), "-o", str(tmp_path / "shared"), check=True)
    assert shared.returncode == 0
    markdown = (tmp_path / "shared" / "opts.share.md").read_text()
    assert "mode=max-autotune-no-cudagraphs" in markdown and "inductor.fallback_random=True" in markdown


NO_COMPILE_SCRIPT = """
import atexit, json, sys
import torch

def loaded():  # runs after inspectc's stop (atexit): what capture's start and stop imported
    names = ("torch._dynamo", "torch._inductor", "torch._inductor.config")
    print(json.dumps({name: name in sys.modules for name in names}))

atexit.register(loaded)
print(json.dumps({"sum": float(torch.ones(3).sum())}))
"""


def test_a_program_that_compiles_nothing_loads_neither_dynamo_nor_inductor(tmp_path: Path) -> None:
    """Capture's Inductor switches wait for the first compile and its end reads only the config
    modules the run loaded: a program that compiles nothing pays for neither (seconds of
    imports); the report still says how it ran. (A compile gets the switches: test_backward's
    fused nodes of every kernel need provenance.)"""
    script = tmp_path / "plain.py"
    script.write_text(NO_COMPILE_SCRIPT)
    report = tmp_path / "plain.inspectc"
    proc = run_cli("run", "-q", "-o", str(report), str(script), cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr
    first, loaded = (json.loads(line) for line in proc.stdout.splitlines())
    assert first == {"sum": 3.0}
    assert loaded == {"torch._dynamo": False, "torch._inductor": False, "torch._inductor.config": False}
    with open_report(report) as r:
        assert r.run.exit_code == 0 and r.run.end_reason == "exit" and not r.frames
        assert r.run.capture_errors == (), r.run.capture_errors
