"""The PyTorch 2.0 tutorials' workloads, each run under ``inspectc run`` and checked.

CPU rows (real CPU Inductor, tiny configs): Hugging Face BERT forward, GPT-NeoX
``generate()`` with its recompiles, the text-generation pipeline, and the ``torch.compile``
options dynamic / fullgraph / aot_eager / eager / max-autotune (C++ GEMM template). GPU rows
(reduce-overhead CUDA graphs, max-autotune with Triton templates, sin(sin(x)) as one Triton
kernel, timm convnets) skip without CUDA; ``benchmarks/gpu_workloads.sh`` runs them on the
GPU machine. Counts are checked against the raw TORCH_TRACE log torch writes in the same run.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import SAMPLES, CapturedRun, Captures, run_cli

from inspectc.model import CompileId, CudaGraphs
from inspectc.render.sections.extras import cudagraphs
from inspectc.render.terminal import render_sections
from inspectc.store.open import open_report
from inspectc.store.writer import ReportWriter
from inspectc.trace.builder import Builder

pytestmark = pytest.mark.capture

# GPU rows also carry the "gpu" marker (pytest -m "not gpu" leaves them out).
gpu = pytest.mark.gpu


@pytest.fixture(scope="session")
def cuda() -> str:
    """The device for GPU rows; skips without CUDA (benchmarks/gpu_workloads.sh runs them)."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA GPU (benchmarks/gpu_workloads.sh runs this row on the GPU machine)")
    return "cuda"


def raw_count(run: CapturedRun, name: str) -> int:
    """Events named *name* in the run's TORCH_TRACE log (parsed independently of inspectc)."""
    count = 0
    for line in run.trace_log().splitlines():
        if line.startswith("\t") or "] {" not in line:
            continue
        md = json.loads(line.split("] ", 1)[1])
        if name in md or (md.get("artifact") or {}).get("name") == name:
            count += 1
    return count


def sample_line(sample: str, marker: str) -> int:
    for number, text in enumerate((SAMPLES / sample).read_text().splitlines(), 1):
        if marker in text:
            return number
    raise AssertionError(f"{marker!r} not in {sample}")


def ok(run: CapturedRun) -> CapturedRun:
    assert run.proc.returncode == 0, run.proc.stderr[-4000:]
    return run


def mode_run(captures: Captures, mode: str, device: str = "cpu", cache: str | None = None) -> CapturedRun:
    return captures.get(
        "compile_modes.py", "--mode", mode, "--device", device, label=f"{mode}-{device}", cache=cache
    )


# -- Hugging Face ------------------------------------------------------------------------------
def test_hf_bert_forward(captures: Captures) -> None:
    pytest.importorskip("transformers")
    run = ok(captures.get("hf_bert.py", "--device", "cpu", "--layers", "1"))
    assert "bert tiny: last_hidden_state (2, 16, 64)" in run.proc.stdout
    with open_report(run.report) as report:
        assert len(report.frames) == raw_count(run, "compilation_metrics") == 1
        (frame,) = report.frames
        assert frame.status == "ok" and not frame.recompiles
        assert "dynamo" in frame.graph_kinds and "output_code" in frame.graph_kinds
        kernels = report.frame_kernels(frame.compile_id)
        assert len(kernels) == frame.kernel_count > 3
        assert any(k.language == "cpp" for k in kernels)
        assert all(report.kernel_source(k).strip() for k in kernels)


@pytest.fixture(scope="module")
def generate(captures: Captures) -> CapturedRun:
    pytest.importorskip("transformers")
    return ok(captures.get("hf_generate.py", "--device", "cpu", "--layers", "1", "--new-tokens", "4"))


def test_hf_generate_recompiles_with_guard_reasons(generate: CapturedRun) -> None:
    assert "generated 4 tokens" in generate.proc.stdout
    with open_report(generate.report) as report:
        frames = report.frames
        assert len(frames) == raw_count(generate, "compilation_metrics") >= 3
        recompiled = [f for f in frames if f.recompiles]
        assert len(recompiled) == raw_count(generate, "recompile_reasons") >= 2
        for f in recompiled:
            for r in f.recompiles:
                assert r.earlier_compile_id and r.guard, r
        texts = " ".join(r.guard or "" for f in recompiled for r in f.recompiles)
        assert "size mismatch" in texts  # prompt step vs decode step, then the KV cache grows
        # The recompile on a changed size made that size dynamic (dynamic=None): symbols.
        dynamic = [f for f in frames if f.symbolic_shapes and f.symbolic_shapes.symbols]
        assert dynamic and dynamic[0].recompiles
        shapes = dynamic[0].symbolic_shapes
        assert shapes is not None
        symbols = shapes.symbols
        assert symbols and all(s.symbol and s.source and s.source.startswith("L[") for s in symbols)
        assert len(symbols) == raw_count(generate, "create_symbol")
    assert "Recompiles (" in generate.proc.stderr and "Symbolic shapes" in generate.proc.stderr


def test_hf_pipeline_with_local_tokenizer(captures: Captures) -> None:
    pytest.importorskip("transformers")
    pytest.importorskip("tokenizers")
    run = ok(captures.get("hf_pipeline.py", "--device", "cpu", "--new-tokens", "2"))
    assert "pipeline: 'the compiled model" in run.proc.stdout
    with open_report(run.report) as report:
        frames = report.frames
        assert len(frames) == raw_count(run, "compilation_metrics") >= 2
        assert all(f.status == "ok" for f in frames)
        assert sum(f.kernel_count for f in frames) > 3
        assert any(f.recompiles for f in frames)


# -- torch.compile options ------------------------------------------------------------------------
def test_dynamic_true_symbols_and_shape_guards(captures: Captures) -> None:
    run = ok(mode_run(captures, "dynamic"))
    with open_report(run.report) as report:
        (frame,) = report.frames  # one compile serves three sizes
        assert frame.function == "pad_rows" and not frame.recompiles and frame.kernel_count >= 1
        shapes = frame.symbolic_shapes
        assert shapes is not None
        by_source = {s.source: s for s in shapes.symbols}
        assert {"L['x'].size()[0]", "L['y'].size()[0]"} <= set(by_source)
        assert len(shapes.symbols) == raw_count(run, "create_symbol")
        assert by_source["L['x'].size()[0]"].value == "8"
        x0, y0 = by_source["L['x'].size()[0]"].symbol, by_source["L['y'].size()[0]"].symbol
        # y[:x.shape[0] // 2] relates the two sizes: a guard on both symbols, at that line.
        line = sample_line("compile_modes.py", "return (x * 2).sum(0) + y[:half]")
        relating = [g for g in shapes.guards if {x0, y0} <= set(g.symbols)]
        assert relating and any(g.line in (line, line - 1) for g in relating), shapes.guards
        assert len(shapes.guards) == raw_count(run, "guard_added_fast")
        # The shape-env guards also sit in the guard tree, by source.
        assert any("L['x'].size()[0]" in g.code for g in frame.guards)
        (call,) = report.run.options.compile_backends
        assert (call.name, call.dynamic, call.mode, call.fullgraph) == ("inductor", True, "default", False)
    assert "Symbolic shapes" in run.proc.stderr and f"{x0}=L['x'].size()[0]" in run.proc.stderr


def test_fullgraph_error_becomes_a_report_naming_the_break(captures: Captures) -> None:
    run = mode_run(captures, "fullgraph")
    # The script fails the way Python makes it fail: its traceback, exit code 1.
    assert run.proc.returncode == 1
    assert "Traceback (most recent call last)" in run.proc.stderr
    assert "torch._dynamo.exc.Unsupported" in run.proc.stderr
    line = sample_line("compile_modes.py", 'print("with_break')
    with open_report(run.report) as report:
        assert report.run.exit_code == 1 and (report.run.exception or "").startswith("Unsupported")
        (frame,) = report.frames
        assert frame.status == "failed" and frame.function == "with_break"
        assert frame.failure is not None and frame.failure.fail_type == "Unsupported"
        assert frame.failure.line == line and Path(frame.failure.filename or "").name == "compile_modes.py"
        assert "print" in (frame.failure.reason or "")
        assert [b.fullgraph for b in report.run.options.compile_backends] == [True]
    summary = run_cli("summary", str(run.report), check=True).stdout
    failed = summary.split("Failed frames (1)", 1)[1].splitlines()[1]
    assert f"compile_modes.py:{line}" in failed and "graph break [GB" in failed
    assert "Failed to trace builtin operator" in failed


@pytest.mark.parametrize("backend", ["aot_eager", "eager"])
def test_other_backends_keep_breaks_and_guards_without_kernels(captures: Captures, backend: str) -> None:
    run = ok(mode_run(captures, backend))
    line = sample_line("compile_modes.py", 'print("with_break')
    with open_report(run.report) as report:
        frames = report.frames
        assert len(frames) == raw_count(run, "compilation_metrics") >= 4
        breaks = [gb for f in frames for gb in f.graph_breaks]
        assert len(breaks) == raw_count(run, "dynamo_graph_break_reason") >= 1
        assert {gb.line for gb in breaks} == {line}
        assert any(f.recompiles for f in frames)
        assert all(f.guards for f in frames)
        assert sum(f.kernel_count for f in frames) == 0 and not report.kernels
        kinds = {k for f in frames for k in f.graph_kinds}
        assert "dynamo" in kinds and "output_code" not in kinds
        assert ("aot_forward" in kinds) == (backend == "aot_eager")
        used = [b.name for b in report.run.options.compile_backends]
        assert used == [backend]
        assert "inductor" in report.run.options.registered_backends
    assert f"torch.compile: {backend} · registered backends:" in run.proc.stderr


def test_max_autotune_cpu_records_choices_and_timings(captures: Captures) -> None:
    # Cold private cache: a warm autotune cache would skip the benchmarks.
    run = ok(mode_run(captures, "max-autotune", cache="autotune"))
    with open_report(run.report) as report:
        tuned = [e for f in report.frames for e in f.autotuning]
        assert len(tuned) >= 2  # fc1 and fc2
        for entry in tuned:
            assert entry.op and entry.shapes and (entry.num_choices or 0) >= 2
            times = [c.ms or 0.0 for c in entry.choices]
            assert len(times) == entry.num_choices and times == sorted(times) and times[0] > 0
            assert entry.best == entry.choices[0].name
            assert (entry.seconds or 0) > 0
        options = report.run.options.compile_backends[0].options
        assert options.get("max_autotune") is True
    assert "Autotuning (" in run.proc.stderr and "choices" in run.proc.stderr


def test_backends_command(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("torch")
    from inspectc.cli.main import main

    assert main(["backends"]) == 0
    text = capsys.readouterr().out
    assert "inductor" in text.split() and "eager" not in text.split()  # the default list
    data = json.loads(run_cli("backends", "--all", "--json", check=True).stdout)
    assert {"inductor", "eager", "aot_eager"} <= set(data["backends"]) and data["all"] is True


def test_cudagraph_records_from_run_time_events(tmp_path: Path) -> None:
    """The CUDA graph path without a GPU: the run-time events as torch 2.11/2.13 write them."""
    path = tmp_path / "cg.inspectc"
    writer = ReportWriter(path)
    builder = Builder(writer)
    ids = {"frame_id": 0, "frame_compile_id": 0, "attempt": 0}
    builder.feed({"dynamo_start": {"stack": []}, **ids}, None)
    builder.feed({"compilation_metrics": {"co_name": "forward", "graph_op_count": 3}, **ids}, None)
    builder.feed(  # a second frame skipped at compile time
        {
            "compilation_metrics": {
                "co_name": "g",
                "cudagraph_skip_reason": "skipping cudagraphs due to mutated inputs",
            },
            "frame_id": 1,
            "frame_compile_id": 0,
        },
        None,
    )
    for phase, ts in (("B", 1_000_000.0), ("E", 1_250_000.0)):
        event = {"name": "CUDAGraphNode.record", "ts": ts, "ph": phase, "args": {"compile_id": "0/0"}}
        builder.feed({"chromium_event": {}}, json.dumps(event))  # run time: no frame ids
    builder.finish()
    writer.close()
    with open_report(path) as report:
        frame = report.frame(CompileId.parse("0/0"))
        assert frame is not None and frame.cudagraphs == CudaGraphs(recorded=1, record_s=0.25)
        lines = render_sections([s for s in (cudagraphs(report.frames),) if s is not None])
    assert "CUDA graphs (1 frames recorded, 1 skipped)" in lines
    assert any("skipped: skipping cudagraphs due to mutated inputs" in line for line in lines)


# -- GPU rows -----------------------------------------------------------------------------------
@gpu
def test_gpu_reduce_overhead_cuda_graphs(captures: Captures, cuda: str) -> None:
    run = ok(mode_run(captures, "reduce-overhead", device=cuda))
    with open_report(run.report) as report:
        recorded = [f for f in report.frames if f.cudagraphs]
        assert recorded, [(f.compile_id, f.cudagraph_skip_reason) for f in report.frames]
        assert all(f.cudagraphs is not None and f.cudagraphs.recorded >= 1 for f in recorded)
        assert any(k.language == "triton" for k in report.kernels)
    assert "CUDA graphs (" in run.proc.stderr


@gpu
def test_gpu_max_autotune_triton_templates(captures: Captures, cuda: str) -> None:
    run = ok(mode_run(captures, "max-autotune", device=cuda, cache="autotune-cuda"))
    with open_report(run.report) as report:
        tuned = [e for f in report.frames for e in f.autotuning]
        assert tuned and all((e.num_choices or 0) >= 2 and e.choices for e in tuned)
        assert any((e.num_triton_choices or 0) > 0 for e in tuned)


@gpu
def test_gpu_sin_sin_is_one_triton_kernel(captures: Captures, cuda: str) -> None:
    run = ok(captures.get("sin_sin.py", "--device", cuda, label="cuda"))
    with open_report(run.report) as report:
        (frame,) = report.frames
        (kernel,) = report.frame_kernels(frame.compile_id)
        assert kernel.language == "triton"
        source = report.kernel_source(kernel)
        assert "@triton.jit" in source and source.count("sin(") >= 2


@gpu
@pytest.mark.slow
def test_gpu_timm_resnet18_forward_and_training(captures: Captures, cuda: str) -> None:
    pytest.importorskip("timm")  # needs torchvision too: absent beside the CPU torch here
    run = ok(captures.get("timm_resnet.py", "--device", cuda, "--model", "resnet18"))
    with open_report(run.report) as report:
        frames = report.frames
        assert len(frames) == raw_count(run, "compilation_metrics") >= 2
        assert any(f.recompiles for f in frames)  # eval/no_grad, then training
        kinds = {k for f in frames for k in f.graph_kinds}
        assert {"aot_backward", "output_code_backward"} <= kinds
        assert sum(1 for k in report.kernels if k.language == "triton") > 10
