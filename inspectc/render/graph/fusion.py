"""The fusion view of one frame: its post-grad FX graph with each kernel's nodes in a cluster.

``fusion_dot(report, "0/1")`` draws one node per op, the nodes each generated kernel fused
inside one cluster coloured by the kernel's share of the frame's measured time, extern
kernels, inputs and outputs in their own shapes, and edges that are the FX graph's data flow.
Big graphs fold by module path or kernel (:mod:`.plan`). The DOT is built with
``graphviz.Digraph``; report text goes in through :mod:`.style` only. No torch.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import graphviz

from inspectc.analysis.roofline import launch_reads, roofline
from inspectc.errors import UsageError
from inspectc.model import CompileId, Frame, Kernel, Run
from inspectc.model import fxgraph as fxtext
from inspectc.render.graph.breaks import breaks_dot as breaks_dot  # tests/test_import_hygiene.py
from inspectc.render.graph.plan import Fusion, Plan, find_frame, make_plan
from inspectc.render.graph.style import (
    BIG_GRAPH,
    EXTERN_FILL,
    FAST_LAYOUT,
    FONT,
    INPUT_FILL,
    OUTPUT_FILL,
    UNTIMED,
    font_on,
    fraction_fill,
    graph_where,
    html,
    ident,
    isolated_text,
    label,
    legend_table,
    plain,
    plural,
    share_fill,
    short_path,
    small,
    time_text,
)
from inspectc.store.bench import BenchResults
from inspectc.store.reader import Report

__all__ = ["breaks_dot", "fusion_dot"]


def fusion_dot(
    report: Report,
    cid: CompileId,
    *,
    rank: int | None = None,
    max_nodes: int | None = None,
    module: str | None = None,
    collapse: int | None = None,
    backward: bool = False,
    color_by: str = "share",
    links: Callable[[Kernel], str] | None = None,
) -> str:
    """DOT text of frame *cid*'s post-grad graph with its kernels as clusters.

    Clusters are coloured by the kernel's share of the frame's time, or with
    ``color_by="roofline"`` by its achieved fraction of the device bandwidth (``inspectc bench``).

    *backward* draws the backward graph (``post_grad_backward``) and its kernels.
    *module* keeps the nodes of one module path (``layers.3.attn``) and their neighbours;
    *collapse* folds nodes into one box per module path of that depth; *max_nodes* collapses
    (deepest module depth that fits, then one box per kernel) and finally truncates.
    *links* gives each kernel's cluster and nodes a link (``#kernel-...`` in the HTML page).
    """
    frame = find_frame(report, cid, rank)
    kind = "post_grad_backward" if backward else "post_grad"
    text = report.graph(frame.compile_id, kind)
    if text is None:
        recorded = ", ".join(k for k in frame.graph_kinds if "post_grad" in k) or "none"
        cache = " (an FX graph cache hit does not log it: capture with --fresh)"
        raise UsageError(
            f"frame {frame.compile_id} has no {kind} graph in this report"
            f" (post-grad graphs recorded: {recorded}){cache if frame.cache.get('fx_graph') == 'hit' else ''}"
        )
    code_kind = "output_code_backward" if backward else "output_code"
    kernels = [k for k in report.frame_kernels(frame.compile_id) if k.graph_kind == code_kind]
    fusion = Fusion(fxtext.parse(text), kernels)
    plan = make_plan(fusion, module, collapse, max_nodes)
    reads = launch_reads(report, kernels) if report.bench.run is not None else {}  # % limit's bytes
    return _FusionWriter(
        frame, fusion, plan, backward, report.bench, color_by, reads, links, report.run
    ).write()


def fx_id(name: str, kernel: Kernel | None = None) -> str:
    """DOT id of FX node *name*, or of its copy recomputed inside *kernel*."""
    return ident(f"fx/{name}" if kernel is None else f"fx/{name}@k{kernel.id}")


class _FusionWriter:
    def __init__(
        self,
        frame: Frame,
        fusion: Fusion,
        plan: Plan,
        backward: bool,
        bench: BenchResults,
        color_by: str,
        reads: dict[int, int] | None = None,
        links: Callable[[Kernel], str] | None = None,
        run: Run | None = None,
    ) -> None:
        self.run = run  # its folder and a notebook's cells, for the title's location
        self.frame, self.fusion, self.plan, self.backward = frame, fusion, plan, backward
        self.links = links
        self.bench, self.color_by = bench, color_by
        self.reads = reads or {}  # kernel id -> input bytes of its recorded launch
        self.drawn: set[str] = set()
        big = len(plan.names) > BIG_GRAPH
        self.dot = graphviz.Digraph(
            plain(f"fusion {frame.compile_id}"),
            graph_attr={
                "rankdir": "TB",
                "fontname": FONT,
                "labelloc": "t",
                "label": label(self._title()),
                **(FAST_LAYOUT if big else {}),
            },
            node_attr={
                "fontname": FONT,
                "fontsize": "10",
                "shape": "box",
                "style": "rounded,filled",
                "fillcolor": "white",
            },
            edge_attr={"color": "#666666", "arrowsize": "0.6"},
        )

    def write(self) -> str:
        names = self.plan.names
        singles = [n for n in names if n not in self.plan.unit]
        clustered = self._clusters(singles)
        for name in singles:
            if name not in clustered:
                self._node(self.dot, name)
        groups: dict[str, list[str]] = {}
        for name in names:
            if name in self.plan.unit:
                groups.setdefault(self.plan.unit[name], []).append(name)
        for group, members in groups.items():
            self._group(group, members)
        self._edges(names)
        self._outputs(names)
        self._legend()
        return self.dot.source

    def _where(self, filename: str | None, line: int | None) -> str:
        if self.run is not None and self.run.cell(filename) is not None:
            return graph_where(filename, line, self.run)  # cell [3], line 7
        return f"{short_path(filename)}:{line}"

    def _title(self) -> str:
        f = self.frame
        name = f.shown_name or "?"  # BertModel.forward, not transformers' ``wrapper``
        site = f.call_site if f.callable_name and f.call_site and f.call_site.filename else None
        if site is not None:  # the frame's code is a library's wrapper: the user's line that called it
            where = f"{name} called at {self._where(site.filename, site.line)}"
        else:
            where = f"{name} at {self._where(f.filename, f.line)}" if f.filename else name
        which = "backward" if self.backward else "forward"
        gen = len(self.fusion.generated)
        ext = sum(1 for k in self.fusion.kernels if k.language == "extern")
        lines = [
            f"<B>Frame {html(f.compile_id)}</B> · {which} post-grad graph · {html(where, 120)}",
            f"{plural(len(self.fusion.graph), 'node')} · {plural(gen, 'generated kernel')}"
            f" · {plural(ext, 'extern call')}",
        ]
        if self.fusion.unplaced:
            names = ", ".join(k.name for k in self.fusion.unplaced[:4])
            count = plural(len(self.fusion.unplaced), "kernel")
            lines.append(html(f"{count} without fused nodes (provenance off?): {names}", 160))
        lines.extend(html(note, 160) for note in self.plan.notes)
        return "<BR/>".join(lines)

    def _clusters(self, singles: list[str]) -> set[str]:
        """One cluster per generated kernel whose members are drawn one by one."""
        drawn: set[str] = set()
        single_set = set(singles)
        whole = not self.plan.unit and not self.plan.context
        for kernel in self.fusion.generated:
            members = [n for n in dict.fromkeys(kernel.fused_nodes) if n in single_set]
            missing = self.fusion.missing.get(kernel.id, []) if whole else []
            if not members and not missing:
                continue
            fill = self._fill(kernel)
            title = f"<B>{html(kernel.name, 80)}</B><BR/>" + small(
                html(f"{kernel.language} {kernel.kind} · {time_text(kernel)}")
                + "<BR/>"
                + html(isolated_text(kernel, self.bench, self.reads.get(kernel.id))),
                9,
                font_on(fill),
            )
            attrs = {
                "label": label(title),
                "style": "filled,rounded",
                "fillcolor": fill,
                "color": "#8c2d04" if kernel.time else "#999999",
                "fontcolor": font_on(fill),
                "fontname": FONT,
                "tooltip": plain(
                    f"{kernel.name}\n{len(kernel.fused_nodes)} fused nodes\n{time_text(kernel)}"
                    f"\n{isolated_text(kernel, self.bench, self.reads.get(kernel.id))}"
                ),
            }
            if self.links is not None:
                attrs["href"] = self.links(kernel)
            with self.dot.subgraph(name=f"cluster_k{kernel.id}", graph_attr=attrs) as cluster:
                for name in members:
                    if self.fusion.home.get(name) is kernel:
                        self._node(cluster, name)
                        drawn.add(name)
                    else:
                        self._node(cluster, name, copy_of=kernel)
                for name in missing:
                    cluster.node(
                        fx_id(name, kernel),
                        label=label(f"{html(name, 40)}<BR/>{small('not in the graph')}"),
                        style="rounded,dotted",
                        fillcolor="white",
                    )
        return drawn

    def _fill(self, kernel: Kernel) -> str:
        if self.color_by == "roofline":
            r = roofline(kernel, self.bench, self.reads.get(kernel.id))
            return fraction_fill(r.fraction if r is not None else None)
        return share_fill(kernel.time.share if kernel.time else None)

    def _node(self, into: graphviz.Digraph, name: str, copy_of: Kernel | None = None) -> None:
        node = self.fusion.graph.node(name)
        assert node is not None
        node_id = fx_id(name, copy_of)
        meta = node.meta.short() if node.meta else ""
        op = "input" if node.op == fxtext.PLACEHOLDER else node.op_name
        markup = (
            f"<B>{html(op, 40)}</B><BR/>{small(html(name, 40) + (' · ' + html(meta, 60) if meta else ''))}"
        )
        attrs: dict[str, str] = {}
        kernel = self.fusion.kernel_of(name)
        if node.op == fxtext.PLACEHOLDER:
            attrs.update(shape="invhouse", fillcolor=INPUT_FILL, style="filled")
        elif node.op == fxtext.GET_ATTR:
            attrs.update(shape="cylinder", fillcolor=UNTIMED, style="filled")
        elif copy_of is not None:
            markup += "<BR/>" + small("recomputed here")
            attrs.update(style="rounded,filled,dashed")
        elif kernel is not None and kernel.language == "extern":
            markup += "<BR/>" + small(
                html(f"extern {kernel.name}", 50)
                + " · "
                + html(time_text(kernel))
                + "<BR/>"
                + html(isolated_text(kernel, self.bench, self.reads.get(kernel.id)))
            )
            attrs.update(shape="box3d", fillcolor=EXTERN_FILL, style="filled")
        elif kernel is None:
            attrs.update(style="rounded,dashed", color="#999999", fontcolor="#555555")
        if name in self.plan.context:
            attrs.update(style="dashed", fillcolor="white", color="#bbbbbb", fontcolor="#777777")
        where = f"\n{node.filename}:{node.line}\n{node.code or ''}" if node.filename else ""
        module = self.fusion.module.get(name)
        tooltip = (
            f"{name}: {node.target}\n{node.meta.raw if node.meta else ''}"
            + (f"\nmodule {module}" if module else "")
            + where
        )
        if self.links is not None and (copy_of or kernel) is not None:
            attrs["href"] = self.links(copy_of or kernel)  # type: ignore[arg-type]
        into.node(node_id, label=label(markup), tooltip=plain(tooltip), **attrs)
        self.drawn.add(node_id)

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
        graph = self.fusion.graph
        ops = sum(1 for n in members if (node := graph.node(n)) and node.op != fxtext.PLACEHOLDER)
        time = html(f"{share:.0%} of frame kernel time" if timed else "not timed")
        if self.color_by == "roofline":
            fill, extra = self._group_roofline([k for k in self.fusion.kernels if k.id in kernels])
            time += f"<BR/>{extra}"
        name = self.plan.group_label.get(group, group)
        markup = (
            f"<B>{html(name, 60)}</B><BR/>{plural(ops, 'op')} · {plural(len(kernels), 'kernel')}<BR/>{time}"
        )
        self.dot.node(
            group,
            label=label(markup),
            shape="box",
            style="filled,bold",
            fillcolor=fill,
            fontcolor=font_on(fill),
            tooltip=plain(f"{name}: {len(members)} nodes"),
        )
        self.drawn.add(group)

    def _group_roofline(self, kernels: list[Kernel]) -> tuple[str, str]:
        """Fill and text for a folded box: the mean fraction of its kernels that have one."""
        found = [
            f
            for k in kernels
            if (r := roofline(k, self.bench, self.reads.get(k.id))) is not None
            and (f := r.fraction) is not None
        ]
        if not found:
            return fraction_fill(None), "% of limit: not measured"
        mean = sum(found) / len(found)
        return fraction_fill(mean), html(f"{mean:.0%} of limit (mean of {plural(len(found), 'kernel')})")

    def _instances(self, name: str) -> list[tuple[str, int | None]]:
        """DOT ids drawing *name* with the kernel each sits in (copies for recomputed nodes)."""
        if name in self.plan.unit:
            return [(self.plan.unit[name], None)]
        home = self.fusion.home.get(name)
        found = [(fx_id(name), home.id if home else None)]
        found += [(fx_id(name, k), k.id) for k in self.fusion.copies.get(name, ())]
        return [(i, k) for i, k in found if i in self.drawn]

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
        if not self.fusion.graph.outputs:
            return
        kept = set(names)
        outputs = [o for o in dict.fromkeys(self.fusion.graph.outputs) if o in kept]
        total = len(self.fusion.graph.outputs)
        self.dot.node(
            "output",
            label=label(f"<B>output</B><BR/>{small(f'{total} values')}"),
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
        self.dot.node(
            "legend", label=label(legend_table(self.color_by)), shape="plaintext", style="", fontsize="9"
        )
