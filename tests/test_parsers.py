"""The stdlib-only parsers, on real inputs: the shared TORCH_TRACE logs (older torch) and
payloads captured from torch 2.13 (CPU) and 2.11 (CUDA) runs under tests/data/ (see its
README.md). No torch here: these modules must work on a laptop without it.
"""

from __future__ import annotations

import io
import json
import os
import time
from datetime import datetime
from pathlib import Path

import pytest
from conftest import run_cli

from inspectc.model import CompileId, StackFrame
from inspectc.trace.payloads.breaks import parse_break, parse_recompile_reasons
from inspectc.trace.payloads.guards import count_guards, guard_latency_us, parse_guards
from inspectc.trace.payloads.output_code import split_output_code
from inspectc.trace.records import StringTable, TraceRecord, compile_id, event_name, iter_records, parse_file

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="session")
def traces(traces_dir: Path) -> Path:
    return traces_dir  # conftest's one lookup of the shared logs


@pytest.fixture(scope="session")
def parsed(traces: Path) -> dict[str, tuple[list[TraceRecord], list[tuple[int, str]]]]:
    files = [*traces.glob("*.log"), *traces.glob("*.txt"), *traces.glob("multi_rank_logs/*.log")]
    return {str(path.relative_to(traces)): parse_file(path) for path in sorted(files)}


def payloads(records: list[TraceRecord], name: str) -> list[tuple[str | None, str]]:
    return [(compile_id(r.metadata), r.payload or "") for r in records if event_name(r.metadata) == name]


def read(relative: str) -> str:
    return (DATA / relative).read_text(encoding="utf-8")


# ---------------------------------------------------------------------------- tracefile


def test_every_shared_trace_parses_cleanly(parsed: dict) -> None:
    assert len(parsed) == 12
    for name, (records, errors) in parsed.items():
        assert records, name
        assert errors == [], name
        assert all(event_name(r.metadata) != "unknown" for r in records), name


def test_records_point_at_their_glog_line(traces: Path, parsed: dict) -> None:
    lines = (traces / "simple.log").read_text().split("\n")
    records, _ = parsed["simple.log"]
    assert len(records) == 76
    for record in records:
        assert lines[record.line - 1].startswith("V1206 ")
        assert json.loads(lines[record.line - 1].split("] ", 1)[1]) == record.metadata


def test_payloads_are_exact(traces: Path) -> None:
    """Every payload of the clean logs hashes to its has_payload md5 (checked on request)."""
    for name in ("simple.log", "cache_hit_miss.log", "inductor_provenance_jit_cuda_log.txt", "artifacts.log"):
        records, errors = parse_file(traces / name, check_md5=True)
        assert errors == [], name
        assert sum(r.payload is not None for r in records) >= 5


def test_corrupted_json_payload_is_counted(traces: Path) -> None:
    """simple_corrupted_json.log lost one line ("},") of a chromium_event payload."""
    clean, _ = parse_file(traces / "simple.log")
    records, errors = parse_file(traces / "simple_corrupted_json.log", check_md5=True)
    assert len(records) == len(clean) == 76
    assert [line for line, _ in errors] == [13]
    assert "md5 mismatch" in errors[0][1]
    bad = []
    for record in records:
        if event_name(record.metadata) == "chromium_event":
            try:
                json.loads(record.payload or "")
            except ValueError:
                bad.append(record.line)
    assert bad == [13]
    assert parse_file(traces / "simple_corrupted_json.log")[1] == []  # md5 is opt-in: speed


def test_malformed_lines_are_reported_and_skipped(traces: Path) -> None:
    text = (traces / "comp_failure.log").read_text()
    lines = text.split("\n")
    lines.insert(3, "V1206 15:20:13.000000 1 x.py:1] {not json")
    lines.insert(0, "\tstray payload line before any record")
    lines.insert(5, "garbage from another logger")
    errors: list[tuple[int, str]] = []
    records = list(iter_records(lines, on_error=lambda n, m: errors.append((n, m))))
    assert [n for n, _ in errors] == [1, 5, 6]
    assert [message.split(":")[0] for _, message in errors] == [
        "payload line without a record before it",
        "bad metadata JSON",
        "not a trace record",
    ]
    assert len(records) == len(parse_file(traces / "comp_failure.log")[0])


def test_blank_lines_inside_payloads_are_dropped(parsed: dict) -> None:
    """export.log has bare empty lines inside a payload; tlparse drops them, so do we."""
    records, _ = parsed["export.log"]
    (exported,) = [r for r in records if event_name(r.metadata) == "exported_program"]
    assert exported.payload is not None and exported.payload.startswith("ExportedProgram:")
    assert "\n\n" not in exported.payload and "\t#" not in exported.payload


def test_lines_without_newlines_and_file_objects_agree(traces: Path) -> None:
    text = (traces / "cache_hit_miss.log").read_text()
    from_file = list(iter_records(io.StringIO(text, newline="\n")))
    from_lines = list(iter_records(text.split("\n")))
    assert from_file == from_lines
    crlf = list(iter_records(io.StringIO(text.replace("\n", "\r\n"), newline="\n")))
    assert [(r.metadata, r.payload) for r in crlf] == [(r.metadata, r.payload) for r in from_file]


def test_timestamps_take_the_year_from_the_file(tmp_path: Path, traces: Path) -> None:
    copy = tmp_path / "simple.log"
    copy.write_text((traces / "simple.log").read_text())
    first_line = copy.read_text().split("\n", 1)[0]  # V1206 15:18:15.925000 ...
    for mtime, year in (((2024, 12, 7), 2024), ((2025, 1, 2), 2024)):  # a log from before New Year
        stamp = time.mktime(datetime(*mtime, 12, 0).timetuple())
        os.utime(copy, (stamp, stamp))
        records, _ = parse_file(copy)
        assert records[0].timestamp is not None
        when = datetime.fromtimestamp(records[0].timestamp)
        assert when.year == year
        assert when.strftime("%m%d %H:%M:%S.%f") == first_line[1:21]
    assert next(iter_records(copy.read_text().split("\n"))).timestamp is None
    assert next(iter_records(copy.read_text().split("\n"), year=2024)).timestamp == records[0].timestamp


def test_event_names(parsed: dict) -> None:
    records, _ = parsed["inductor_provenance_jit_cuda_log.txt"]
    names = {event_name(r.metadata) for r in records}
    assert {"chromium_event", "str", "dynamo_start", "dynamo_output_graph", "inductor_output_code"} <= names
    assert {
        "artifact:triton_kernel_info",
        "artifact:fx_graph_cache_miss",
        "compilation_metrics_runtime",
    } <= names
    rank, _ = parsed["multi_rank_logs/dedicated_log_torch_trace_rank_1.log"]
    assert sum(event_name(r.metadata) == "artifact:recompile_reasons" for r in rank) == 14


def test_compile_ids_match_dynamo(parsed: dict) -> None:
    records, _ = parsed["multi_rank_logs/dedicated_log_torch_trace_rank_1.log"]
    ids = [compile_id(r.metadata) for r in records if event_name(r.metadata) == "dynamo_start"]
    assert ids == [f"0/{n}" for n in range(15)]
    simple, _ = parsed["simple.log"]  # "compiled_autograd_id": null, "attempt": 0
    assert {compile_id(r.metadata) for r in simple} == {None, "0/0"}
    # compilation_metrics repeats the id torch printed (CompileId.__str__): ours must agree
    for name, (recs, _) in parsed.items():
        for r in recs:
            printed = (r.metadata.get("compilation_metrics") or {}).get("compile_id")
            if printed is not None:
                assert compile_id(r.metadata) == printed, name


def test_compiled_autograd_ids() -> None:
    records = list(iter_records(read("traces/2.13.0-cpu-compiled_autograd.headers.log").split("\n")))
    ids = [compile_id(r.metadata) for r in records]
    assert {"0/0", "!0", "!0/1/0", "2/0"} <= set(ids)
    assert event_name(records[ids.index("!0/1/0")].metadata) == "dynamo_start"


def test_string_table_resolves_stacks(parsed: dict) -> None:
    records, _ = parsed["simple.log"]
    table = StringTable()
    for record in records:
        table.add(record.metadata)
    assert len(table) == 12
    (start,) = [r for r in records if event_name(r.metadata) == "dynamo_start"]
    files = [table.resolve(frame["filename"]) for frame in start.metadata["dynamo_start"]["stack"]]
    assert all(f is not None and f.endswith(".py") for f in files)
    assert table.resolve(None) is None and table.resolve(999) is None and table.resolve("/a.py") == "/a.py"
    assert table.add(start.metadata) is False and table.add({"str": ["x"]}) is False


# ------------------------------------------------------------------------------ kernels

KERNELS = {
    "2.13.0-cpu-pointwise-0_0.py": [("cpp_fused_sin_0", "cpp", "pointwise")],
    "2.13.0-cpu-mlp-0_0.py": [
        ("cpp_fused_gelu_native_layer_norm_0", "cpp", "reduction"),
        ("extern_kernels.addmm:1", "extern", "extern"),
        ("extern_kernels.addmm:2", "extern", "extern"),
    ],
    "2.13.0-cpu-frozen-0_0.py": [
        ("cpp_fused_addmm_gelu_0", "cpp", "pointwise"),
        ("cpp_fused_addmm_gelu_1", "cpp", "pointwise"),
        ("torch.ops.mkl._mkl_linear.default:1", "extern", "extern"),
        ("torch.ops.mkl._mkl_linear.default:2", "extern", "extern"),
    ],
    "2.13.0-cpu-frozen-0_1.py": [
        ("cpp_fused_relu_0", "cpp", "pointwise"),
        ("cpp_fused_1", "cpp", "pointwise"),
        ("cpp_fused_2", "cpp", "pointwise"),
        ("torch.ops.mkldnn._convolution_pointwise.default:1", "extern", "extern"),
        ("torch.ops.mkldnn._convolution_pointwise.default:2", "extern", "extern"),
    ],
    "2.13.0-cpu-cpp_gemm-0_0.py": [("cpp_fused_addmm_gelu_0", "cpp", "template")],
    "2.13.0-cpu-cpp_wrapper-0_0.py": [
        ("aoti_torch_cpu_mm_out", "extern", "extern"),
        ("cpp_fused_sin_0", "cpp", "pointwise"),
    ],
    "2.13.0-cpu-dynamic-0_0.py": [
        ("cpp_fused_sin_sum_0", "cpp", "reduction"),
        ("extern_kernels.bmm", "extern", "extern"),
    ],
    "2.13.0-cpu-foreach_scan-0_0.py": [
        ("cpp_fused__foreach_add_0", "cpp", "foreach"),
        ("torch.ops.aten.cumsum.default", "extern", "extern"),
    ],
    "2.13.0-cpu-sdpa_conv-0_0.py": [
        ("cpp_fused_convolution_mul_0", "cpp", "pointwise"),
        ("cpp_fused_relu_1", "cpp", "pointwise"),
        ("torch.ops.aten._scaled_dot_product_flash_attention_for_cpu.default", "extern", "extern"),
        ("extern_kernels.convolution", "extern", "extern"),
    ],
    "2.11.0-cuda-pointwise-0_0.py": [("triton_poi_fused_sin_0", "triton", "pointwise")],
    "2.11.0-cuda-mlp-0_0.py": [
        ("triton_per_fused_addmm_gelu_native_layer_norm_0", "triton", "persistent_reduction"),
        ("extern_kernels.mm", "extern", "extern"),
        ("extern_kernels.addmm", "extern", "extern"),
    ],
    "2.11.0-cuda-mm_template-0_0.py": [
        ("triton_tem_fused_mm_0", "triton", "template"),
        ("triton_poi_fused_relu_1", "triton", "pointwise"),
    ],
    "2.11.0-cuda-foreach_scan-0_0.py": [
        ("triton_for_fused_0", "triton", "foreach"),
        ("triton_spl_fused_cumsum_1", "triton", "split_scan"),
    ],
    "shared-simple-0_0.py": [
        ("triton_poi_fused_native_dropout_0", "triton", "pointwise"),
        ("triton_poi_fused_baz_gelu_native_dropout_1", "triton", "pointwise"),
        ("aten.randint.low_out", "extern", "extern"),
        ("torch.ops.test.baz.default", "extern", "extern"),
    ],
}


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_output_code_kernels(name: str) -> None:
    code = read(f"output_code/{name}")
    spans = split_output_code(code)
    assert [(s.name, s.language, s.kind) for s in spans] == KERNELS[name]
    assert [s.start for s in spans] == sorted(s.start for s in spans)
    assert all(a.end <= b.start for a, b in zip(spans, spans[1:], strict=False))
    for span in spans:
        text = code[span.start : span.end]
        if span.language == "extern":
            assert text.startswith(span.meta["op"] + "(") and text.endswith(")")
            assert span.meta["call"] in code
        else:
            assert span.name in text and span.meta["call_args"].startswith(span.name)
        json.dumps(span.meta)  # plain data: it goes into the report as is


def test_kernel_sources_are_whole_statements() -> None:
    code = read("output_code/2.11.0-cuda-mm_template-0_0.py")
    template, relu = split_output_code(code)
    source = code[template.start : template.end]
    assert source.startswith("triton_tem_fused_mm_0 = async_compile.triton('triton_tem_fused_mm_0', '''")
    assert source.endswith("''', device_str='cuda')")
    assert (template.meta["num_warps"], template.meta["num_stages"]) == (8, 5)
    assert relu.meta["size_hints"] == {"x": 65536} and relu.meta["device"] == "cuda"
    assert relu.meta["inductor_meta"]["kernel_name"] == "triton_poi_fused_relu_1"
    assert relu.meta["triton_meta"]["device"]["type"] == "cuda"
    assert relu.meta["call_args"] == "triton_poi_fused_relu_1.run(buf1, 65536, stream=stream0)"


def test_cpp_and_extern_details() -> None:
    (kernel, first, second) = split_output_code(read("output_code/2.13.0-cpu-mlp-0_0.py"))
    assert kernel.meta["arg_types"] == ["float*", "float*", "const float*", "const float*", "float*"]
    assert kernel.meta["device"] == "cpu"
    assert (first.meta["op"], first.meta["out"]) == ("extern_kernels.addmm", "buf0")
    assert second.meta["out"] == "buf5"
    *_, attention, conv = split_output_code(read("output_code/2.13.0-cpu-sdpa_conv-0_0.py"))
    assert attention.meta["out"] == "buf0" and conv.meta["out"] == "buf6"
    aoti, _ = split_output_code(read("output_code/2.13.0-cpu-cpp_wrapper-0_0.py"))
    assert aoti.meta["out"] == "buf1"


def test_kernel_names_match_inductor_provenance(parsed: dict) -> None:
    """inductor_triton_kernel_to_post_grad_nodes names the same kernels (externs by op)."""
    for name in ("inductor_provenance_jit_cuda_log.txt", "inductor_provenance_jit_log.txt"):
        records, _ = parsed[name]
        ((_, code),) = payloads(records, "inductor_output_code")
        ((_, mapping),) = payloads(records, "artifact:inductor_triton_kernel_to_post_grad_nodes")
        spans = split_output_code(code)
        assert {s.meta.get("op", s.name) for s in spans} == set(json.loads(mapping)), name


def test_every_shared_output_code_splits(parsed: dict) -> None:
    total = 0
    for name, (records, _) in parsed.items():
        for _, code in payloads(records, "inductor_output_code"):
            spans = split_output_code(code)
            assert spans, name
            assert all(s.kind != "unknown" for s in spans), name
            total += len(spans)
    assert total >= 30
    assert split_output_code("") == []
    code = read("output_code/2.11.0-cuda-mm_template-0_0.py")
    for cut in range(0, len(code), 997):  # truncated code: no exception, no span past the end
        assert all(s.end <= cut for s in split_output_code(code[:cut]))


# ------------------------------------------------------------------------------- guards


def test_guard_tree_torch_2_13() -> None:
    text = read("guards/2.13.0-cpu-pointwise-0_0.txt")
    entries = parse_guards(text)
    assert count_guards(text) == len(entries) == 12
    assert [e.kind for e in entries[:4]] == [
        "LAMBDA_GUARD",
        "GLOBAL_STATE",
        "TORCH_FUNCTION_MODE_STACK",
        "DEFAULT_DEVICE",
    ]
    assert all(e.source is None and e.depth == 1 for e in entries[:4])
    tensor = entries[4]
    assert (tensor.kind, tensor.source, tensor.depth) == ("TENSOR_MATCH", "L['x']", 2)
    assert tensor.code.startswith("check_tensor(L['x'], Tensor") and tensor.code.endswith("stride=[1])")
    assert (
        tensor.user_code == "torch.compile(lambda x: torch.sin(torch.sin(x)))(torch.randn(1024, device=dev))"
    )
    assert tensor.filename is not None and tensor.filename.endswith("/pointwise.py")
    assert (tensor.line, tensor.function) == (5, "<lambda>")
    assert [(e.kind, e.source) for e in entries[-2:]] == [
        ("ID_MATCH", "G['torch']"),
        ("ID_MATCH", "G['torch'].sin"),
    ]
    assert guard_latency_us(text) == 88.51


def test_guard_hints_notes_and_root_level_guards() -> None:
    entries = parse_guards(read("guards/2.13.0-cpu-mlp-0_0.txt"))
    typed = [e for e in entries if e.kind == "TYPE_MATCH" and e.source == "L['args']"]
    assert typed[0].hint == "type tuple" and typed[0].code.endswith("type=<class 'tuple'>")
    shape = [e for e in parse_guards(read("guards/2.13.0-cpu-dynamic-0_0.txt")) if e.depth == 0]
    assert shape and all(e.kind == "LAMBDA_GUARD" and e.source is None for e in shape)
    assert any("duck sizing" in (e.hint or "") and e.user_code is None for e in shape)
    assert any(e.code == "2 <= L['x'].size()[1]" and e.line == 5 for e in shape)


def test_guard_tree_torch_2_11_without_source_lines() -> None:
    entries = parse_guards(read("guards/2.11.0-cpu-breaks-0_0.txt"))
    no_hasattr = [e for e in entries if e.kind == "NO_HASATTR"]
    assert no_hasattr and no_hasattr[0].code == "hasattr(L['x'], '_dynamo_dynamic_indices') == False"
    assert (no_hasattr[0].user_code, no_hasattr[0].filename, no_hasattr[0].line) == (None, "<string>", 6)
    assert parse_guards(read("guards/2.11.0-cuda-mlp-0_0.txt"))


def test_guard_tree_older_torch(parsed: dict) -> None:
    records, _ = parsed["simple.log"]
    ((_, text),) = payloads(records, "dynamo_cpp_guards_str")
    entries = parse_guards(text)
    key = [e for e in entries if e.kind == "EQUALS_MATCH" and "keys()" in e.code]
    assert key[0].source == "list(L['self']._modules['in_layers']._modules.keys())[0]"
    assert key[0].code == "list(L['self']._modules['in_layers']._modules.keys())[0] == '0'"
    assert all(e.user_code is None for e in entries if e.kind == "TYPE_MATCH")
    cache, _ = parsed["cache_hit_miss.log"]
    aliasing = [e for _, t in payloads(cache, "dynamo_cpp_guards_str") for e in parse_guards(t)]
    assert any(e.kind == "NO_TENSOR_ALIASING" and e.code == "" for e in aliasing)
    assert guard_latency_us(text) is None


# ------------------------------------------------------------------------------- breaks

BREAKS = {
    "2.13.0-cpu-breaks-0_0.txt": ("Failed to trace builtin operator", "GB0059", 7, "gb_print", "print('hi')"),
    "2.13.0-cpu-breaks-2_0.txt": (
        "Unsupported Tensor.item() call with capture_scalar_outputs=False",
        "GB0124",
        11,
        "gb_item",
        "if x.sum().item() > 0:",
    ),
    "2.13.0-cpu-breaks-4_0.txt": (
        "Call to `torch._dynamo.graph_break()`",
        "GB0025",
        16,
        "gb_explicit",
        "torch._dynamo.graph_break()",
    ),
    "2.13.0-cpu-breaks-6_0.txt": (
        "Failed to trace builtin operator",
        "GB0059",
        20,
        "gb_open",
        "with open(__file__) as f:",
    ),
    "2.13.0-cpu-breaks-7_0.txt": (
        "Unsupported context manager",
        "GB0142",
        20,
        "gb_open",
        "with open(__file__) as f:",
    ),
    "2.13.0-cpu-breaks-8_0.txt": (
        "Attempted to call function marked as skipped",
        "GB0007",
        26,
        "gb_cext",
        "n = zlib.crc32(b'abc')",
    ),
    "2.11.0-cpu-breaks-0_0.txt": ("Failed to trace builtin operator", "GB0059", 7, "gb_print", None),
    "2.11.0-cpu-breaks-8_0.txt": ("Unsupported context manager", "GB0142", 20, "gb_open", None),
    "2.11.0-cpu-breaks-9_0.txt": (
        "Attempted to call function marked as skipped",
        "GB0007",
        26,
        "gb_cext",
        None,
    ),
}


@pytest.mark.parametrize("name", sorted(BREAKS))
def test_graph_break_payloads(name: str) -> None:
    gb_type, gb_id, line, function, code = BREAKS[name]
    parsed = parse_break(read(f"breaks/{name}"))
    assert (parsed.gb_type, parsed.gb_id, parsed.line) == (gb_type, gb_id, line)
    assert parsed.reason.startswith(gb_type + ": ") and "\n" not in parsed.reason
    assert parsed.explanation and parsed.hints and parsed.debug_context
    assert parsed.filename is not None and parsed.filename.endswith(("breaks.py", "<string>"))
    assert [f.function for f in parsed.user_stack] == ["<module>", function]  # not torch's frames
    assert parsed.user_stack[-1] == StackFrame(
        filename=parsed.filename, line=line, function=function, code=code
    )
    assert parsed.frame_skipped == (gb_id == "GB0142")


def test_graph_break_fields_in_detail() -> None:
    parsed = parse_break(read("breaks/2.13.0-cpu-breaks-0_0.txt"))
    assert parsed.explanation == (
        "Dynamo does not know how to trace builtin operator `print` with argument types ['str'] (has_kwargs False)"
    )
    assert len(parsed.hints) == 3 and parsed.hints[-1] == "Please report an issue to PyTorch."
    assert (
        parsed.debug_context
        == "builtin print [<class 'torch._dynamo.variables.constant.ConstantVariable'>] False"
    )
    assert parsed.user_stack[0].code == "torch.compile(f, backend='eager')(torch.randn(8, device=dev))"


@pytest.mark.parametrize("name", ["2.13.0-cpu-breaks-0_0", "2.13.0-cpu-breaks-7_0", "2.11.0-cpu-breaks-8_0"])
def test_restart_and_fail_reasons_match_the_artifact(name: str) -> None:
    metrics = json.loads(read(f"reasons/{name}-metrics.json"))
    (reason,) = metrics["restart_reasons"] or [metrics["fail_reason"]]
    from_metrics, from_artifact = parse_break(reason), parse_break(read(f"breaks/{name}.txt"))
    for field in ("reason", "gb_type", "gb_id", "explanation", "hints", "debug_context"):
        assert getattr(from_metrics, field) == getattr(from_artifact, field), field
    assert from_metrics.user_stack == () and from_metrics.filename is None


def test_reasons_without_a_gb_block(parsed: dict) -> None:
    records, _ = parsed["comp_failure.log"]
    (metrics,) = [r.metadata["compilation_metrics"] for r in records if "compilation_metrics" in r.metadata]
    failed = parse_break(metrics["fail_reason"])
    assert failed.reason == "backend='broken_backend' raised: RuntimeError: broken backend"
    assert (failed.gb_type, failed.gb_id, failed.hints, failed.user_stack) == (None, None, (), ())
    lowering = parse_break(json.loads(read("reasons/2.13.0-cpu-mm_template-0_0-metrics.json"))["fail_reason"])
    assert lowering.reason.startswith("LoweringException: NoValidChoicesError:") and lowering.gb_type is None


def _failed(payload: str) -> tuple:
    found = parse_recompile_reasons(payload)
    assert found is not None  # one record is one recompile
    assert (found.text, found.earlier_compile_id, found.guard) == (
        found.failed[0].text,
        found.failed[0].earlier_compile_id,
        found.failed[0].guard,
    )
    return found.failed


def test_recompile_reasons() -> None:
    (bare,) = _failed(read("reasons/2.13.0-cpu-recompiles-0_1.txt"))  # not JSON
    assert bare.earlier_compile_id == CompileId.parse("0/0")
    assert bare.guard == "tensor 'x' size mismatch at index 0. expected 8, actual 16"
    newest, middle, oldest = _failed(read("reasons/2.13.0-cpu-recompiles-0_3.txt"))
    assert [str(r.earlier_compile_id) for r in (newest, middle, oldest)] == ["0/2", "0/1", "0/0"]
    assert middle.guard == "n == 2" and "User stack trace:" in middle.text
    assert oldest.guard == "tensor 'x' dtype mismatch. expected Float, actual Double"
    assert len(_failed(read("reasons/2.11.0-cpu-recompiles-0_3.txt"))) == 3
    (frozen,) = _failed(read("reasons/2.13.0-cpu-frozen-0_1.txt"))
    assert frozen.guard == "tensor 'args[0]' rank mismatch. expected 2, actual 4"


def test_recompile_reasons_older_torch(parsed: dict) -> None:
    records, _ = parsed["multi_rank_logs/dedicated_log_torch_trace_rank_1.log"]
    for cid, payload in payloads(records, "artifact:recompile_reasons"):
        reasons = _failed(payload)
        frame, number = (cid or "").split("/")
        assert [str(r.earlier_compile_id) for r in reasons] == [
            f"{frame}/{n}" for n in reversed(range(int(number)))
        ]
        assert all("size mismatch" in (r.guard or "") for r in reasons)
    assert _failed("tensor 'x' size mismatch at index 0")[0].earlier_compile_id is None
    assert parse_recompile_reasons("") is None and parse_recompile_reasons("[]") is None


# --------------------------------------------------------------------------------- fuzz


def test_parsers_never_raise_on_odd_input() -> None:
    hypothesis = pytest.importorskip("hypothesis")
    st = hypothesis.strategies
    alphabet = st.sampled_from(
        [
            "\t",
            "\n",
            "\r",
            " ",
            "V1206 ",
            "] ",
            "{",
            "}",
            '"a"',
            ":",
            "1",
            "x",
            "#",
            "(",
            ")",
            "'''",
            "[",
            "]",
        ]
        + ["+- ", "| ", "GuardManager: source=", "TENSOR_MATCH: ", "  # a.py:3 in f", " (HINT: x)"]
        + ["Graph Break Reason: ", "Encountered graph break when", "  Explanation: ", "  Hint: ", "0/0: "]
        + [
            "User code traceback:",
            '  File "a.py", line 3, in f',
            "torch._dynamo.exc.Unsupported: ",
            "/gb/gb0001.html",
        ]
        + [
            "x = async_compile.triton('x', ",
            "@triton_heuristics.pointwise(",
            "extern_kernels.mm(",
            "out=buf0",
        ]
        + ['extern "C" void k(', "cpp_wrapper_src", "aoti_torch_cpu_mm_out(", "buf1 = aten.x.default("]
    )
    text = st.lists(alphabet, max_size=60).map("".join)

    @hypothesis.settings(max_examples=200, deadline=None)
    @hypothesis.given(text)
    def check(sample: str) -> None:
        errors: list[tuple[int, str]] = []
        records = list(iter_records(sample.split("\n"), on_error=lambda n, m: errors.append((n, m))))
        assert records == list(iter_records(io.StringIO(sample, newline="\n")))
        assert all(1 <= n <= sample.count("\n") + 1 for n, _ in errors)
        parse_break(sample)
        parse_guards(sample)
        parse_recompile_reasons(sample)
        split_output_code(sample)

    check()


def test_a_record_nested_too_deeply_is_skipped_alone(traces: Path, tmp_path: Path) -> None:
    """A stranger's log with one record nested past Python's recursion limit: that record is a
    problem line like any malformed one, and the records around it are read (`inspectc import`
    used to refuse the whole log on it)."""
    text = (traces / "comp_failure.log").read_text()
    deep = 'V1206 15:20:13.000000 1 x.py:1] {"dynamo_start": ' + "[" * 100_000 + "]" * 100_000 + "}"
    lines = text.split("\n")
    lines.insert(2, deep)
    errors: list[tuple[int, str]] = []
    records = list(iter_records(lines, on_error=lambda n, m: errors.append((n, m))))
    assert errors == [(3, "bad metadata JSON: nested too deeply to read")]
    assert len(records) == len(parse_file(traces / "comp_failure.log")[0])
    log = tmp_path / "deep.log"
    log.write_text("\n".join(lines))
    proc = run_cli("import", str(log), "-o", str(tmp_path / "deep.inspectc"))
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    assert "1 problem line" in proc.stderr and "nested too deeply" in proc.stderr, proc.stderr
