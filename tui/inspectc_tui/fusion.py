"""Fusion navigation: FX graph nodes <-> generated kernels <-> user source. No Textual.

Kernels record ``fused_nodes`` (post-grad FX node names) and ``origins`` (for forward
kernels the Dynamo graph nodes that Inductor's provenance maps those post-grad nodes back to,
with the user's file:line; for backward kernels the user's source expression). A node is found
in a graph's printed code by its definition line
(``name: "f32[4]" = torch.ops.aten.sin.default(...)``) or, in Inductor's comments, by
``%name``.

From a Dynamo (or pre-grad) graph node, :func:`node_kernels` finds the forward kernels whose
provenance names the node, and the backward kernels computed for the same user line (the
backward graph's provenance maps to no Dynamo node: only its stack traces say where).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from inspectc.model import Kernel

# `name: "f32[8, 16][16, 1]cpu" = ...` or `name = ...` (print_readable of an FX graph).
_DEFINITION = re.compile(r'^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?::\s*"[^"]*")?\s*=(?!=)')
# `%name : [num_users=1] = call_function[...]` (graph fragments in output code).
_FRAGMENT = re.compile(r"^\s*#?\s*%([A-Za-z_][A-Za-z0-9_]*)\s*:")
# `# File: samples/mlp.py:21 in forward, code: ...` above the nodes a user line made.
_FILE = re.compile(r"^\s*# File: (?P<file>.+?):(?P<line>\d+) in ")

# Graphs whose node names are Dynamo's (the names forward kernels' origins carry).
SOURCE_GRAPHS = ("dynamo", "pre_grad")
_FORWARD_GRAPHS = ("post_grad", "aot_forward", "aot_inference")
_BACKWARD_GRAPHS = ("post_grad_backward", "aot_backward")

# Graph kinds whose node names are the post-grad names kernels record, best first.
NODE_GRAPHS = ("post_grad", "post_grad_backward", "aot_forward", "aot_inference", "aot_backward")


def node_at(line: str) -> str | None:
    """The FX node a printed graph line defines, if any."""
    for pattern in (_DEFINITION, _FRAGMENT):
        match = pattern.match(line)
        if match and match.group(1) not in ("def", "class", "return"):
            return match.group(1)
    return None


def node_line(lines: Iterable[str], node: str) -> int | None:
    """0-based index of the line (of a printed graph) that defines *node*."""
    for index, line in enumerate(lines):
        if node in line and node_at(line) == node:
            return index
    return None


def kernels_for_node(kernels: Iterable[Kernel], node: str) -> list[Kernel]:
    return [k for k in kernels if node in k.fused_nodes]


def is_backward(kernel: Kernel) -> bool:
    return kernel.graph_kind.endswith("_backward")


@dataclass(frozen=True, slots=True)
class NodeKernel:
    """A kernel that computes (part of) a graph node, and how that is known."""

    kernel: Kernel
    how: str  # "fused" (its fused nodes), "provenance" (maps to the Dynamo node), "same line"


def node_source(lines: Sequence[str], index: int) -> tuple[str, int] | None:
    """The user file:line of the `# File:` comment a printed graph's line *index* falls under."""
    for line in reversed(lines[: index + 1]):
        match = _FILE.match(line)
        if match:
            return match.group("file"), int(match.group("line"))
    return None


def node_kernels(
    kernels: Iterable[Kernel], node: str, kind: str, source: tuple[str, int] | None = None
) -> list[NodeKernel]:
    """The kernels that computed *node* of graph *kind*, forward first.

    Post-grad and AOT graphs: the kernels whose fused nodes name it, of the graph's own pass
    (a backward graph recomputes forward nodes under the same names). Dynamo and pre-grad
    graphs: forward kernels whose origins (Inductor's pre-grad <-> post-grad mapping) name
    the node, then backward kernels whose origins are at its user line *source*.
    """
    kernels = list(kernels)
    if kind in SOURCE_GRAPHS:
        found = [NodeKernel(k, "provenance") for k in kernels if not is_backward(k) and node in _ops(k)]
        if source is not None and found:
            found += [
                NodeKernel(k, "same line")
                for k in kernels
                if is_backward(k) and any((o.filename, o.line) == source for o in k.origins)
            ]
        return found
    if kind in _FORWARD_GRAPHS:
        kernels = [k for k in kernels if not is_backward(k)]
    elif kind in _BACKWARD_GRAPHS:
        kernels = [k for k in kernels if is_backward(k)]
    return [NodeKernel(k, "fused") for k in kernels_for_node(kernels, node)]


def _ops(kernel: Kernel) -> set[str]:
    return {o.op for o in kernel.origins}


def graph_for_kernel(kernel: Kernel, available: Iterable[str]) -> str | None:
    """The graph kind to show *kernel*'s fused nodes in (backward kernels: backward graph)."""
    kinds = list(available)
    preferred = (
        ("post_grad_backward", "aot_backward")
        if kernel.graph_kind.endswith("backward")
        else ("post_grad", "aot_forward", "aot_inference")
    )
    for kind in (*preferred, *NODE_GRAPHS):
        if kind in kinds:
            return kind
    return None
