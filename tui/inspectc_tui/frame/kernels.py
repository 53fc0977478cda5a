"""The Kernels tab: the frame's kernels, sortable; the selected one's timing, fused FX
nodes and origins, and its Triton or C++ source (read when selected).

From here fusion navigation goes to a fused node's line in the FX graph, or to the user
source line an origin came from."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.reactive import var
from textual.widget import Widget
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from inspectc.analysis.roofline import METHODS, Roofline, roofline
from inspectc.model import Kernel, Origin
from inspectc.model.kernel_detail import KernelDetail
from inspectc.render.compiled import cpp_lines, detail_lines
from inspectc.render.roofline import limit_text
from inspectc.render.timefmt import NOISY, column_unit, cv_text, noise_text, typical
from inspectc.render.words import no_graph_reason
from inspectc.store.bench import BenchResults
from inspectc_tui.frame.base import FramePane, Location
from inspectc_tui.frame.stages import KernelStages
from inspectc_tui.fusion import graph_for_kernel
from inspectc_tui.text import literal, location, micros, percent
from inspectc_tui.widgets.code_view import CodeView
from inspectc_tui.widgets.table import Column, VirtualTable


def _num(text: str) -> Text:
    return Text(text, justify="right")


def _isolated_us(bench: BenchResults, k: Kernel) -> float | None:
    fig = bench.primary(k.compile_id, k.graph_kind, k.name)
    return fig.median_us if fig else None


def pass_name(k: Kernel) -> str:
    """``fwd``/``bwd``: which compiled graph of the frame ran the kernel (its output code)."""
    return "bwd" if k.graph_kind.endswith("_backward") else "fwd"


def _fraction(r: Roofline | None) -> float:
    return r.fraction if r is not None and r.fraction is not None else -1.0


class KernelTable(VirtualTable):
    def fill(
        self, kernels: list[Kernel], bench: BenchResults | None = None, reads: dict[int, int] | None = None
    ) -> None:
        """*reads*: input bytes of each kernel's recorded launch, for % limit (analysis/roofline.py)."""
        bench = bench if bench is not None else BenchResults()
        reads = reads or {}
        roofs = {k.id: roofline(k, bench, reads.get(k.id)) for k in kernels}
        self.reset()
        # one unit per time column, from the column's values (render.timefmt)
        tot = column_unit(k.time.total_us if k.time else None for k in kernels)
        med = column_unit(typical(k.time) for k in kernels)
        iso = column_unit(_isolated_us(bench, k) for k in kernels)
        # isolated time and % of limit only where some kernel was measured (inspectc bench):
        # otherwise two columns of "not measured" take the name's room
        measured = any(_isolated_us(bench, k) is not None for k in kernels)
        columns = [
            Column(
                "total", _num(f"Total {tot.name}"), sort_key=lambda k: -(k.time.total_us if k.time else -1.0)
            ),
            Column("share", _num("Share"), sort_key=lambda k: -((k.time.share or 0.0) if k.time else -1.0)),
        ]
        if measured:
            columns += [
                Column(
                    "isolated",
                    _num(f"Isolated {iso.name}"),
                    sort_key=lambda k: -(_isolated_us(bench, k) or -1.0),
                ),
                Column("limit", _num("% limit"), sort_key=lambda k: -_fraction(roofs[k.id])),
            ]
        columns += [
            # cut at the end: a kernel's name reads from its start (triton_poi_fused_add_...)
            Column("name", Text("Kernel"), 80, sort_key=lambda k: k.name, flex=True, min_width=20),
            Column("pass", Text("Pass"), sort_key=lambda k: pass_name(k)),
            Column("language", Text("Lang"), sort_key=lambda k: k.language),
            Column("calls", _num("n"), sort_key=lambda k: -(k.time.calls if k.time else -1)),
            Column("median", _num(f"Median {med.name}"), sort_key=lambda k: -(typical(k.time) or -1.0)),
            Column("cv", _num("CV"), sort_key=lambda k: -(k.time.cv or 0.0) if k.time else 1.0),
            Column("noise", Text("Noise"), sort_key=lambda k: noise_text(k.time)),
            Column("nodes", _num("Nodes"), sort_key=lambda k: -len(k.fused_nodes)),
            Column("size", _num("Size"), sort_key=lambda k: -k.source_size),
        ]
        self.set_columns(*columns)
        for kernel in kernels:
            t = kernel.time
            noisy = bool(t and t.noise)
            bench_cells = (
                [
                    _num(iso.fmt(us) if (us := _isolated_us(bench, kernel)) is not None else "-"),
                    _num(limit_text(roofs[kernel.id])),
                ]
                if measured
                else []
            )
            cells = [
                Text(tot.fmt(t.total_us if t else None), justify="right", style="bold"),
                _num(percent(t.share if t else None)),
                *bench_cells,
                literal(kernel.name, "green"),
                Text(pass_name(kernel)),
                literal(kernel.language),
                _num(str(t.calls) if t else "-"),
                Text(med.fmt(typical(t)), justify="right", style="yellow" if noisy else ""),
                _num(cv_text(t)),
                Text(NOISY if noisy else "", style="yellow"),
                _num(str(len(kernel.fused_nodes))),
                _num(f"{kernel.source_size / 1024:.1f}K"),
            ]
            self.add_object(str(kernel.id), kernel, cells)
        if any(k.time for k in kernels):
            self.sort_by("total", reverse=False)
        self.done()


class KernelsPane(FramePane):
    # The highlighted kernel: the table sets it, watch_selected shows its details.
    selected: var[Kernel | None] = var(None, init=False)

    @dataclass(eq=False)
    class NodeChosen(Message):
        """Go to a fused node's definition in an FX graph."""

        node: str
        kind: str

    @dataclass(eq=False)
    class OriginChosen(Message):
        """Show the user source an origin came from."""

        origin: Origin

    @dataclass(eq=False)
    class SourceRead(Message):
        """A kernel's source (and compiled stages, where recorded) was read off the UI thread."""

        kernel_id: int
        text: str
        detail: KernelDetail | None = None

    BINDINGS = [Binding("s", "next_stage", "IR stage")]

    def build(self) -> ComposeResult:
        with Horizontal(id="kernels-body"):
            yield KernelTable(id="kernel-table")
            with Vertical(id="kernel-detail"):
                yield Static(id="kernel-info")
                yield OptionList(id="kernel-links")
                yield Static(id="kernel-caption")
                yield CodeView(id="kernel-source")

    def load(self) -> None:
        self.kernels = self.data.frame_kernels(self.frame)
        if not self.kernels:
            self.query_one("#kernel-table").display = False
            self.query_one("#kernel-links").display = False
            self.query_one("#kernel-source").display = False
            self.query_one("#kernel-caption").display = False
            why = Text("No kernels were generated for this frame.", style="dim")
            if not [k for k in self.frame.graph_kinds if k != "guards"]:
                gb = self.frame.graph_breaks[0] if self.frame.graph_breaks else None
                where = location(gb.filename, gb.line, self.data.run) if gb else None
                why.append(" " + no_graph_reason(self.frame, where), style="dim italic")
            self.query_one("#kernel-info", Static).update(why)
            return
        reads = self.data.launch_reads(self.kernels) if self.data.bench.run is not None else {}
        self.query_one(KernelTable).fill(self.kernels, self.data.bench, reads)

    def main_widget(self) -> Widget | None:
        return self.query_one(KernelTable) if self.kernels else None

    def select(self, kernel_id: int) -> None:
        self.query_one(KernelTable).select_key(str(kernel_id))

    @on(VirtualTable.RowHighlighted, "#kernel-table")
    def _highlighted(self, event: VirtualTable.RowHighlighted) -> None:
        kernel = self.query_one(KernelTable).object_for(event.key)
        if isinstance(kernel, Kernel):
            self.selected = kernel

    def watch_selected(self, kernel: Kernel | None) -> None:
        if kernel is None:
            return
        self.query_one("#kernel-info", Static).update(self._info(kernel))
        links = self.query_one("#kernel-links", OptionList)
        links.clear_options()
        links.add_options(self._links(kernel))
        links.display = links.option_count > 0
        self.query_one("#kernel-caption", Static).update(Text(f"reading {kernel.name}…"))
        self._read(kernel)

    def _info(self, kernel: Kernel) -> Text:
        out = Text()
        out.append_text(literal(kernel.name, "bold green"))
        out.append(f"  {kernel.language} · {kernel.kind} · {kernel.graph_kind}\n", style="dim")
        t = kernel.time
        if t is None:
            out.append(f"not timed: {self._untimed_reason(kernel)}", style="dim")
        else:
            if t.median_us is not None:
                out.append(f"median {micros(t.median_us)}", style="bold")
            else:  # a schema-2 report kept no samples
                out.append(f"mean {micros(t.mean_us)} (median not recorded)", style="bold")
            launches = f" ({t.launches} launches each)" if t.launches and t.launches > 1 else ""
            out.append(
                f" per call, n={t.calls}{launches} · min {micros(t.min_us)} · p90 {micros(t.p90_us)} · "
                f"max {micros(t.max_us)} · CV {cv_text(t)} · total {micros(t.total_us)} · "
                f"{percent(t.share)} of the frame"
            )
            if t.noise:
                out.append(f"\n{NOISY}: {t.noise}", style="yellow")
        out.append_text(self._isolated(kernel))
        if not kernel.fused_nodes and not kernel.origins:
            out.append("\nno provenance recorded (fused nodes, origins)", style="dim")
        return out

    def _untimed_reason(self, kernel: Kernel) -> str:
        """Why a kernel has no run time, from what the run recorded."""
        options = self.data.run.options
        if options.timings is False:
            return "the run was captured with --no-timings"
        if options.timings is None:
            return "this report records no kernel times (an import of TORCH_TRACE logs, or an older capture)"
        window = options.profile_window
        calls = (
            f"calls {window[0] + 1}-{window[0] + window[1]}"
            if window and len(window) == 2
            else "the profiled calls"
        )
        same_frame = [
            k for k in self.data.kernels if k.compile_id == kernel.compile_id and k.rank == kernel.rank
        ]
        if any(k.time for k in same_frame):
            return f"it did not launch during {calls} of its frame (the other kernels did)"
        return f"its frame's graph did not run during {calls} (--profile-window SKIP:COUNT)"

    def _isolated(self, kernel: Kernel) -> Text:
        """The isolated figures of `inspectc bench` and the roofline, one line each."""
        bench = self.data.bench
        out = Text()
        found = bench.kernel(kernel.compile_id, kernel.graph_kind, kernel.name)
        if not found:
            out.append("\nisolated: not measured (inspectc bench)", style="dim")
        for fig in found.values():
            out.append(f"\nisolated ({fig.method}): ", style="dim")
            out.append(f"median {micros(fig.median_us)}", style="bold")
            out.append(
                f" per {fig.per} · n={fig.n} · min {micros(fig.min_us)} · p90 {micros(fig.p90_us)}"
                f" · CV {fig.cv * 100:.0f}%"
                + ("" if fig.stable else " · unstable")
                + (" · few samples" if fig.few else "")
            )
        reads = self.data.launch_reads([kernel]).get(kernel.id) if bench.run is not None else None
        r = roofline(kernel, bench, reads)
        if r is not None:
            out.append(f"\nroofline ({r.method}): ", style="dim")
            if r.gbps is not None and r.limit_gbps:
                out.append(f"{limit_text(r)} of the {r.limit} {r.limit_gbps:.0f} GB/s", style="bold")
                out.append(
                    f" · {r.gb * 1e3 if r.gb else 0:.2f} MB per launch at {r.gbps:.0f} GB/s ({r.basis})"
                )
                if r.flop and r.tflops is not None:
                    out.append(f" · {r.flop / 1e9:.2f} GFLOP at {r.tflops:.1f} TFLOP/s")
                out.append(f"\n  {METHODS[r.method]}", style="dim")
            else:
                out.append(r.status, style="dim")
        return out

    def _links(self, kernel: Kernel) -> list[Option]:
        """The user source lines first (what you came for), then the fused FX nodes."""
        base = self.data.run
        options = []
        for index, origin in enumerate(kernel.origins):
            label = Text("origin  ", style="cyan") + literal(origin.op, "bold")
            label.append("  ")
            label.append_text(literal(location(origin.filename, origin.line, base), "cyan"))
            if origin.module:
                label.append("  ")
                label.append_text(literal(origin.module, "dim"))
            options.append(Option(label, id=f"o{index}"))
        for index, node in enumerate(kernel.fused_nodes):
            label = Text("node    ", style="magenta") + literal(node, "bold")
            label.append("  → FX graph", style="dim")
            options.append(Option(label, id=f"n{index}"))
        return options

    @on(OptionList.OptionSelected, "#kernel-links")
    def _link_chosen(self, event: OptionList.OptionSelected) -> None:
        kernel = self.selected
        if kernel is None or not event.option.id:
            return
        index = int(event.option.id[1:])
        if event.option.id.startswith("n"):
            kind = graph_for_kernel(kernel, self.frame.graph_kinds)
            if kind is None:
                self.app.notify("this frame has no FX graph to show the node in", severity="warning")
                return
            self.post_message(self.NodeChosen(kernel.fused_nodes[index], kind))
        else:
            self.post_message(self.OriginChosen(kernel.origins[index]))

    @work(thread=True, exclusive=True, group="kernel-source", exit_on_error=False)
    def _read(self, kernel: Kernel) -> None:
        text = self.data.kernel_source(kernel)
        self.post_message(self.SourceRead(kernel.id, text, self.data.kernel_detail(kernel)))

    @on(SourceRead)
    def _show_source(self, message: SourceRead) -> None:
        kernel = self.selected
        if kernel is None or kernel.id != message.kernel_id:
            return
        self.stages = KernelStages(message.text, message.detail)
        self.stage = "source"
        self.chosen_line: int | None = None
        self._show_stage()
        if message.detail is not None:
            facts = detail_lines(message.detail)
        elif kernel.language == "cpp":
            facts = cpp_lines(kernel, self.data.cpu_build())[:2]
        else:
            facts = []
        if facts:
            info = self._info(kernel)
            info.append("\n" + "\n".join(facts), style="dim")
            self.query_one("#kernel-info", Static).update(info)

    def action_next_stage(self) -> None:
        """``s``: the next compiled stage (source, ttir, ttgir, llir, ptx, sass) of the kernel."""
        stages = getattr(self, "stages", None)
        if stages is None:
            return
        names = stages.names()
        self.stage = names[(names.index(self.stage) + 1) % len(names)] if self.stage in names else names[0]
        self._show_stage()

    def _show_stage(self) -> None:
        kernel, stages = self.selected, self.stages
        if kernel is None:
            return
        view = self.query_one("#kernel-source", CodeView)
        text = stages.text(self.stage)
        marks = stages.marks(self.stage, self.chosen_line)
        first = min(marks) if marks else None
        view.set_text(text, language=stages.language(self.stage, kernel.language), marks=marks, cursor=first)
        if first is not None:
            view.show_line(first)
        caption = Text(f"{kernel.language} source" if self.stage == "source" else self.stage, style="bold")
        caption.append(f"  ·  {view.line_count:,} lines", style="dim")
        if not text:
            caption.append("  ·  not in the report", style="dim")
        if len(stages.names()) > 1:  # compiled stages recorded (a Triton kernel with kernel detail)
            caption.append(f"  ·  {stages.tabs(self.stage)}", style="dim")
        if self.chosen_line is not None:
            caption.append(f"  ·  python line {self.chosen_line}: {len(marks)} lines here", style="cyan")
        self.query_one("#kernel-caption", Static).update(caption)

    @on(CodeView.LineChosen, "#kernel-source")
    def _line_chosen(self, event: CodeView.LineChosen) -> None:
        """Enter on a line: its Python line, and where it went in every stage."""
        kernel, stages = self.selected, getattr(self, "stages", None)
        if kernel is None or stages is None or stages.detail is None:
            return
        py = stages.python_line(self.stage, event.index + 1)
        if py is None:
            self.app.notify("this line has no Python location", severity="warning")
            return
        self.chosen_line = py
        message = stages.summary(py) + (
            f"\nfused nodes: {', '.join(kernel.fused_nodes)}" if kernel.fused_nodes else ""
        )
        self.app.notify(message, title=f"python line {py}", timeout=8)
        self._show_stage()

    def current_location(self) -> Location | None:
        links = self.query_one("#kernel-links", OptionList)
        kernel = self.selected
        if kernel is None:
            return None
        option = links.highlighted_option if links.has_focus else None
        if option is not None and option.id and option.id.startswith("o"):
            origin = kernel.origins[int(option.id[1:])]
            return (origin.filename, origin.line)
        if kernel.origins:
            return (kernel.origins[0].filename, kernel.origins[0].line)
        return None
