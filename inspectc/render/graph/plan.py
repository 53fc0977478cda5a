"""What the fusion view draws: which kernel holds each FX node, and which nodes fold together.

:class:`Fusion` maps a frame's post-grad FX graph onto its kernels (``fused_nodes``).
:func:`make_plan` then picks the nodes to draw (``--module``) and folds them into display
units: one box per module path (``--collapse``), or, past ``--max-nodes``, the deepest module
depth that fits, then one box per kernel, and at last truncates.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from inspectc.errors import UsageError
from inspectc.model import CompileId, Frame, Kernel
from inspectc.model import fxgraph as fxtext
from inspectc.render.graph.modules import group_of, in_module, node_modules, normalize_module
from inspectc.render.graph.style import clip, ident
from inspectc.store.reader import Report


@dataclass(slots=True)
class Fusion:
    """Which kernel each FX node belongs to, and its module path."""

    graph: fxtext.FxGraph
    kernels: list[Kernel]
    home: dict[str, Kernel] = field(default_factory=dict)  # node -> first generated kernel
    copies: dict[str, list[Kernel]] = field(default_factory=dict)  # recomputed in these too
    extern: dict[str, Kernel] = field(default_factory=dict)
    missing: dict[int, list[str]] = field(default_factory=dict)  # kernel id -> names not in graph
    unplaced: list[Kernel] = field(default_factory=list)  # generated, but no fused_nodes
    module: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for kernel in self.kernels:
            if kernel.language == "extern":
                for name in kernel.fused_nodes:
                    if name in self.graph:
                        self.extern.setdefault(name, kernel)
                continue
            if not kernel.fused_nodes:
                self.unplaced.append(kernel)
                continue
            for name in dict.fromkeys(kernel.fused_nodes):
                if name not in self.graph:
                    self.missing.setdefault(kernel.id, []).append(name)
                elif name not in self.home:
                    self.home[name] = kernel
                else:
                    self.copies.setdefault(name, []).append(kernel)
        self.module = node_modules(self.graph, self.kernels)

    @property
    def generated(self) -> list[Kernel]:
        return [k for k in self.kernels if k.language != "extern" and k.fused_nodes]

    def kernel_of(self, name: str) -> Kernel | None:
        return self.home.get(name) or self.extern.get(name)


@dataclass(slots=True)
class Plan:
    """What to draw: the kept nodes and how they are grouped into display units."""

    names: list[str]  # FX nodes drawn, in graph order
    unit: dict[str, str]  # node -> DOT id of the group it is folded into (absent: drawn alone)
    group_label: dict[str, str]  # group DOT id -> module path or kernel name
    notes: list[str]
    context: set[str] = field(default_factory=set)  # nodes outside --module, shown for context


def _units(
    fusion: Fusion, names: list[str], depth: int | None, by_kernel: bool
) -> tuple[dict[str, str], dict[str, str]]:
    """Node -> group DOT id, and each group's label, for module *depth* (then kernel)."""
    unit: dict[str, str] = {}
    labels: dict[str, str] = {}
    for name in names:
        kernel = fusion.home.get(name)
        group = group_of(fusion.module.get(name), depth)
        if group is not None:
            unit[name] = ident(f"module/{group}")
            labels[unit[name]] = group
        elif by_kernel and kernel is not None:
            unit[name] = ident(f"kernel/{kernel.id}")
            labels[unit[name]] = kernel.name
    # Graph inputs (parameters) fold into the one group that reads them.
    users = fusion.graph.users()
    kept = set(names)
    for name in names:
        node = fusion.graph.node(name)
        if unit and node is not None and node.op == fxtext.PLACEHOLDER:
            groups = {unit.get(u) for u in users.get(name, ()) if u in kept}
            if len(groups) == 1 and (group_id := groups.pop()) is not None:
                unit[name] = group_id
    return unit, labels


def _count(names: list[str], unit: dict[str, str]) -> int:
    return len({unit.get(n, n) for n in names})


def make_plan(fusion: Fusion, module: str | None, collapse: int | None, max_nodes: int | None) -> Plan:
    graph = fusion.graph
    notes: list[str] = []
    names = [n.name for n in graph.nodes]
    context: set[str] = set()
    if module:
        prefix = normalize_module(module) or module
        inside = [n for n in names if in_module(fusion.module.get(n), prefix)]
        if not inside:
            known = sorted({group_of(m, 2) or m for m in fusion.module.values()})
            hint = ", ".join(known[:12]) or "none recorded (kernels carry no origins)"
            raise UsageError(f"no node of module {module!r} in this graph (modules: {hint})")
        keep = set(inside)
        users = graph.users()
        for name in inside:
            node = graph.node(name)
            context.update(i for i in (node.inputs if node else ()) if i not in keep)
            context.update(u for u in users.get(name, ()) if u not in keep)
        names = [n for n in names if n in keep or n in context]
        notes.append(f"module {prefix}: {len(inside)} nodes (+{len(context)} neighbours outside)")
    unit: dict[str, str] = {}
    labels: dict[str, str] = {}
    if collapse is not None and collapse > 0:
        unit, labels = _units(fusion, names, collapse, by_kernel=False)
        notes.append(f"collapsed by module path, depth {collapse}")
    elif max_nodes and len(names) > max_nodes:
        unit, labels = _auto_collapse(fusion, names, max_nodes, notes)
    if max_nodes and _count(names, unit) > max_nodes:
        kept: list[str] = []
        seen: set[str] = set()
        for name in names:
            key = unit.get(name, name)
            if key not in seen and len(seen) >= max_nodes:
                continue
            seen.add(key)
            kept.append(name)
        notes.append(f"{len(names) - len(kept)} nodes past the first {max_nodes} not shown")
        names = kept
    return Plan(names=names, unit=unit, group_label=labels, notes=notes, context=context)


def _auto_collapse(
    fusion: Fusion, names: list[str], max_nodes: int, notes: list[str]
) -> tuple[dict[str, str], dict[str, str]]:
    depths = [len(m.split(".")) for m in fusion.module.values()]
    for depth in range(max(depths, default=0), 0, -1):
        unit, labels = _units(fusion, names, depth, by_kernel=False)
        if _count(names, unit) <= max_nodes:
            notes.append(f"{len(names)} nodes: collapsed by module path, depth {depth} (max {max_nodes})")
            return unit, labels
    unit, labels = _units(fusion, names, None, by_kernel=True)
    if _count(names, unit) <= max_nodes:
        notes.append(f"{len(names)} nodes: one box per kernel (max {max_nodes})")
        return unit, labels
    unit, labels = _units(fusion, names, 1, by_kernel=True)
    notes.append(f"{len(names)} nodes: one box per kernel and top-level module (max {max_nodes})")
    return unit, labels


def find_frame(report: Report, cid: CompileId, rank: int | None) -> Frame:
    """Frame *cid* of *rank*, or a one-line error naming those there are."""
    frame = report.frame(cid, rank)
    if frame is None:
        known = ", ".join(dict.fromkeys(str(f.compile_id) for f in report.frames)) or "none"
        where = f" on rank {rank}" if rank is not None else ""
        raise UsageError(f"no frame {cid}{where} in {report.path.name} (frames: {clip(known, 200)})")
    return frame
