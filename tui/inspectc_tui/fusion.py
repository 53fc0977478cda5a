"""Fusion navigation: FX graph nodes <-> generated kernels <-> user source. No Textual.

Kernels record ``fused_nodes`` (post-grad FX node names) and ``origins`` (ATen op plus
user file:line). A node is found in a graph's printed code by its definition line
(``name: "f32[4]" = torch.ops.aten.sin.default(...)``) or, in Inductor's comments, by
``%name``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from inspectc.report.model import Kernel

# `name: "f32[8, 16][16, 1]cpu" = ...` or `name = ...` (print_readable of an FX graph).
_DEFINITION = re.compile(r'^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?::\s*"[^"]*")?\s*=(?!=)')
# `%name : [num_users=1] = call_function[...]` (graph fragments in output code).
_FRAGMENT = re.compile(r"^\s*#?\s*%([A-Za-z_][A-Za-z0-9_]*)\s*:")

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
