"""The report as one offline HTML page (``inspectc html``, ``inspectc share --html``).

Everything the TUI shows: the overview (the same :class:`Page` the terminal, the Markdown and
the JSON render), then every frame (its breaks with stacks, fixes and resume functions,
recompiles, guards, FX graphs, kernels, metrics, the fusion picture) and every kernel (what it
fused, timings, % of limit, compiled stages with their line map, source, repro command).

Heavy bodies (a frame's or a kernel's details) are deflated into the page and inflated by its
one script when opened, so a page of thousands of frames opens at once. Anchors are stable
(``report.html#kernel-triton_poi_fused_add_0``). A strict Content-Security-Policy lets only
the page's own script run; every report string is escaped.
"""

from __future__ import annotations

import base64
import json
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from inspectc.analysis.remedies import by_break
from inspectc.analysis.resume import bytecode, shown_function
from inspectc.model import Frame, Kernel, fxgraph
from inspectc.render.html import sections as html_sections
from inspectc.render.html.assets import SCRIPT, STYLE, policy
from inspectc.render.html.sections import esc
from inspectc.render.sections import Page, plural
from inspectc.render.sections import frame as frame_sections
from inspectc.render.sections import kernel as kernel_sections
from inspectc.render.sections.anchors import KernelAnchors, frame_anchor
from inspectc.store.reader import Report

MAX_PICTURES = 40  # fusion pictures drawn per page (each is one run of Graphviz's dot)
PICTURE_TIMEOUT_S = 20.0


@dataclass(slots=True)
class Options:
    """What the page holds beyond the report: the share's repros, the picture budget."""

    repros: list[tuple[str, str]] = field(default_factory=list)
    pictures: int = MAX_PICTURES
    perfetto: bool = True
    report_name: str = "report.inspectc"
    highlight: int = html_sections.HIGHLIGHT_BUDGET  # characters of code highlighted


def deflate(text: str) -> str:
    """*text* as base64 of raw DEFLATE (the script inflates it with DecompressionStream)."""
    packer = zlib.compressobj(6, zlib.DEFLATED, -15)
    return base64.b64encode(packer.compress(text.encode("utf-8")) + packer.flush()).decode("ascii")


def _lazy(inner: str) -> str:
    return f'<div class="body" data-z="{deflate(inner)}"></div>'


def render_document(report: Report, page: Page, options: Options | None = None) -> str:
    """The whole page of *report* whose overview is *page*."""
    options = options or Options()
    frames = report.frames
    kernels = report.kernels
    anchors = KernelAnchors(kernels)
    by_frame: dict[object, list[Kernel]] = {}
    for k in kernels:
        by_frame.setdefault(k.compile_id, []).append(k)
    fixes = by_break(frames)
    pictures = _Pictures(report, anchors, options.pictures)
    with html_sections.highlight_budget(options.highlight):
        return _document(report, page, options, frames, kernels, anchors, by_frame, fixes, pictures)


def _document(
    report: Report,
    page: Page,
    options: Options,
    frames: list[Frame],
    kernels: list[Kernel],
    anchors: KernelAnchors,
    by_frame: dict[object, list[Kernel]],
    fixes: dict,
    pictures: _Pictures,
) -> str:
    frame_parts = [
        _frame_article(report, f, frames, by_frame.get(f.compile_id, []), anchors, fixes, pictures)
        for f in frames
    ]
    lines = _NodeLines(report)
    kernel_parts = [_kernel_article(report, k, anchors, options.report_name, lines) for k in kernels]
    body = [
        _toolbar(options),
        '<section id="overview-all">',
        html_sections.overview_html(page),
        "</section>\n",
        f'<section id="frames"><h2>Frames ({len(frames)})</h2>\n',
        "".join(frame_parts) or "<p>No frames were compiled in this run.</p>",
        "</section>\n",
        f'<section id="kernels"><h2>Kernels ({len(kernels)})</h2>\n',
        "".join(kernel_parts) or "<p>No kernels were recorded.</p>",
        "</section>\n",
        _repros(options.repros),
        _perfetto_blob(report) if options.perfetto else "",
        _help(),
    ]
    index = _search_index(report, page, frames, kernels, anchors)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8" />\n'
        f'<meta http-equiv="Content-Security-Policy" content="{policy()}" />\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1" />\n'
        '<meta name="color-scheme" content="light dark" />\n'
        '<link rel="icon" href="data:," />\n'
        f"<title>{esc('inspectc: ' + page.title)}</title>\n"
        f"<style>\n{STYLE}\n{html_sections.pygments_css()}</style>\n</head>\n<body>\n"
        '<div class="layout">\n'
        f"{_sidebar(page, frames, kernels)}"
        f'<main id="main">\n{"".join(body)}</main>\n</div>\n'
        f'<div id="search-index" hidden="hidden" data-json="{esc(index)}"></div>\n'
        f"<script>{SCRIPT}</script>\n</body>\n</html>\n"
    )


def _toolbar(options: Options) -> str:
    perfetto = '<button id="perfetto" type="button">Perfetto trace</button>' if options.perfetto else ""
    return (
        '<div class="toolbar">'
        f"{perfetto}"
        '<button id="theme" type="button" title="light / dark (t)">Theme</button>'
        '<button id="help-button" type="button" title="keyboard shortcuts (?)">?</button>'
        "</div>\n"
    )


def _help() -> str:
    keys = (
        ("/", "search"),
        ("j / k", "next / previous frame or kernel"),
        ("o", "the overview"),
        ("[ / ]", "fold / unfold every detail"),
        ("t", "light / dark"),
        ("?", "this help"),
    )
    rows = "".join(f"<li><kbd>{esc(k)}</kbd> {esc(v)}</li>" for k, v in keys)
    return f'<div id="help" hidden="hidden"><strong>Keys</strong><ul>{rows}</ul></div>\n'


def _sidebar(page: Page, frames: list[Frame], kernels: list[Kernel]) -> str:
    overview = "".join(
        f'<li><a href="#s-{esc(s.key)}">{esc(s.title.split(" (")[0].split(":")[0])}</a></li>'
        for s in page.sections
    )
    frame_links = "".join(
        f'<li><a href="#{esc(frame_anchor(f.compile_id))}" class="st-{esc(f.status)}">'
        f"{esc(f.compile_id.label)} {esc(shown_function(f))}</a></li>"
        for f in frames[:2000]
    )
    more = f"<li>… {len(frames) - 2000} more (search finds them)</li>" if len(frames) > 2000 else ""
    return (
        '<nav id="sidebar" aria-label="index">\n'
        '<input id="search" type="search" placeholder="Search frames, breaks, kernels (/)" autocomplete="off" />\n'
        '<ul id="results"></ul>\n'
        f'<h2><a href="#overview">Overview</a></h2><ul>{overview}</ul>\n'
        f'<h2><a href="#frames">Frames ({len(frames)})</a></h2><ul>{frame_links}{more}</ul>\n'
        f'<h2><a href="#kernels">Kernels ({len(kernels)})</a></h2>\n'
        "</nav>\n"
    )


class _Pictures:
    """Fusion pictures, drawn while the budget lasts (Graphviz's dot, bounded in time)."""

    def __init__(self, report: Report, anchors: KernelAnchors, budget: int) -> None:
        self.report, self.anchors, self.budget = report, anchors, budget

    def __call__(self, frame: Frame) -> str:
        if "post_grad" not in frame.graph_kinds or not frame.kernel_count:
            return ""
        if self.budget <= 0:
            return f'<p class="note">Fusion picture: not drawn here (the page draws {MAX_PICTURES}); inspectc graph REPORT --frame {esc(frame.compile_id)} -o f.svg</p>'
        from inspectc.errors import InspectcError
        from inspectc.render.graph import fusion_dot, svg

        self.budget -= 1
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


def _frame_article(
    report: Report,
    f: Frame,
    frames: list[Frame],
    kernels: list[Kernel],
    anchors: KernelAnchors,
    fixes: dict,
    pictures: Callable[[Frame], str],
) -> str:
    found = frame_sections.frame_sections(
        f,
        frames,
        report.run,
        kernels_of_frame=kernels,
        anchors=anchors,
        fixes=fixes,
        graph_text=lambda kind: report.graph(f.compile_id, kind, f.rank),
        bytecode=lambda resumed: bytecode(report, resumed),
    )
    inner = "".join(html_sections.section_html(s, level=4) for s in found) + pictures(f)
    anchor = frame_anchor(f.compile_id)
    counts = f'data-breaks="{len(f.graph_breaks)}" data-recompiles="{len(f.recompiles)}" data-kernels="{f.kernel_count}"'
    return (
        f'<details class="article frame" id="{esc(anchor)}" {counts}><summary>'
        f"{esc(f.compile_id.label)} {esc(shown_function(f))}"
        f'<span class="st st-{esc(f.status)}">{esc(f.status)}</span>'
        f'<span class="st">{esc(plural(len(f.graph_breaks), "break"))} · {esc(plural(f.kernel_count, "kernel"))}</span>'
        f'<a class="permalink" href="#{esc(anchor)}" title="link to this frame">#</a></summary>\n'
        f"{_lazy(inner)}</details>\n"
    )


class _NodeLines:
    """Where each FX node of a frame's post-grad graph is defined: a kernel's fused node links there."""

    def __init__(self, report: Report) -> None:
        self.report = report
        self._lines: dict[tuple[object, str], dict[str, int]] = {}

    def link(self, k: Kernel) -> Callable[[str], str | None]:
        kind = "post_grad_backward" if k.graph_kind.endswith("_backward") else "post_grad"
        key = (k.compile_id, kind)
        if key not in self._lines:
            text = self.report.graph(k.compile_id, kind, k.rank)
            graph = fxgraph.parse(text) if text else None
            self._lines[key] = {n.name: n.text_line + 1 for n in graph.nodes} if graph else {}
        found = self._lines[key]
        frame = self.report.frame(k.compile_id, k.rank)
        prefix = frame_sections.graph_anchor(frame, kind) if frame is not None else None
        return lambda name: f"#{prefix}-{found[name]}" if prefix and name in found else None


def _kernel_article(
    report: Report, k: Kernel, anchors: KernelAnchors, report_name: str, lines: _NodeLines
) -> str:
    detail = report.kernel_detail(k) if k.language == "triton" else None
    found = [
        kernel_sections.facts(k, report.run, report.bench, detail),
        kernel_sections.origins(k, report.run, lines.link(k)),
        kernel_sections.compiled(k, detail, report.cpu_build() if k.language == "cpp" else None),
        kernel_sections.source(k, report.kernel_source(k) if k.language != "extern" else None, report_name),
    ]
    inner = "".join(html_sections.section_html(s, level=4) for s in found if s is not None)
    anchor = anchors(k)
    t = k.time
    timed = f"{t.typical_us:,.1f} µs × {t.calls}" if t is not None else "not timed"
    return (
        f'<details class="article kernel" id="{esc(anchor)}" data-frame="{esc(k.compile_id.label)}"><summary>'
        f"<code>{esc(k.name)}</code>"
        f'<span class="st">{esc(k.compile_id.label)} · {esc(k.language)} · {esc(timed)}</span>'
        f'<a class="permalink" href="#{esc(anchor)}" title="link to this kernel">#</a></summary>\n'
        f"{_lazy(inner)}</details>\n"
    )


def _repros(repros: list[tuple[str, str]]) -> str:
    if not repros:
        return ""
    out = [
        f'<section id="repros"><h2>Runnable repros ({len(repros)})</h2>\n<p>From torch\'s <code>fx_graph_runnable</code>; also in the bundle.</p>\n'
    ]
    for name, code in repros:
        out.append(html_sections.details(name, html_sections.code_block(code, "python")))
    return "".join(out) + "</section>\n"


def _perfetto_blob(report: Report) -> str:
    from inspectc.render.perfetto import chrome_trace

    trace = json.dumps(chrome_trace(report), separators=(",", ":"), allow_nan=False, default=str)
    name = f"{report.path.stem}.perfetto.json"
    return (
        f'<div id="perfetto-trace" hidden="hidden" data-name="{esc(name)}" data-z="{deflate(trace)}"></div>\n'
    )


def _entries(
    page: Page, frames: Iterable[Frame], kernels: Iterable[Kernel], anchors: KernelAnchors
) -> Iterable[dict[str, str]]:
    for f in frames:
        yield {
            "k": "frame",
            "t": f"{f.compile_id.label} {shown_function(f)}",
            "d": f"{f.filename or ''}:{f.line} {f.status}",
            "a": frame_anchor(f.compile_id),
        }
    for s in page.sections:
        for item in s.items:
            if item.anchor:
                yield {
                    "k": s.key,
                    "t": "".join(sp.text for sp in item.line).strip(),
                    "d": " ".join("".join(sp.text for sp in n) for n in item.notes[:2]),
                    "a": item.anchor,
                }
    for k in kernels:
        yield {
            "k": "kernel",
            "t": k.name,
            "d": f"{k.compile_id.label} {' '.join(k.fused_nodes[:8])}",
            "a": anchors(k),
        }


def _search_index(
    report: Report, page: Page, frames: list[Frame], kernels: list[Kernel], anchors: KernelAnchors
) -> str:
    return json.dumps(
        list(_entries(page, frames, kernels, anchors)), ensure_ascii=False, separators=(",", ":")
    )
