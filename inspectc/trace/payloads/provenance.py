"""Fusion groups from Inductor provenance tracking: which FX nodes each kernel computes.

Pure (stdlib only, no torch): reads the payloads of the `torch.__trace` artifacts that
``torch._inductor.config.trace.provenance_tracking_level = 1`` makes Inductor emit:

- ``inductor_provenance_tracking_node_mappings`` (JSON): ``preToPost``/``postToPre`` between
  pre-grad (Dynamo graph) and post-grad node names, ``cppCodeToPost``/``postToCppCode`` between
  kernels and post-grad nodes, ``"version": 2.0`` since torch 2.9. Kernel keys carry a debug
  handle, one per call site: ``cpp_fused_sin_0:1``, ``extern_kernels.addmm:3`` (the same handle
  is written in the output code as ``# [Provenance debug handles] <kernel>:<n>``). Older torch
  (no "version") has bare keys and lumps all calls of an extern kernel together. Lazily compiled
  backward graphs get ``{"version": 2.0}`` only (no kernel -> node mapping).
- ``inductor_provenance_tracking_kernel_stack_traces`` (JSON): kernel key -> user stack traces.
  For backward graphs this accumulates over the process: filter it by the kernel names of the
  graph's own output code (`kernel_handles`).

Module paths are not in any provenance payload; `parse_pre_grad_graph` recovers them (and the
file:line of each pre-grad node) from the Dynamo graph text (``dynamo_output_graph`` payload),
where parameters are named after their source, e.g. ``l_self_modules_layers_modules_3_modules_
mlp_modules_fc1_parameters_weight_`` -> ``layers.3.mlp.fc1``. Ops without parameters (GELU)
get no module.

Errors: the ``parse_*`` functions are tolerant (an absent, empty or malformed payload gives an
empty result: torch emits no provenance for stale cache hits). `fusion_groups`, which combines
the parsed pieces, never returns empty groups because of a bug of its own: when it cannot
build them it raises :class:`ProvenanceError` (a ``ValueError``) whose message reads
``provenance could not be parsed: <why>``, for the caller to record and go on without groups.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from inspectc.trace.records import as_num

EXTERN_PREFIX = "extern_kernels."
_HANDLE = re.compile(r"^(?P<base>.+?):(?P<handle>\d{1,18})$")
_HANDLE_COMMENT = re.compile(r"#\s*\[Provenance debug handles\]\s*(\S+)")
_FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d{1,18}), in (?P<fn>[^\n]+)')
_GRAPH_FILE = re.compile(r"^\s*# File: (?P<file>.+?):(?P<line>\d{1,18}) in (?P<fn>[^,]+), code: ")
_GRAPH_NODE = re.compile(r"^\s*(?P<name>[A-Za-z_]\w*)\s*(?::\s*\"[^\"]*\")?\s*=\s*(?P<rhs>.*)$")
_SOURCE_PARAM = re.compile(r"\b[lL]_\w*?_modules_\w+?_(?:parameters|buffers)_\w+\b")


class ProvenanceError(ValueError):
    """Fusion groups could not be built from a graph's provenance; ``why`` says what failed."""

    def __init__(self, why: str) -> None:
        super().__init__(f"provenance could not be parsed: {why}")
        self.why = why


@dataclass(frozen=True, kw_only=True, slots=True)
class Origin:
    """One source-level op a kernel computes.

    op: the pre-grad (Dynamo graph) node name, e.g. "gelu", "layer_norm", "linear_1"; when no
        pre-grad mapping exists (backward graphs), the source expression the stack trace points
        at, e.g. "s.ln(s.act(x))".
    module: nn.Module path relative to the compiled frame's root object, e.g. "layers.3.mlp.fc1",
        known only for ops that take a module's parameters or buffers.
    """

    op: str
    filename: str | None = None
    line: int | None = None
    module: str | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class FusionInfo:
    """What one kernel call site computes."""

    fused_nodes: tuple[str, ...]  # post-grad FX node names, graph order: ("sin", "sin_1")
    origins: tuple[Origin, ...] = ()
    extern: bool = False  # an extern kernel call (extern_kernels.addmm, aten ops)
    stack_traces: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True, slots=True)
class NodeMappings:
    """Parsed ``inductor_provenance_tracking_node_mappings`` payload."""

    version: float | None = None
    pre_to_post: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    post_to_pre: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    kernel_to_post: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return not (self.pre_to_post or self.post_to_pre or self.kernel_to_post)


@dataclass(frozen=True, kw_only=True, slots=True)
class PreGradNode:
    """What the Dynamo graph text says about one pre-grad node."""

    index: int
    filename: str | None = None
    line: int | None = None
    module: str | None = None


def _load(payload: str | None) -> Any:
    if not payload:
        return None
    try:
        return json.loads(payload)
    except (ValueError, TypeError, RecursionError):
        return None


def _str_map(value: Any) -> dict[str, tuple[str, ...]]:
    if not isinstance(value, dict):
        return {}
    out: dict[str, tuple[str, ...]] = {}
    for key, names in value.items():
        if isinstance(key, str) and isinstance(names, list):
            out[key] = tuple(dict.fromkeys(n for n in names if isinstance(n, str)))
    return out


def parse_node_mappings(payload: str | None) -> NodeMappings:
    """Parse a node-mappings payload; None, empty or malformed payloads give an empty result."""
    data = _load(payload)
    if not isinstance(data, dict):
        return NodeMappings()
    version = data.get("version")
    return NodeMappings(
        version=as_num(version),
        pre_to_post=_str_map(data.get("preToPost")),
        post_to_pre=_str_map(data.get("postToPre")),
        kernel_to_post=_str_map(data.get("cppCodeToPost")),
    )


def parse_kernel_stack_traces(payload: str | None) -> dict[str, tuple[str, ...]]:
    """Parse a kernel-stack-traces payload: kernel key -> stack trace strings."""
    return _str_map(_load(payload))


def kernel_handles(output_code: str | None) -> list[str]:
    """Kernel keys of one graph in call order, from its ``inductor_output_code`` payload."""
    if not output_code:
        return []
    return list(dict.fromkeys(_HANDLE_COMMENT.findall(output_code)))


def base_name(kernel_key: str) -> str:
    """``cpp_fused_sin_0:1`` -> ``cpp_fused_sin_0``; names without a handle are unchanged."""
    m = _HANDLE.match(kernel_key)
    return m.group("base") if m else kernel_key


def module_path(source_name: str) -> str | None:
    """Module path from a Dynamo source name, or None when it names no submodule.

    ``l_self_modules_layers_modules_3_modules_mlp_parameters_weight_`` -> ``layers.3.mlp``.
    """
    parts = source_name.split("_modules_")
    if len(parts) < 2:
        return None
    last = re.split(r"_(?:parameters|buffers)_", parts[-1], maxsplit=1)[0].rstrip("_")
    path = [p for p in (*parts[1:-1], last) if p]
    return ".".join(path) or None


def parse_pre_grad_graph(graph_text: str | None) -> dict[str, PreGradNode]:
    """Node name -> index, file:line and module, from a printed Dynamo/pre-grad graph."""
    nodes: dict[str, PreGradNode] = {}
    if not graph_text:
        return nodes
    filename: str | None = None
    line: int | None = None
    for text in graph_text.splitlines():
        m = _GRAPH_FILE.match(text)
        if m:
            filename, line = m.group("file"), int(m.group("line"))
            continue
        m = _GRAPH_NODE.match(text)
        if not m or m.group("name") in nodes:
            continue
        rhs = m.group("rhs")
        if re.fullmatch(r"[A-Za-z_]\w*", rhs.strip()):
            continue  # placeholder alias: l_x_ = L_x_
        modules = [p for p in map(module_path, _SOURCE_PARAM.findall(rhs.split(";")[0])) if p]
        nodes[m.group("name")] = PreGradNode(
            index=len(nodes), filename=filename, line=line, module=modules[0] if modules else None
        )
    return nodes


def _trace_origin(trace: str) -> Origin | None:
    """Origin from the innermost frame of one stack trace string."""
    frames = list(_FRAME.finditer(trace))
    if not frames:
        return None
    last = frames[-1]
    tail = trace[last.end() :].split("\n")[1:]
    code = tail[0] if tail else ""
    op = code.strip()
    marks = tail[1] if len(tail) > 1 else ""
    if marks.strip() and set(marks.strip()) <= set("^~"):
        start = len(marks) - len(marks.lstrip())
        op = _balanced(code[start : len(marks.rstrip())].strip()) or op
    return Origin(op=op, filename=last.group("file"), line=int(last.group("line")))


def _balanced(expr: str) -> str:
    """Drop closing brackets the caret range overshoots: ``s.fc1(x))))`` -> ``s.fc1(x)``."""
    while expr.endswith(")") and expr.count(")") > expr.count("("):
        expr = expr[:-1]
    return expr


def _select(keys: Iterable[str], requested: str) -> list[str]:
    if requested in keys:
        return [requested]
    return [k for k in keys if base_name(k) == requested]


def fusion_groups(
    node_mappings: NodeMappings,
    stack_traces: Mapping[str, Sequence[str]],
    kernel_names: Sequence[str] | None,
    *,
    pre_grad_graph: str | Mapping[str, PreGradNode] | None = None,
) -> dict[str, FusionInfo]:
    """Kernel -> FusionInfo for the kernels of one graph.

    kernel_names: the graph's kernels, preferably the handle-qualified keys of its output code
        (`kernel_handles`), so that each extern call site is its own group; a bare name
        (``cpp_fused_sin_0``) merges all its call sites. None or empty: every key in the
        mappings and stack traces.
    pre_grad_graph: the ``dynamo_output_graph`` payload (or `parse_pre_grad_graph` of it) for
        per-op file:line and module paths.

    Raises :class:`ProvenanceError` when the groups cannot be built (inputs that are not what
    the ``parse_*`` functions return, or a bug here): never an empty result in its place.
    """
    try:
        return _fusion_groups(node_mappings, stack_traces, kernel_names, pre_grad_graph)
    except (AttributeError, IndexError, KeyError, TypeError, ValueError, RecursionError) as exc:
        raise ProvenanceError(f"{type(exc).__name__}: {exc}") from exc


def _fusion_groups(
    mappings: NodeMappings,
    stack_traces: Mapping[str, Sequence[str]],
    kernel_names: Sequence[str] | None,
    pre_grad_graph: str | Mapping[str, PreGradNode] | None,
) -> dict[str, FusionInfo]:
    pre_nodes = (
        parse_pre_grad_graph(pre_grad_graph)
        if isinstance(pre_grad_graph, str) or pre_grad_graph is None
        else pre_grad_graph
    )
    all_keys = list(dict.fromkeys([*mappings.kernel_to_post, *stack_traces]))
    requested = list(dict.fromkeys(kernel_names or all_keys))
    post_order = {name: i for i, name in enumerate(mappings.post_to_pre)}
    pre_order = {name: i for i, name in enumerate(mappings.pre_to_post)}
    groups: dict[str, FusionInfo] = {}
    for name in requested:
        keys = _select(all_keys, name)
        nodes = list(dict.fromkeys(n for k in keys for n in mappings.kernel_to_post.get(k, ())))
        nodes.sort(key=lambda n: post_order.get(n, len(post_order)))
        traces = tuple(dict.fromkeys(t for k in keys for t in stack_traces.get(k, ())))
        groups[name] = FusionInfo(
            fused_nodes=tuple(nodes),
            origins=_origins(nodes, traces, mappings, pre_nodes, pre_order),
            extern=base_name(name).startswith(EXTERN_PREFIX),
            stack_traces=traces,
        )
    return groups


def _origins(
    nodes: Sequence[str],
    traces: Sequence[str],
    mappings: NodeMappings,
    pre_nodes: Mapping[str, PreGradNode],
    pre_order: Mapping[str, int],
) -> tuple[Origin, ...]:
    from_traces = [o for o in map(_trace_origin, traces) if o is not None]
    pre = list(dict.fromkeys(p for n in nodes for p in mappings.post_to_pre.get(n, ())))
    if not pre:
        return tuple(dict.fromkeys(from_traces))
    pre.sort(key=lambda p: (pre_nodes[p].index if p in pre_nodes else len(pre_nodes), pre_order.get(p, 0)))
    # one location for the whole kernel when every trace agrees on it
    locations = {(o.filename, o.line) for o in from_traces}
    shared = next(iter(locations)) if len(locations) == 1 else (None, None)
    origins = []
    for p in pre:
        info = pre_nodes.get(p)
        if info is not None and info.filename is not None:
            origins.append(Origin(op=p, filename=info.filename, line=info.line, module=info.module))
        else:
            module = info.module if info is not None else None
            origins.append(Origin(op=p, filename=shared[0], line=shared[1], module=module))
    return tuple(origins)


@dataclass(frozen=True, kw_only=True, slots=True)
class CacheKeyInfo:
    """What an ``fx_graph_cache_{miss,hit}`` payload says about provenance caching."""

    key: str | None
    state: str | None  # "miss", "hit", ... (cache_status_detailed / cache_state)
    provenance_level: int | None  # None: this torch leaves the level out of the key (< 2.12)


def parse_cache_key(payload: str | None) -> CacheKeyInfo:
    """Key, state and keyed provenance level from an FX graph cache artifact payload.

    On a hit, empty provenance payloads with ``provenance_level is None`` mean the entry was
    written by a run without provenance (torch 2.11 and older). Capture avoids this by also
    setting ``cpp.enable_kernel_profile`` (part of the key, numerics unchanged) whenever it
    turns provenance on, so that its compiles never share entries with plain runs.
    """
    data = _load(payload)
    if not isinstance(data, dict):
        return CacheKeyInfo(key=None, state=None, provenance_level=None)
    key = data.get("key")
    state = data.get("cache_state") or data.get("cache_status_detailed")
    level = None
    components = data.get("components")
    for line in components if isinstance(components, list) else ():
        m = re.search(r"\] provenance_tracking_level: (\d{1,18})$", line) if isinstance(line, str) else None
        if m:
            level = int(m.group(1))
    return CacheKeyInfo(
        key=key if isinstance(key, str) else None,
        state=state if isinstance(state, str) else None,
        provenance_level=level,
    )
