"""Module paths of FX nodes (``layers.3.attn``), guessed from the kernels' origins.

The fusion view groups and collapses nodes by these paths. A path is normalised once
(:func:`normalize_module`) and compared by its dotted parts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from inspectc.model import Kernel
from inspectc.model import fxgraph as fxtext

_MODULE_INDEX = re.compile(r"\[['\"]?([^\]'\"]*)['\"]?\]")


def normalize_module(path: str | None) -> str | None:
    """``L['self'].layers[3].attn`` or ``self.layers.3.attn`` -> ``layers.3.attn``."""
    if not path:
        return None
    text = _MODULE_INDEX.sub(lambda m: "." + m.group(1), path.strip())
    parts = [p for p in text.split(".") if p]
    while parts and parts[0] in ("L", "self", "G"):
        parts.pop(0)
    return ".".join(parts) or None


def common_prefix(paths: Iterable[str]) -> str | None:
    split = [p.split(".") for p in paths]
    if not split:
        return None
    common: list[str] = []
    for parts in zip(*split, strict=False):
        if any(p != parts[0] for p in parts):
            break
        common.append(parts[0])
    return ".".join(common) or None


def node_modules(graph: fxtext.FxGraph, kernels: Iterable[Kernel]) -> dict[str, str]:
    """Module path of each node, from the kernels' origins (best effort).

    Origins name the module of the ops that own parameters (``layers.0.fc``). A kernel whose
    origins agree on one module gives it to all its nodes. Nodes in no kernel (views, an
    input's transpose) take the common module of their users, else of their producers. A
    kernel whose origins disagree (one kernel called for every layer: ``layers.0.norm``,
    ``layers.1.norm``) gives each node the candidate closest to its neighbours' module.
    """
    found: dict[str, str] = {}
    pending: dict[str, set[str]] = {}
    for kernel in kernels:
        mods = {m for m in (normalize_module(o.module) for o in kernel.origins) if m}
        for name in kernel.fused_nodes:
            if name not in graph or name in found:
                continue
            if len(mods) == 1:
                found[name] = next(iter(mods))
            elif mods:
                pending.setdefault(name, set()).update(mods)
    users = graph.users()
    for node in reversed(graph.nodes):
        if node.name not in found and node.op != fxtext.PLACEHOLDER:
            near = common_prefix(found[u] for u in users.get(node.name, ()) if u in found)
            if near:
                found[node.name] = near
    for node in graph.nodes:
        if node.name not in found and node.op != fxtext.PLACEHOLDER:
            near = common_prefix(found[i] for i in node.inputs if i in found)
            if near:
                found[node.name] = near
    for name, candidates in pending.items():
        around = found.get(name, "").split(".")
        best = max(sorted(candidates), key=lambda m: _shared_parts(m.split("."), around))
        if _shared_parts(best.split("."), around):
            found[name] = best
        elif common := common_prefix(candidates):
            found[name] = common
    return found


def _shared_parts(a: list[str], b: list[str]) -> int:
    count = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        count += 1
    return count


def in_module(path: str | None, prefix: str) -> bool:
    """Whether *path* is module *prefix* or inside it (``layers.3`` holds ``layers.3.attn``)."""
    return path is not None and (path == prefix or path.startswith(prefix + "."))


def group_of(path: str | None, depth: int | None) -> str | None:
    """The first *depth* parts of *path* (``layers.3.attn``, 2 -> ``layers.3``)."""
    if path is None or not depth or depth <= 0:
        return None
    return ".".join(path.split(".")[:depth])
