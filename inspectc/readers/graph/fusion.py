"""Graphviz pictures of a report: the fusion view of one frame and the break view of a run.

``fusion_dot(report, "0/1")`` draws a frame's post-grad FX graph, one node per op, with the
nodes each generated kernel fused inside one cluster coloured by the kernel's share of the
frame's measured time. ``breaks_dot(report)`` draws the whole run: compiled frames in
execution order, graph breaks as labelled edges, recompiles as stacked versions of a frame.
``render(dot_text, "frame.svg")`` writes ``.dot`` itself and anything else through
Graphviz's ``dot``. No torch.

Report text (op names, kernel names, reasons, paths) is data: it reaches DOT only through
:func:`html` (HTML-like labels) or :func:`quote` (quoted strings), never raw.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from inspectc.errors import InspectcError, UsageError
from inspectc.readers.analysis import one_line
from inspectc.report import fxgraph as fxtext
from inspectc.report.model import (
    STATUS_COMPILING,
    STATUS_EMPTY,
    STATUS_FAILED,
    STATUS_GRAPH_BREAK,
    STATUS_OK,
    Frame,
    Kernel,
)
from inspectc.report.reader import Report

__all__ = ["FORMATS", "GraphvizMissing", "RenderError", "breaks_dot", "fusion_dot", "render", "svg"]

FORMATS = {".svg": "svg", ".png": "png", ".pdf": "pdf", ".dot": "dot", ".gv": "dot"}
INSTALL_HINT = "install Graphviz: apt-get install graphviz (or brew install graphviz)"


class GraphvizMissing(InspectcError):
    """Graphviz's ``dot`` is needed to write SVG/PNG/PDF and is not on PATH."""


class RenderError(InspectcError):
    """``dot`` ran and failed."""


# --------------------------------------------------------------------------- escaping

_UNSAFE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def clean(text: object) -> str:
    """*text* as a printable string: control characters and lone surrogates become U+FFFD."""
    value = str(text).replace("\r\n", "\n").replace("\r", "\n").replace("\t", " ")
    return _UNSAFE.sub("\ufffd", value)


def clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def html(text: object, width: int | None = None) -> str:
    """Escape *text* for a Graphviz HTML-like label; newlines become ``<BR/>``."""
    value = clean(text)
    if width is not None:
        value = "\n".join(clip(line, width) for line in value.split("\n"))
    value = (
        value.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&#39;")
    )
    return value.replace("\n", '<BR ALIGN="LEFT"/>') if "\n" in value else value


def quote(text: object) -> str:
    """*text* as a DOT double-quoted string (IDs and escString attributes such as tooltip)."""
    value = clean(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{value}"'


class Html(str):
    """An HTML-like label already built from escaped pieces: written as ``<...>``."""


class _Dot:
    """A DOT document written line by line; every ID and value is quoted or HTML."""

    def __init__(self, name: str, **attrs: object) -> None:
        self.lines = [f"digraph {quote(name)} {{"]
        self._depth = 1
        self.attrs("graph", **attrs)

    def _emit(self, text: str) -> None:
        self.lines.append("  " * self._depth + text)

    @staticmethod
    def _list(attrs: dict[str, object]) -> str:
        parts = []
        for key, value in attrs.items():
            if value is None:
                continue
            text = f"<{value}>" if isinstance(value, Html) else quote(value)
            parts.append(f"{key}={text}")
        return f" [{', '.join(parts)}]" if parts else ""

    def attrs(self, kind: str, **attrs: object) -> None:
        if attrs:
            self._emit(f"{kind}{self._list(attrs)};")

    def node(self, node_id: str, **attrs: object) -> None:
        self._emit(f"{quote(node_id)}{self._list(attrs)};")

    def edge(self, tail: str, head: str, **attrs: object) -> None:
        self._emit(f"{quote(tail)} -> {quote(head)}{self._list(attrs)};")

    @contextmanager
    def subgraph(self, name: str, **attrs: object) -> Iterator[None]:
        self._emit(f"subgraph {quote(name)} {{")
        self._depth += 1
        for key, value in attrs.items():
            if value is not None:
                self._emit(f"{key}={f'<{value}>' if isinstance(value, Html) else quote(value)};")
        yield
        self._depth -= 1
        self._emit("}")

    def text(self) -> str:
        return "\n".join([*self.lines, "}"]) + "\n"


_FONT = "Helvetica,Arial,sans-serif"


def _small(text: str, size: int = 9, color: str = "#444444") -> str:
    return f'<FONT POINT-SIZE="{size}" COLOR="{color}">{text}</FONT>'


# --------------------------------------------------------------------------- colours

# Share of the frame's measured kernel time -> fill (ColorBrewer Oranges), darkest last.
SHARE_BANDS: tuple[tuple[float, str, str], ...] = (
    (0.05, "#fff5eb", "< 5%"),
    (0.15, "#fdd0a2", "5 to 15%"),
    (0.30, "#fd8d3c", "15 to 30%"),
    (0.50, "#d94801", "30 to 50%"),
    (float("inf"), "#7f2704", "50% or more"),
)
UNTIMED = "#eeeeee"

# Above BIG_GRAPH drawn nodes, bound dot's network-simplex and crossing-minimisation passes and
# draw straight edges: a 10,000-node graph then lays out in minutes, not hours (benchmarks/).
BIG_GRAPH = 1000
FAST_LAYOUT = {
    "nslimit": "1",
    "nslimit1": "1",
    "searchsize": "5",
    "mclimit": "0.3",
    "remincross": "false",
    "splines": "line",
}
INPUT_FILL = "#d9f0d3"
OUTPUT_FILL = "#fee8c8"
EXTERN_FILL = "#dadaeb"
STATUS_FILL = {
    STATUS_OK: "#d9f0d3",
    STATUS_GRAPH_BREAK: "#fdd0a2",
    STATUS_FAILED: "#fcbba1",
    STATUS_EMPTY: "#f0f0f0",
    STATUS_COMPILING: "#fff7bc",
}


def share_fill(share: float | None) -> str:
    if share is None:
        return UNTIMED
    for limit, colour, _ in SHARE_BANDS:
        if share < limit:
            return colour
    return SHARE_BANDS[-1][1]


def _font_on(fill: str) -> str:
    return "white" if fill in (SHARE_BANDS[-1][1], SHARE_BANDS[-2][1]) else "black"


def _n(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _time_text(kernel: Kernel) -> str:
    t = kernel.time
    if t is None:
        return "not timed"
    share = f", {t.share:.0%} of frame" if t.share is not None else ""
    return f"{t.mean_us:.1f} µs × {t.calls}{share}"


# --------------------------------------------------------------------------- frames


def _frame(report: Report, compile_id: str, rank: int | None) -> Frame:
    cid = compile_id.strip().strip("[]")
    frame = report.frame(cid, rank)
    if frame is None:
        known = ", ".join(dict.fromkeys(f.compile_id for f in report.frames)) or "none"
        where = f" on rank {rank}" if rank is not None else ""
        raise UsageError(f"no frame {cid}{where} in {report.path.name} (frames: {clip(known, 200)})")
    return frame


# --------------------------------------------------------------------------- fusion view


@dataclass(slots=True)
class _Fusion:
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


def _common_prefix(paths: Iterable[str]) -> str | None:
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
            near = _common_prefix(found[u] for u in users.get(node.name, ()) if u in found)
            if near:
                found[node.name] = near
    for node in graph.nodes:
        if node.name not in found and node.op != fxtext.PLACEHOLDER:
            near = _common_prefix(found[i] for i in node.inputs if i in found)
            if near:
                found[node.name] = near
    for name, candidates in pending.items():
        around = found.get(name, "").split(".")
        best = max(sorted(candidates), key=lambda m: _shared_parts(m.split("."), around))
        if _shared_parts(best.split("."), around):
            found[name] = best
        elif common := _common_prefix(candidates):
            found[name] = common
    return found


def _shared_parts(a: list[str], b: list[str]) -> int:
    count = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        count += 1
    return count


def _in_module(path: str | None, prefix: str) -> bool:
    return path is not None and (path == prefix or path.startswith(prefix + "."))


def _group_of(path: str | None, depth: int) -> str | None:
    if path is None or depth <= 0:
        return None
    return ".".join(path.split(".")[:depth])


@dataclass(slots=True)
class _Plan:
    """What to draw: the kept nodes and how they are grouped into display units."""

    names: list[str]  # FX nodes drawn, in graph order
    unit: dict[str, str]  # node -> DOT id of the group it is folded into (absent: drawn alone)
    group_label: dict[str, str]  # group DOT id -> module path or kernel name
    notes: list[str]
    context: set[str] = field(default_factory=set)  # nodes outside --module, shown for context


def _units_for_depth(fusion: _Fusion, names: list[str], depth: int | None, by_kernel: bool) -> dict[str, str]:
    unit: dict[str, str] = {}
    for name in names:
        kernel = fusion.home.get(name)
        group = _group_of(fusion.module.get(name), depth) if depth else None
        if group is not None:
            unit[name] = f"module:{group}"
        elif by_kernel and kernel is not None:
            unit[name] = f"kernel:{kernel.id}"
    # Graph inputs (parameters) fold into the one group that reads them.
    users = fusion.graph.users()
    kept = set(names)
    for name in names:
        node = fusion.graph.node(name)
        if unit and node is not None and node.op == fxtext.PLACEHOLDER:
            groups = {unit.get(u) for u in users.get(name, ()) if u in kept}
            if len(groups) == 1 and (group := groups.pop()) is not None:
                unit[name] = group
    return unit


def _count(names: list[str], unit: dict[str, str]) -> int:
    return len({unit.get(n, n) for n in names})


def _plan(fusion: _Fusion, module: str | None, collapse: int | None, max_nodes: int | None) -> _Plan:
    graph = fusion.graph
    notes: list[str] = []
    names = [n.name for n in graph.nodes]
    context: set[str] = set()
    if module:
        prefix = normalize_module(module) or module
        inside = [n for n in names if _in_module(fusion.module.get(n), prefix)]
        if not inside:
            known = sorted({_group_of(m, 2) or m for m in fusion.module.values()})
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
    if collapse is not None and collapse > 0:
        unit = _units_for_depth(fusion, names, collapse, by_kernel=False)
        notes.append(f"collapsed by module path, depth {collapse}")
    elif max_nodes and len(names) > max_nodes:
        unit = _auto_collapse(fusion, names, max_nodes, notes)
    labels = {u: u.split(":", 1)[1] for u in set(unit.values())}
    for group in labels:
        if group.startswith("kernel:"):
            kid = int(group.split(":", 1)[1])
            labels[group] = next((k.name for k in fusion.kernels if k.id == kid), group)
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
    return _Plan(names=names, unit=unit, group_label=labels, notes=notes, context=context)


def _auto_collapse(fusion: _Fusion, names: list[str], max_nodes: int, notes: list[str]) -> dict[str, str]:
    depths = [len(m.split(".")) for m in fusion.module.values()]
    for depth in range(max(depths, default=0), 0, -1):
        unit = _units_for_depth(fusion, names, depth, by_kernel=False)
        if _count(names, unit) <= max_nodes:
            notes.append(f"{len(names)} nodes: collapsed by module path, depth {depth} (max {max_nodes})")
            return unit
    unit = _units_for_depth(fusion, names, None, by_kernel=True)
    if _count(names, unit) <= max_nodes:
        notes.append(f"{len(names)} nodes: one box per kernel (max {max_nodes})")
        return unit
    unit = _units_for_depth(fusion, names, 1, by_kernel=True)
    notes.append(f"{len(names)} nodes: one box per kernel and top-level module (max {max_nodes})")
    return unit


def fusion_dot(
    report: Report,
    compile_id: str,
    *,
    rank: int | None = None,
    max_nodes: int | None = None,
    module: str | None = None,
    collapse: int | None = None,
    backward: bool = False,
) -> str:
    """DOT text of frame *compile_id*'s post-grad graph with its kernels as clusters.

    *backward* draws the backward graph (``post_grad_backward``) and its kernels.
    *module* keeps the nodes of one module path (``layers.3.attn``) and their neighbours;
    *collapse* folds nodes into one box per module path of that depth; *max_nodes* collapses
    (deepest module depth that fits, then one box per kernel) and finally truncates.
    """
    frame = _frame(report, compile_id, rank)
    kind = "post_grad_backward" if backward else "post_grad"
    text = report.graph(frame.compile_id, kind, frame.rank)
    if text is None:
        recorded = ", ".join(k for k in frame.graph_kinds if "post_grad" in k) or "none"
        cache = " (an FX graph cache hit does not log it: capture with --fresh)"
        raise UsageError(
            f"frame {frame.compile_id} has no {kind} graph in this report"
            f" (post-grad graphs recorded: {recorded}){cache if frame.cache.get('fx_graph') == 'hit' else ''}"
        )
    graph = fxtext.parse(text)
    code_kind = "output_code_backward" if backward else "output_code"
    kernels = [k for k in report.frame_kernels(frame.compile_id, frame.rank) if k.graph_kind == code_kind]
    fusion = _Fusion(graph, kernels)
    plan = _plan(fusion, module, collapse, max_nodes)
    return _FusionWriter(frame, fusion, plan, backward).write()


@dataclass(slots=True)
class _FusionWriter:
    frame: Frame
    fusion: _Fusion
    plan: _Plan
    backward: bool
    dot: _Dot = field(init=False)
    _drawn: set[str] = field(default_factory=set)

    def write(self) -> str:
        big = len(self.plan.names) > BIG_GRAPH
        self.dot = _Dot(
            f"fusion {self.frame.compile_id}",
            rankdir="TB",
            fontname=_FONT,
            labelloc="t",
            label=self._title(),
            **(FAST_LAYOUT if big else {}),
        )
        self.dot.attrs(
            "node", fontname=_FONT, fontsize="10", shape="box", style="rounded,filled", fillcolor="white"
        )
        self.dot.attrs("edge", color="#666666", arrowsize="0.6")
        names = self.plan.names
        singles = [n for n in names if n not in self.plan.unit]
        clustered = self._clusters(singles)
        for name in singles:
            if name not in clustered:
                self._node(name)
        groups: dict[str, list[str]] = {}
        for name in names:
            if name in self.plan.unit:
                groups.setdefault(self.plan.unit[name], []).append(name)
        for group, members in groups.items():
            self._group(group, members)
        self._edges(names)
        self._outputs(names)
        self._legend()
        return self.dot.text()

    # -- pieces ------------------------------------------------------------------------
    def _title(self) -> Html:
        f = self.frame
        where = f"{f.function or '?'} at {_short(f.filename)}:{f.line}" if f.filename else f.function or "?"
        which = "backward" if self.backward else "forward"
        gen = len(self.fusion.generated)
        ext = sum(1 for k in self.fusion.kernels if k.language == "extern")
        lines = [
            f"<B>Frame {html(f.compile_id)}</B> · {which} post-grad graph · {html(where, 120)}",
            f"{_n(len(self.fusion.graph), 'node')} · {_n(gen, 'generated kernel')} · {_n(ext, 'extern call')}",
        ]
        if self.fusion.unplaced:
            names = ", ".join(k.name for k in self.fusion.unplaced[:4])
            lines.append(
                html(
                    f"{_n(len(self.fusion.unplaced), 'kernel')} without fused nodes (provenance off?): {names}",
                    160,
                )
            )
        lines.extend(html(note, 160) for note in self.plan.notes)
        return Html("<BR/>".join(lines))

    def _clusters(self, singles: list[str]) -> set[str]:
        """One cluster per generated kernel whose members are drawn one by one."""
        drawn: set[str] = set()
        single_set = set(singles)
        for kernel in self.fusion.generated:
            members = [n for n in dict.fromkeys(kernel.fused_nodes) if n in single_set]
            missing = (
                self.fusion.missing.get(kernel.id, []) if not self.plan.unit and not self.plan.context else []
            )
            if not members and not missing:
                continue
            fill = share_fill(kernel.time.share if kernel.time else None)
            label = Html(
                f"<B>{html(kernel.name, 80)}</B><BR/>"
                + _small(html(f"{kernel.language} {kernel.kind} · {_time_text(kernel)}"), 9, _font_on(fill))
            )
            with self.dot.subgraph(
                f"cluster_k{kernel.id}",
                label=label,
                style="filled,rounded",
                fillcolor=fill,
                color="#8c2d04" if kernel.time else "#999999",
                fontcolor=_font_on(fill),
                fontname=_FONT,
                tooltip=f"{kernel.name}\n{len(kernel.fused_nodes)} fused nodes\n{_time_text(kernel)}",
            ):
                for name in members:
                    if self.fusion.home.get(name) is kernel:
                        self._node(name)
                        drawn.add(name)
                    else:
                        self._node(name, copy_of=kernel)
                for name in missing:
                    self.dot.node(
                        f"fx:{name}@k{kernel.id}",
                        label=Html(f"{html(name, 40)}<BR/>{_small('not in the graph')}"),
                        style="rounded,dotted",
                        fillcolor="white",
                    )
        return drawn

    def _node(self, name: str, copy_of: Kernel | None = None) -> None:
        node = self.fusion.graph.node(name)
        assert node is not None
        node_id = f"fx:{name}" if copy_of is None else f"fx:{name}@k{copy_of.id}"
        meta = node.meta.short() if node.meta else ""
        op = "input" if node.op == fxtext.PLACEHOLDER else node.op_name
        label = (
            f"<B>{html(op, 40)}</B><BR/>{_small(html(name, 40) + (' · ' + html(meta, 60) if meta else ''))}"
        )
        attrs: dict[str, object] = {}
        kernel = self.fusion.kernel_of(name)
        if node.op == fxtext.PLACEHOLDER:
            attrs.update(shape="invhouse", fillcolor=INPUT_FILL, style="filled")
        elif node.op == fxtext.GET_ATTR:
            attrs.update(shape="cylinder", fillcolor=UNTIMED, style="filled")
        elif copy_of is not None:
            label += "<BR/>" + _small("recomputed here")
            attrs.update(style="rounded,filled,dashed")
        elif kernel is not None and kernel.language == "extern":
            label += "<BR/>" + _small(html(f"extern {kernel.name}", 50) + " · " + html(_time_text(kernel)))
            attrs.update(shape="box3d", fillcolor=EXTERN_FILL, style="filled")
        elif kernel is None:
            attrs.update(style="rounded,dashed", color="#999999", fontcolor="#555555")
        if name in self.plan.context:
            attrs.update(style="dashed", fillcolor="white", color="#bbbbbb", fontcolor="#777777")
        where = f"\n{node.filename}:{node.line}\n{node.code or ''}" if node.filename else ""
        module = self.fusion.module.get(name)
        attrs["tooltip"] = (
            f"{name}: {node.target}\n{node.meta.raw if node.meta else ''}"
            + (f"\nmodule {module}" if module else "")
            + where
        )
        self.dot.node(node_id, label=Html(label), **attrs)
        self._drawn.add(node_id)

    def _group(self, group: str, members: list[str]) -> None:
        kernels: Counter[int] = Counter()
        share = 0.0
        timed = False
        for name in members:
            kernel = self.fusion.kernel_of(name)
            if kernel is None:
                continue
            kernels[kernel.id] += 1
            if kernel.time and kernel.time.share is not None:
                timed = True
                share += kernel.time.share / max(1, len(kernel.fused_nodes))
        fill = share_fill(share if timed else None)
        ops = sum(1 for n in members if (node := self.fusion.graph.node(n)) and node.op != fxtext.PLACEHOLDER)
        time_text = f"{share:.0%} of frame kernel time" if timed else "not timed"
        label = (
            f"<B>{html(self.plan.group_label.get(group, group), 60)}</B><BR/>"
            f"{_n(ops, 'op')} · {_n(len(kernels), 'kernel')}<BR/>{html(time_text)}"
        )
        self.dot.node(
            group,
            label=Html(label),
            shape="box",
            style="filled,bold",
            fillcolor=fill,
            fontcolor=_font_on(fill),
            tooltip=f"{self.plan.group_label.get(group, group)}: {len(members)} nodes",
        )
        self._drawn.add(group)

    def _instances(self, name: str) -> list[tuple[str, int | None]]:
        """DOT ids drawing *name* with the kernel each sits in (copies for recomputed nodes)."""
        if name in self.plan.unit:
            return [(self.plan.unit[name], None)]
        home = self.fusion.home.get(name)
        found = [(f"fx:{name}", home.id if home else None)]
        found += [(f"fx:{name}@k{k.id}", k.id) for k in self.fusion.copies.get(name, ())]
        return [(i, k) for i, k in found if i in self._drawn]

    def _edges(self, names: list[str]) -> None:
        kept = set(names)
        seen: set[tuple[str, str]] = set()
        for name in names:
            node = self.fusion.graph.node(name)
            if node is None:
                continue
            for src in node.inputs:
                if src not in kept:
                    continue
                sources = self._instances(src)
                for head, kernel_id in self._instances(name):
                    tail = next((i for i, k in sources if k == kernel_id and kernel_id is not None), None)
                    tail = tail or (sources[0][0] if sources else None)
                    if tail is None or tail == head or (tail, head) in seen:
                        continue
                    seen.add((tail, head))
                    self.dot.edge(tail, head)

    def _outputs(self, names: list[str]) -> None:
        outputs = [o for o in dict.fromkeys(self.fusion.graph.outputs) if o in set(names)]
        if not self.fusion.graph.outputs:
            return
        total = len(self.fusion.graph.outputs)
        self.dot.node(
            "output",
            label=Html(f"<B>output</B><BR/>{_small(f'{total} values')}"),
            shape="house",
            fillcolor=OUTPUT_FILL,
            style="filled",
        )
        seen: set[str] = set()
        for name in outputs:
            instances = self._instances(name)
            if instances and instances[0][0] not in seen:
                seen.add(instances[0][0])
                self.dot.edge(instances[0][0], "output", style="dashed", color="#999999")

    def _legend(self) -> None:
        rows = ['<TR><TD COLSPAN="2"><B>kernel share of frame time</B></TD></TR>']
        for _, colour, text in SHARE_BANDS:
            rows.append(
                f'<TR><TD BGCOLOR="{colour}" WIDTH="18"> </TD><TD ALIGN="LEFT">{html(text)}</TD></TR>'
            )
        for colour, text in (
            (UNTIMED, "not timed"),
            (INPUT_FILL, "graph input"),
            (OUTPUT_FILL, "graph output"),
            (EXTERN_FILL, "extern kernel (library call)"),
            ("white", "dashed: in no kernel (view, folded)"),
        ):
            rows.append(f'<TR><TD BGCOLOR="{colour}"> </TD><TD ALIGN="LEFT">{html(text)}</TD></TR>')
        table = (
            '<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0" CELLPADDING="3">' + "".join(rows) + "</TABLE>"
        )
        self.dot.node("legend", label=Html(table), shape="plaintext", style="", fontsize="9")


def _short(path: str | None) -> str:
    if not path:
        return "?"
    parts = Path(path).parts
    return str(Path(*parts[-2:])) if len(parts) > 2 else path


# --------------------------------------------------------------------------- break view

_RESUME = re.compile(r"^torch_dynamo_resume_in_(?P<fn>.+)_at_(?P<line>\d+)$")


def _code_key(frame: Frame) -> tuple[int | None, str]:
    """Frames of one code object share everything before the last ``/`` of the compile id."""
    head, _, _ = frame.compile_id.rpartition("/")
    return frame.rank, head or frame.compile_id


def _frame_id(frame: Frame) -> str:
    rank = "" if frame.rank is None else f"r{frame.rank}:"
    return f"frame:{rank}{frame.compile_id}"


def _resume_target(frame: Frame, frames: list[Frame]) -> Frame | None:
    """The frame Dynamo resumed in after *frame*'s graph break (``torch_dynamo_resume_in_*``)."""
    if not frame.function:
        return None
    prefix = f"torch_dynamo_resume_in_{frame.function}_at_"
    found = [f for f in frames if f.rank == frame.rank and (f.function or "").startswith(prefix)]
    lines = {f"{prefix}{gb.line}" for gb in frame.graph_breaks}
    found = [f for f in found if f.function in lines] or found  # the break's own line first
    later = [f for f in found if f.ordinal > frame.ordinal]
    return (later or found)[0] if found else None


def breaks_dot(report: Report) -> str:
    """DOT text of the whole run: frames in execution order, breaks and recompiles as edges."""
    frames = sorted(report.frames, key=lambda f: (f.ordinal, f.rank or 0))
    run = report.run
    breaks = sum(len(f.graph_breaks) for f in frames)
    recompiles = sum(1 for f in frames if f.recompiles)
    title = (
        f"<B>{html(report.path.name, 80)}</B> · {_n(len(frames), 'compiled frame')}"
        f" · {_n(breaks, 'graph break')} · {_n(recompiles, 'recompile')}"
    )
    if run.argv:
        title += "<BR/>" + _small(html(clip(" ".join(run.argv), 140)), 10)
    dot = _Dot("breaks", rankdir="TB", fontname=_FONT, labelloc="t", label=Html(title))
    dot.attrs("node", fontname=_FONT, fontsize="10", shape="box", style="rounded,filled")
    dot.attrs("edge", fontname=_FONT, fontsize="9")
    if not frames:
        dot.node("empty", label="no compiled frames in this report", shape="plaintext", style="")
        return dot.text()
    groups: dict[tuple[int | None, str], list[Frame]] = {}
    for frame in frames:
        groups.setdefault(_code_key(frame), []).append(frame)
    ranks = sorted({f.rank for f in frames}, key=lambda r: -1 if r is None else r)
    for rank in ranks:
        if len(ranks) > 1:
            with dot.subgraph(f"cluster_rank_{rank}", label=Html(f"<B>rank {rank}</B>"), style="dashed"):
                _draw_groups(dot, [g for k, g in groups.items() if k[0] == rank], run.cwd)
        else:
            _draw_groups(dot, list(groups.values()), run.cwd)
    # Execution order, top to bottom, without drawing it.
    for rank in ranks:
        ordered = [f for f in frames if f.rank == rank]
        for before, after in zip(ordered, ordered[1:], strict=False):
            dot.edge(_frame_id(before), _frame_id(after), style="invis", weight="2")
    for frame in frames:
        _draw_breaks(dot, frame, frames, run.cwd)
    return dot.text()


def _draw_groups(dot: _Dot, groups: list[list[Frame]], cwd: str | None) -> None:
    for index, versions in enumerate(groups):
        first = versions[0]
        where = f"{_short_loc(first.filename, cwd)}:{first.line}" if first.filename else "?"
        label = Html(f"<B>{html(first.function or '?', 80)}</B><BR/>{_small(html(where, 100))}")
        rank = "" if first.rank is None else f"r{first.rank}_"
        with dot.subgraph(
            f"cluster_code_{rank}{index}", label=label, style="rounded", color="#777777", fontname=_FONT
        ):
            for frame in versions:
                _frame_node(dot, frame)
            by_id = {f.compile_id: f for f in versions}
            for i, frame in enumerate(versions):
                if i == 0 and not frame.recompiles:
                    continue
                for recompile in frame.recompiles or ():
                    earlier = by_id.get(recompile.earlier_compile_id or "") or (
                        versions[i - 1] if i else None
                    )
                    if earlier is None or earlier is frame:
                        continue
                    why = recompile.guard or one_line(recompile.text, 100)
                    dot.edge(
                        _frame_id(earlier),
                        _frame_id(frame),
                        label=Html(f"recompile: guard failed<BR/>{html(clip(why, 90))}"),
                        style="dashed",
                        color="#6a51a3",
                        fontcolor="#54278f",
                    )


def _frame_node(dot: _Dot, frame: Frame) -> None:
    details = [frame.status.replace("_", " ")]
    if frame.kernel_count:
        details.append(_n(frame.kernel_count, "kernel"))
    if frame.metrics.entire_frame_s is not None:
        details.append(f"compiled in {frame.metrics.entire_frame_s:.1f} s")
    lines = [f"<B>{html(frame.compile_id)}</B>", html(" · ".join(details))]
    if frame.failure is not None:
        lines.append(
            html(one_line(f"{frame.failure.fail_type or 'failed'}: {frame.failure.reason or ''}", 90))
        )
    dot.node(
        _frame_id(frame),
        label=Html("<BR/>".join(lines)),
        fillcolor=STATUS_FILL.get(frame.status, "white"),
        tooltip=f"{frame.compile_id} {frame.function or ''}\n{frame.location}",
    )


def _draw_breaks(dot: _Dot, frame: Frame, frames: list[Frame], cwd: str | None) -> None:
    if not frame.graph_breaks:
        return
    target = _resume_target(frame, frames)
    head = _frame_id(target) if target is not None else f"eager:{_frame_id(frame)}"
    if target is None:
        dot.node(head, label="continues eagerly", shape="plaintext", style="", fontcolor="#777777")
    seen: set[tuple[str, str | None, int | None]] = set()
    for gb in frame.graph_breaks:
        key = (gb.reason, gb.filename, gb.line)
        if key in seen:
            continue
        seen.add(key)
        where = f"{_short_loc(gb.filename, cwd)}:{gb.line}" if gb.filename else "?"
        dot.edge(
            _frame_id(frame),
            head,
            label=Html(
                f"<B>graph break</B><BR/>{html(one_line(gb.reason, 80))}<BR/>{_small(html(where, 100))}"
            ),
            color="#cb181d",
            fontcolor="#a50f15",
            penwidth="1.5",
        )


def _short_loc(path: str | None, cwd: str | None) -> str:
    if not path:
        return "?"
    if cwd and os.path.isabs(path):
        try:
            rel = os.path.relpath(path, cwd)
        except ValueError:
            rel = path
        if not rel.startswith(".."):
            return rel
    return _short(path)


# --------------------------------------------------------------------------- rendering


def svg(dot_text: str, *, timeout_s: float | None = None) -> str:
    """*dot_text* laid out by ``dot`` as SVG text (``IPython.display.SVG(svg(...))`` in a notebook)."""
    return _run_dot(dot_text, "svg", None, timeout_s).decode("utf-8")


def render(dot_text: str, path: str | os.PathLike[str], *, timeout_s: float | None = None) -> Path:
    """Write *dot_text* to *path*, in the format its extension names (.svg .png .pdf .dot)."""
    target = Path(path)
    fmt = FORMATS.get(target.suffix.lower())
    if fmt is None:
        known = ", ".join(FORMATS)
        raise UsageError(f"cannot tell the picture format of {target.name!r}: use one of {known}")
    if not target.parent.is_dir():
        raise UsageError(f"cannot write {target}: no such directory {target.parent}")
    if fmt == "dot":
        target.write_text(dot_text, encoding="utf-8")
        return target
    _run_dot(dot_text, fmt, target, timeout_s)
    return target


def _run_dot(dot_text: str, fmt: str, target: Path | None, timeout_s: float | None) -> bytes:
    """Run Graphviz's ``dot -T<fmt>``: into *target*, or returning its output."""
    name = target.name if target is not None else f"the {fmt.upper()}"
    exe = shutil.which("dot")
    if exe is None:
        raise GraphvizMissing(
            f"writing {name} needs Graphviz's `dot`, which is not on PATH: {INSTALL_HINT}"
            " (a .dot file needs no Graphviz)"
        )
    cmd = [exe, f"-T{fmt}", *(["-o", str(target)] if target is not None else [])]
    try:
        proc = subprocess.run(
            cmd, input=dot_text.encode("utf-8"), capture_output=True, timeout=timeout_s, check=False
        )
    except subprocess.TimeoutExpired:
        raise RenderError(f"dot took more than {timeout_s:.0f} s for {name}: try --max-nodes") from None
    except OSError as exc:
        raise RenderError(f"cannot run {exe}: {exc.strerror or exc}") from None
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        first = next((line for line in err if "Error" in line), err[0] if err else "")
        raise RenderError(f"dot failed (exit {proc.returncode}) writing {name}: {clip(first, 200)}")
    return proc.stdout
