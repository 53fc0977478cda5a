"""Fusion groups from real provenance payloads (torch 2.13 CPU runs and shared tlparse traces).

No torch here: the payloads were captured by tests/data/provenance/generate.py.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import shared_traces

from inspectc.trace.payloads.provenance import (
    FusionInfo,
    NodeMappings,
    Origin,
    PreGradNode,
    ProvenanceError,
    fusion_groups,
    kernel_handles,
    module_path,
    parse_cache_key,
    parse_kernel_stack_traces,
    parse_node_mappings,
    parse_pre_grad_graph,
)

DATA = Path(__file__).parent / "data" / "provenance"
SHARED = shared_traces()  # the one lookup of ../shared/traces (conftest)


def _kind(md: dict[str, Any]) -> str:
    art = md.get("artifact")
    if isinstance(art, dict):
        return str(art.get("name"))
    return next(k for k in md if k not in ("frame_id", "frame_compile_id", "attempt"))


def graphs(records: list[list[Any]]) -> list[dict[str, Any]]:
    """Group a record stream into compiled graphs the way a builder would.

    A graph starts at inductor_output_code and owns the provenance and FX cache artifacts up to
    the next one: torch 2.13 emits provenance before fx_graph_cache_*, older torch after it.
    The Dynamo graph is the latest one of the same frame.
    """
    out: list[dict[str, Any]] = []
    dynamo: dict[tuple[Any, Any], str] = {}
    cur: dict[str, Any] | None = None
    for md, payload in records:
        kind = _kind(md)
        frame = (md.get("frame_id"), md.get("frame_compile_id"))
        if kind == "dynamo_output_graph":
            dynamo[frame] = payload
        elif kind == "inductor_output_code":
            cur = {"frame": frame, "code": payload, "dynamo": dynamo.get(frame), "order": [kind]}
            out.append(cur)
        elif cur is not None:
            cur["order"].append(kind)
            if kind == "inductor_provenance_tracking_node_mappings":
                cur["mappings"] = payload
            elif kind == "inductor_provenance_tracking_kernel_stack_traces":
                cur["traces"] = payload
            elif kind.startswith("fx_graph_cache_"):
                cur["cache"] = payload
    return out


def groups_of(graph: dict[str, Any]) -> dict[str, FusionInfo]:
    return fusion_groups(
        parse_node_mappings(graph.get("mappings")),
        parse_kernel_stack_traces(graph.get("traces")),
        kernel_handles(graph["code"]),
        pre_grad_graph=graph["dynamo"],
    )


def load(name: str) -> list[list[Any]]:
    return json.loads((DATA / name).read_text(encoding="utf-8"))["records"]


def test_sin_sin_is_one_kernel_fusing_both_sins() -> None:
    (graph,) = graphs(load("sin_cold.json"))
    groups = groups_of(graph)
    assert list(groups) == ["cpp_fused_sin_0:1"]
    info = groups["cpp_fused_sin_0:1"]
    assert info.fused_nodes == ("sin", "sin_1")
    assert not info.extern
    assert [o.op for o in info.origins] == ["sin", "sin_1"]
    assert {(Path(o.filename or "").name, o.line) for o in info.origins} == {("model.py", 63)}


def test_event_order_cold_and_warm() -> None:
    cold = [_kind(md) for md, _ in load("sin_cold.json")]
    warm = [_kind(md) for md, _ in load("sin_warm.json")]
    prov = [
        "inductor_output_code",
        "inductor_provenance_tracking_node_mappings",
        "inductor_provenance_tracking_kernel_stack_traces",
    ]
    # the cache key arrives after the provenance it describes, on both paths
    assert cold == ["dynamo_output_graph", "aotautograd_cache_miss", *prov, "fx_graph_cache_miss"]
    assert warm == [
        "dynamo_output_graph",
        *prov,
        "fx_graph_cache_hit",
        "aotautograd_cache_hit",
    ]


def test_warm_hit_replays_the_same_provenance() -> None:
    (cold,), (warm,) = graphs(load("sin_cold.json")), graphs(load("sin_warm.json"))
    assert warm["mappings"] == cold["mappings"]
    assert groups_of(warm) == groups_of(cold)
    miss, hit = parse_cache_key(cold["cache"]), parse_cache_key(warm["cache"])
    assert (miss.state, hit.state) == ("miss", "hit")
    assert miss.key == hit.key and miss.key is not None
    assert miss.provenance_level == hit.provenance_level == 1


def test_stale_hit_gives_no_payload_and_empty_groups() -> None:
    # torch <= 2.11 keying (level not in the key): an entry written without provenance
    (graph,) = graphs(load("sin_stale_hit.json"))
    assert graph["mappings"] is None and graph["traces"] is None
    assert parse_cache_key(graph["cache"]).provenance_level is None
    assert "[Provenance debug handles]" not in graph["code"]
    assert groups_of(graph) == {}
    assert parse_node_mappings(graph["mappings"]).empty


def test_mlp_fuses_gelu_and_layer_norm_with_extern_addmm() -> None:
    (graph,) = graphs(load("mlp_inference.json"))
    groups = groups_of(graph)
    assert list(groups) == [
        "extern_kernels.addmm:1",
        "cpp_fused_gelu_native_layer_norm_0:2",
        "extern_kernels.addmm:3",
    ]
    fused = groups["cpp_fused_gelu_native_layer_norm_0:2"]
    assert [(o.op, o.module) for o in fused.origins] == [("gelu", None), ("layer_norm", "ln")]
    assert {"erf", "var_mean", "rsqrt"} <= set(fused.fused_nodes)
    first, second = groups["extern_kernels.addmm:1"], groups["extern_kernels.addmm:3"]
    assert first.extern and second.extern
    assert first.fused_nodes == ("addmm",) and second.fused_nodes == ("addmm_1",)
    assert [(o.op, o.module) for o in first.origins] == [("linear", "fc1")]
    assert [(o.op, o.module) for o in second.origins] == [("linear_1", "fc2")]


def test_training_backward_has_kernels_and_traces_but_no_node_mapping() -> None:
    fwd, bwd = graphs(load("mlp_train.json"))
    assert json.loads(bwd["mappings"]) == {"version": 2.0}
    groups = groups_of(bwd)
    assert kernel_handles(bwd["code"]) == list(groups)
    assert any(k.startswith("extern_kernels.mm:") for k in groups)
    assert all(g.fused_nodes == () for g in groups.values())
    # origins come from the stack traces: the expression the caret points at
    ops = {o.op for g in groups.values() for o in g.origins}
    assert "self.fc1(x)" in ops
    assert all(")" not in op or op.count("(") == op.count(")") for op in ops)
    assert groups_of(fwd)["cpp_fused_gelu_native_layer_norm_0:2"].fused_nodes


def test_nested_modules_and_accumulated_backward_traces() -> None:
    all_graphs = graphs(load("nested_train.json"))
    assert [g["frame"] for g in all_graphs] == [(0, 0), (1, 0), (1, 0), (0, 0)]
    fwd0 = groups_of(all_graphs[0])
    modules = {o.module for g in fwd0.values() for o in g.origins}
    assert {"layers.0.ln", "layers.0.mlp.0", "layers.0.mlp.2"} <= modules
    # the second lazy backward compile's stack-trace payload still holds the first one's keys
    last = all_graphs[3]
    traces = parse_kernel_stack_traces(last["traces"])
    own = kernel_handles(last["code"])
    assert set(own) < set(traces)
    assert list(groups_of(last)) == own


def test_bare_names_merge_call_sites() -> None:
    (graph,) = graphs(load("mlp_inference.json"))
    groups = fusion_groups(
        parse_node_mappings(graph["mappings"]),
        parse_kernel_stack_traces(graph["traces"]),
        ["extern_kernels.addmm", "cpp_fused_gelu_native_layer_norm_0"],
    )
    assert groups["extern_kernels.addmm"].fused_nodes == ("addmm", "addmm_1")
    assert groups["cpp_fused_gelu_native_layer_norm_0"].fused_nodes


@pytest.mark.parametrize(
    "payload",
    [
        None,
        "",
        "{",
        "[]",
        "null",
        '"x"',
        '{"cppCodeToPost": 3}',
        '{"cppCodeToPost": {"k": 1}}',
        '{"postToPre": {"a": [1, null]}, "version": "2"}',
        "[" * 5000,
    ],
)
def test_odd_payloads_never_raise(payload: str | None) -> None:
    mappings = parse_node_mappings(payload)
    traces = parse_kernel_stack_traces(payload)
    assert isinstance(mappings, NodeMappings) and isinstance(traces, dict)
    assert isinstance(fusion_groups(mappings, traces, None, pre_grad_graph=payload), dict)
    assert isinstance(fusion_groups(mappings, traces, ["k", "k:1"]), dict)
    assert parse_cache_key(payload).key is None
    assert kernel_handles(payload) == []


@pytest.mark.parametrize(
    ("traces", "pre_grad", "why"),
    [
        ({"k": [1]}, None, "TypeError"),  # a stack trace that is not a string
        ({}, {"a": "not a PreGradNode"}, "AttributeError"),
    ],
)
def test_groups_that_cannot_be_built_raise_instead_of_emptying(
    traces: dict[str, Any], pre_grad: dict[str, Any] | None, why: str
) -> None:
    mappings = NodeMappings(kernel_to_post={"k": ("b",)}, post_to_pre={"b": ("a",)})
    with pytest.raises(ProvenanceError) as caught:
        fusion_groups(mappings, traces, ["k"], pre_grad_graph=pre_grad)
    assert str(caught.value).startswith(f"provenance could not be parsed: {why}: ")
    assert caught.value.why.startswith(why) and isinstance(caught.value, ValueError)


def test_well_formed_pre_grad_nodes_are_accepted() -> None:
    mappings = NodeMappings(kernel_to_post={"k": ("b",)}, post_to_pre={"b": ("a",)})
    groups = fusion_groups(mappings, {}, ["k"], pre_grad_graph={"a": PreGradNode(index=0, module="fc")})
    assert groups["k"].origins == (Origin(op="a", module="fc"),)


def test_unknown_kernel_gets_an_empty_group() -> None:
    groups = fusion_groups(NodeMappings(), {}, ["cpp_fused_x_0"])
    assert groups == {"cpp_fused_x_0": FusionInfo(fused_nodes=())}


def test_module_path_from_dynamo_source_names() -> None:
    name = "l_self_modules_layers_modules_3_modules_mlp_modules_fc1_parameters_weight_"
    assert module_path(name) == "layers.3.mlp.fc1"
    assert module_path("l_self_modules_ln_buffers_running_mean_") == "ln"
    assert module_path("l_x_") is None
    nodes = parse_pre_grad_graph(
        "        # File: /m.py:7 in forward, code: return self.fc(x)\n"
        '        linear: "f32[2]" = torch._C._nn.linear(l_x_, '
        "l_self_modules_fc_parameters_weight_, None);  l_x_ = None\n"
    )
    assert nodes["linear"].module == "fc" and (nodes["linear"].filename, nodes["linear"].line) == (
        "/m.py",
        7,
    )


def _read_trace_log(path: Path) -> list[list[Any]]:
    """Minimal TORCH_TRACE reader for the test: glog prefix, JSON metadata, tab payload."""
    records: list[list[Any]] = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if line.startswith("\t") and records:
            prev = records[-1]
            prev[1] = line[1:] if prev[1] is None else prev[1] + "\n" + line[1:]
            continue
        m = re.match(r"^\S+ \S+ \d+ \S+\] (\{.*\})$", line)
        if m:
            records.append([json.loads(m.group(1)), None])
    return records


@pytest.mark.skipif(SHARED is None, reason="shared/traces not found")
@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (
            "inductor_provenance_jit_log.txt",
            {
                "cpp_fused_mul_relu_sigmoid_0": ("x_1", "x_2", "d"),
                "cpp_fused_gelu_1": ("z",),
                "extern_kernels.addmm": ("x", "d", "y"),  # old torch: spurious "mul" too
            },
        ),
        (
            "inductor_provenance_jit_cuda_log.txt",
            {
                "triton_poi_fused_addmm_relu_sigmoid_0": ("x", "x_1", "x_2"),
                "triton_poi_fused_mul_1": ("d",),
                "triton_poi_fused_addmm_gelu_2": ("y", "z"),
                "extern_kernels.mm": ("x", "d", "y"),
            },
        ),
    ],
)
def test_shared_traces_older_format(name: str, expected: dict[str, tuple[str, ...]]) -> None:
    assert SHARED is not None
    (graph,) = graphs(_read_trace_log(SHARED / name))
    order = [k for k in graph["order"] if k.startswith(("fx_graph_cache", "inductor_prov"))]
    assert order == ["fx_graph_cache_miss", "inductor_provenance_tracking_node_mappings"]
    mappings = parse_node_mappings(graph["mappings"])
    assert mappings.version is None  # pre-2.9 format: bare keys, no debug handles
    assert kernel_handles(graph["code"]) == []
    groups = fusion_groups(mappings, parse_kernel_stack_traces(graph.get("traces")), None)
    assert {k: tuple(o.op for o in g.origins) for k, g in groups.items()} == expected
    extern = next(g for k, g in groups.items() if k.startswith("extern_kernels."))
    assert extern.extern and len(extern.fused_nodes) >= 2  # all call sites lumped together


def test_origin_is_frozen_and_typed() -> None:
    origin = Origin(op="gelu", filename="m.py", line=3, module="mlp.act")
    with pytest.raises(AttributeError):
        origin.op = "x"  # type: ignore[misc]
