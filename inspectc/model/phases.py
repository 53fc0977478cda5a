"""Which graph of a training step a kernel belongs to: forward, backward or inference.

A kernel's ``graph_kind`` names the output code it was cut from (``output_code``,
``output_code_backward``, ``output_code_2`` for a DDP piece). A frame compiled for training
has AOTAutograd's ``aot_forward``/``aot_backward`` graphs, one compiled for inference (no
gradients needed) its ``aot_inference`` graph; a log without AOT graphs (an older torch, a
backend without AOTAutograd) cannot tell forward from inference: ``None``, not a guess.
"""

from __future__ import annotations

from collections.abc import Collection

from inspectc.model import Kernel

PHASES = ("forward", "backward", "inference")


def kernel_phase(kernel: Kernel, graph_kinds: Collection[str]) -> str | None:
    """``"forward"``, ``"backward"``, ``"inference"`` or None (not recorded)."""
    if kernel.graph_kind.endswith("_backward"):
        return "backward"
    if kernel.compile_id.autograd is not None:  # compiled autograd traced the backward pass as a graph
        return "backward"
    if any(k.startswith("aot_inference") for k in graph_kinds):
        return "inference"
    if any(k.startswith(("aot_forward", "aot_backward", "aot_joint")) for k in graph_kinds):
        return "forward"
    return None
