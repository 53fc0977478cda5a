"""Every frame and every kernel of a report as an article of the page: a one-line head (always
there) and a body (its sections from :mod:`inspectc.render.sections.frame` and ``.kernel``,
its fusion picture), built only when the page has room for it."""

from __future__ import annotations

from collections.abc import Callable

from inspectc.analysis.remedies import Remedy, by_break
from inspectc.analysis.resume import bytecode, shown_function
from inspectc.analysis.views import shown_status
from inspectc.errors import InspectcError
from inspectc.model import CompileId, Frame, Kernel, fxgraph
from inspectc.render.html import sections as html_sections
from inspectc.render.html.sections import esc
from inspectc.render.sections import frame as frame_sections
from inspectc.render.sections import kernel as kernel_sections
from inspectc.render.sections import plural
from inspectc.render.sections.anchors import KernelAnchors, frame_anchor
from inspectc.store.reader import Report

PICTURE_TIMEOUT_S = 20.0


class Articles:
    """Heads and bodies of a report's frames and kernels, with what they share (computed once)."""

    def __init__(self, report: Report, *, pictures: int, report_name: str) -> None:
        self.report = report
        self.frames = report.frames
        self.kernels = report.kernels
        self.anchors = KernelAnchors(self.kernels)
        self.by_frame: dict[CompileId, list[Kernel]] = {}
        for k in self.kernels:
            self.by_frame.setdefault(k.compile_id, []).append(k)
        self.fixes: dict[tuple[str | None, int | None], list[Remedy]] = by_break(self.frames)
        self.pictures_left = pictures
        self.pictures = pictures
        self.report_name = report_name
        self._node_lines: dict[tuple[CompileId, str], dict[str, int]] = {}

    # -- heads ----------------------------------------------------------------------------
    def frame_head(self, f: Frame) -> str:
        anchor = frame_anchor(f.compile_id)
        return (
            f"{esc(f.compile_id.label)} {esc(shown_function(f))}"
            f'<span class="st st-{esc(shown_status(f))}">{esc(shown_status(f))}</span>'
            f'<span class="st">{esc(plural(len(f.graph_breaks), "break"))} · {esc(plural(f.kernel_count, "kernel"))}</span>'
            f'<a class="permalink" href="#{esc(anchor)}" title="link to this frame">#</a>'
        )

    def frame_attrs(self, f: Frame) -> str:
        return (
            f'class="article frame" id="{esc(frame_anchor(f.compile_id))}" data-breaks="{len(f.graph_breaks)}"'
            f' data-recompiles="{len(f.recompiles)}" data-kernels="{f.kernel_count}"'
        )

    def kernel_head(self, k: Kernel) -> str:
        t = k.time
        timed = f"{t.typical_us:,.1f} µs × {t.calls}" if t is not None else "not timed"
        return (
            f"<code>{esc(k.name)}</code>"
            f'<span class="st">{esc(k.compile_id.label)} · {esc(k.language)} · {esc(timed)}</span>'
            f'<a class="permalink" href="#{esc(self.anchors(k))}" title="link to this kernel">#</a>'
        )

    def kernel_attrs(self, k: Kernel) -> str:
        return f'class="article kernel" id="{esc(self.anchors(k))}" data-frame="{esc(k.compile_id.label)}"'

    # -- bodies ---------------------------------------------------------------------------
    def frame_body(self, f: Frame) -> str:
        report = self.report
        found = frame_sections.frame_sections(
            f,
            self.frames,
            report.run,
            kernels_of_frame=self.by_frame.get(f.compile_id, []),
            anchors=self.anchors,
            fixes=self.fixes,
            graph_text=lambda kind: report.graph(f.compile_id, kind, f.rank),
            bytecode=lambda resumed: bytecode(report, resumed),
        )
        return "".join(html_sections.section_html(s, level=4) for s in found) + self._picture(f)

    def kernel_body(self, k: Kernel) -> str:
        report = self.report
        detail = report.kernel_detail(k) if k.language == "triton" else None
        found = [
            kernel_sections.facts(k, report.run, report.bench, detail),
            kernel_sections.origins(k, report.run, self._node_link(k)),
            kernel_sections.compiled(
                k, detail, report.cpu_build() if k.language == "cpp" else None, self.anchors(k)
            ),
            kernel_sections.source(
                k, report.kernel_source(k) if k.language != "extern" else None, self.report_name
            ),
        ]
        return "".join(html_sections.section_html(s, level=4) for s in found if s is not None)

    def _picture(self, frame: Frame) -> str:
        """The frame's fusion picture (Graphviz's dot, bounded in time) while the budget lasts."""
        if "post_grad" not in frame.graph_kinds or not frame.kernel_count:
            return ""
        if self.pictures_left <= 0:
            return (
                f'<p class="note">Fusion picture: not drawn here (a page draws {self.pictures});'
                f" inspectc graph REPORT --frame {esc(frame.compile_id)} -o f.svg</p>"
            )
        from inspectc.render.graph import fusion_dot, svg

        self.pictures_left -= 1
        try:
            dot = fusion_dot(
                self.report, frame.compile_id, rank=frame.rank, links=lambda k: "#" + self.anchors(k)
            )
            picture = svg(dot, timeout_s=PICTURE_TIMEOUT_S)
        except InspectcError as exc:
            return f'<p class="note">Fusion picture: {esc(str(exc))}</p>'
        start = picture.find("<svg")
        return (
            '<section class="findings" data-key="frame-fusion"><h4>Fusion picture (click a kernel)</h4>'
            f'<div class="fusion">{picture[start:] if start >= 0 else ""}</div></section>'
        )

    def _node_link(self, k: Kernel) -> Callable[[str], str | None]:
        """A fused node's line in its frame's post-grad graph, as a link."""
        kind = "post_grad_backward" if k.graph_kind.endswith("_backward") else "post_grad"
        key = (k.compile_id, kind)
        if key not in self._node_lines:
            text = self.report.graph(k.compile_id, kind, k.rank)
            graph = fxgraph.parse(text) if text else None
            self._node_lines[key] = {n.name: n.text_line + 1 for n in graph.nodes} if graph else {}
        found = self._node_lines[key]
        frame = self.report.frame(k.compile_id, k.rank)
        prefix = frame_sections.graph_anchor(frame, kind) if frame is not None else None
        return lambda name: f"#{prefix}-{found[name]}" if prefix and name in found else None

    # -- which bodies first ---------------------------------------------------------------
    def by_importance(self) -> list[Frame | Kernel]:
        """Frames that failed, broke or recompiled first, then the rest, then kernels by time."""
        frames = sorted(
            self.frames,
            key=lambda f: (f.failure is None, -(len(f.graph_breaks) + len(f.recompiles)), f.ordinal),
        )
        kernels = sorted(self.kernels, key=lambda k: -(k.time.total_us if k.time else -1.0))
        return [*frames, *kernels]
