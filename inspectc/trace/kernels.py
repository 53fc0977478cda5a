"""Kernels of a frame: cut from its output code, joined to provenance and to measured times.

The builder calls these with the frame's :class:`FrameState` and the report writer:
:func:`add_output_code` when an ``inductor_output_code`` record arrives, :func:`apply_provenance`
when a provenance record follows it (measured times: :mod:`inspectc.trace.timings`). No torch.
"""

from __future__ import annotations

import json
from dataclasses import replace

from inspectc.model import Kernel, Origin
from inspectc.trace.frames import FrameState
from inspectc.trace.payloads import output_code, provenance
from inspectc.trace.sink import Sink


def add_output_code(writer: Sink, st: FrameState, payload: str, seq: int, kind: str) -> None:
    """The kernels of one output code module (graph *kind*) become the frame's last graph."""
    st.graph_code = payload
    st.graph_kernels = []
    st.prov_mappings = None
    st.prov_traces = {}
    for span in output_code.split_output_code(payload):
        kernel = Kernel(
            id=-1,
            compile_id=st.id,
            rank=st.rank,
            name=span.name,
            language=span.language,
            kind=span.kind,
            source_size=span.end - span.start,
            graph_kind=kind,
            meta=dict(span.meta),
        )
        kid = writer.add_kernel(kernel, seq=seq, start=span.start, stop=span.end)
        st.graph_kernels.append(len(st.kernels))
        st.kernels.append(replace(kernel, id=kid))


def read_provenance(st: FrameState, name: str, payload: str | None) -> None:
    if name.endswith("node_mappings"):
        st.prov_mappings = provenance.parse_node_mappings(payload)
    else:
        st.prov_traces = provenance.parse_kernel_stack_traces(payload)


def read_kernel_nodes(st: FrameState, payload: str | None) -> bool:
    """Capture's ``inspectc_kernel_nodes`` (a backward graph's kernel -> post-grad nodes,
    which torch does not log) joins the graph's provenance. False when unreadable."""
    try:
        data = json.loads(payload or "{}")
    except ValueError:
        return False
    table = data.get("kernel_to_post") if isinstance(data, dict) else None
    if not isinstance(table, dict):
        return False
    parsed = {str(k): tuple(str(n) for n in v) for k, v in table.items() if isinstance(v, list) and v}
    # in the stack traces' key order (torch's table has its own): origins then come out in
    # the order an import of the same log, which has only the traces, gives them
    order = {key: i for i, key in enumerate(st.prov_traces)}
    parsed = dict(sorted(parsed.items(), key=lambda kv: order.get(kv[0], len(order))))
    base = st.prov_mappings or provenance.NodeMappings()
    st.prov_mappings = replace(base, kernel_to_post={**base.kernel_to_post, **parsed})
    return True


def apply_provenance(writer: Sink, st: FrameState) -> None:
    """Fused nodes and origins of the last graph's kernels, from its provenance records.

    Provenance names each call site ``<kernel>:<handle>`` (handles in call order, as the
    output code's ``# [Provenance debug handles]`` comments list them). A generated
    kernel gathers all its call sites; the n-th extern call of an op is its n-th handle.
    Raises ``ValueError`` (provenance's own error) when the groups cannot be built.
    """
    if st.graph_code is None or not st.graph_kernels:
        return
    by_base: dict[str, list[str]] = {}
    for handle in provenance.kernel_handles(st.graph_code):
        by_base.setdefault(provenance.base_name(handle), []).append(handle)
    keys: dict[int, str] = {}
    seen: dict[str, int] = {}
    for i in st.graph_kernels:
        kernel = st.kernels[i]
        if kernel.language != "extern":
            keys[i] = kernel.name
            continue
        base = str(kernel.meta.get("op") or provenance.base_name(kernel.name))
        n = seen[base] = seen.get(base, -1) + 1
        handles = by_base.get(base, [])
        keys[i] = handles[n] if n < len(handles) else base
    mappings, traces = _own_keys(st, by_base)
    groups = provenance.fusion_groups(
        mappings,
        traces,
        list(dict.fromkeys(keys.values())),
        pre_grad_graph=st.dynamo_text,
    )
    for i, key in keys.items():
        info = groups.get(key)
        if info is None:
            continue
        kernel = st.kernels[i]
        updated = replace(
            kernel,
            fused_nodes=tuple(info.fused_nodes),
            origins=tuple(
                Origin(op=o.op, filename=o.filename, line=o.line, module=o.module) for o in info.origins
            ),
        )
        if updated != kernel:
            st.kernels[i] = updated
            writer.update_kernel(updated)


def _own_keys(
    st: FrameState, by_base: dict[str, list[str]]
) -> tuple[provenance.NodeMappings, dict[str, tuple[str, ...]]]:
    """The provenance of this graph's call sites only. Outside a compile's provenance
    context (a lazily compiled backward) torch's tables keep every earlier graph's call
    sites: ``cpp_fused_sum_1:4`` of another backward must not join this one's
    ``cpp_fused_sum_1:14``. A key whose kernel this code does not name stays."""
    mappings = st.prov_mappings or provenance.NodeMappings()
    own = {h for handles in by_base.values() for h in handles}

    def keep(key: str) -> bool:
        return key in own or provenance.base_name(key) == key or provenance.base_name(key) not in by_base

    traces = {k: v for k, v in st.prov_traces.items() if keep(k)}
    kept = {k: v for k, v in mappings.kernel_to_post.items() if keep(k)}
    return replace(mappings, kernel_to_post=kept), traces
