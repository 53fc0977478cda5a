"""The report as one offline HTML page (``inspectc html``, ``inspectc share --html``).

Everything the TUI shows: the overview (the same :class:`Page` the terminal, the Markdown and
the JSON render), then every frame (its breaks with stacks, fixes and resume functions,
recompiles, guards, FX graphs, kernels, metrics, the fusion picture) and every kernel (what it
fused, timings, % of limit, compiled stages with their line map, source, repro command).

Heavy bodies (a frame's or a kernel's details) are deflated into the page and inflated by its
one script when opened, so a page of thousands of frames opens at once; past a size budget the
least important bodies are left out (and said to be), and ``--split`` writes a folder of pages
instead: an index and one page per frame and kernel. Anchors are stable
(``report.html#kernel-triton_poi_fused_add_0``). A strict Content-Security-Policy lets only
the page's own script run; every report string is escaped.
"""

from __future__ import annotations

import base64
import json
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from inspectc.analysis.resume import shown_function
from inspectc.analysis.text import location
from inspectc.analysis.views import shown_status
from inspectc.model import Frame, Kernel, Run
from inspectc.render.html import sections as html_sections
from inspectc.render.html.articles import Articles
from inspectc.render.html.assets import SCRIPT, STYLE, policy
from inspectc.render.html.sections import esc
from inspectc.render.sections import Page
from inspectc.render.sections.anchors import KernelAnchors, frame_anchor
from inspectc.store.reader import Report

MAX_PICTURES = 40  # fusion pictures drawn per page (each is one run of Graphviz's dot)
BODY_BUDGET = 16 << 20  # bytes of folded bodies one page holds (base64 of DEFLATE)
LISTED = 400  # frames (and kernels) listed as they are; the rest deflated in chunks of CHUNK
CHUNK = 2_000


@dataclass(slots=True)
class Options:
    """What the page holds beyond the report: the share's repros, the budgets."""

    repros: list[tuple[str, str]] = field(default_factory=list)
    pictures: int = MAX_PICTURES
    perfetto: bool = True
    report_name: str = "report.inspectc"
    highlight: int = html_sections.HIGHLIGHT_BUDGET  # characters of code highlighted
    bodies: int = BODY_BUDGET  # bytes of frames' and kernels' bodies in one page


def deflate(text: str) -> str:
    """*text* as base64 of raw DEFLATE (the script inflates it with DecompressionStream)."""
    packer = zlib.compressobj(6, zlib.DEFLATED, -15)
    return base64.b64encode(packer.compress(text.encode("utf-8")) + packer.flush()).decode("ascii")


_LEFT_OUT = (
    '<div class="body"><p class="note">Not in this page: it holds the most important {what} up to its'
    " size limit. <code>inspectc html --split DIR</code> writes every frame and kernel as its own page"
    " (or open the report with <code>inspectc tui</code>).</p></div>"
)


def render_document(report: Report, page: Page, options: Options | None = None) -> str:
    """The whole page of *report* whose overview is *page*: bodies by importance, until
    :attr:`Options.bodies` bytes."""
    options = options or Options()
    articles = Articles(report, pictures=options.pictures, report_name=options.report_name)
    bodies: dict[int, str] = {}
    left = options.bodies
    with html_sections.highlight_budget(options.highlight):
        for item in articles.by_importance():
            if left <= 0:
                break
            inner = articles.frame_body(item) if isinstance(item, Frame) else articles.kernel_body(item)
            packed = f'<div class="body" data-z="{deflate(inner)}"></div>'
            left -= len(packed)
            bodies[id(item)] = packed

    def body(item: Frame | Kernel) -> str:
        return bodies.get(id(item)) or _LEFT_OUT.format(
            what="frames" if isinstance(item, Frame) else "kernels"
        )

    return _page(report, page, options, articles, body, index=None)


def write_split(report: Report, page: Page, folder: Path, options: Options | None = None) -> int:
    """*folder*/index.html (the overview and every article's head) and one page per frame and
    kernel (*folder*/<anchor>.html); returns the pages written. *folder* is new or empty."""
    options = options or Options()
    articles = Articles(report, pictures=options.pictures, report_name=options.report_name)
    written = 0
    with html_sections.highlight_budget(options.highlight):
        for item in articles.by_importance():
            if isinstance(item, Frame):
                anchor, attrs, head, inner = (
                    frame_anchor(item.compile_id),
                    articles.frame_attrs(item),
                    articles.frame_head(item),
                    articles.frame_body(item),
                )
            else:
                anchor, attrs, head, inner = (
                    articles.anchors(item),
                    articles.kernel_attrs(item),
                    articles.kernel_head(item),
                    articles.kernel_body(item),
                )
            one = f'<details {attrs} open="open"><summary>{head}</summary>\n<div class="body">{inner}</div></details>\n'
            text = _shell(
                f"{page.title}: {anchor}",
                '<p><a href="index.html">← the whole report</a></p>\n' + one,
                "",
                index="index.html",
            )
            (folder / f"{anchor}.html").write_text(text, encoding="utf-8")
            written += 1

    def body(item: Frame | Kernel) -> str:
        anchor = frame_anchor(item.compile_id) if isinstance(item, Frame) else articles.anchors(item)
        return f'<div class="body"><p><a href="{esc(anchor)}.html">Open it on its own page</a></p></div>'

    (folder / "index.html").write_text(
        _page(report, page, options, articles, body, index="pages"), encoding="utf-8"
    )
    return written + 1


def _page(
    report: Report,
    page: Page,
    options: Options,
    articles: Articles,
    body: Callable[[Frame | Kernel], str],
    *,
    index: str | None,
) -> str:
    frames, kernels = articles.frames, articles.kernels
    split = ' data-page="1"' if index == "pages" else ""
    frame_parts = _listed(
        [
            f"<details {articles.frame_attrs(f)}{split}><summary>{articles.frame_head(f)}</summary>\n{body(f)}</details>\n"
            for f in frames
        ],
        "frames",
    )
    kernel_parts = _listed(
        [
            f"<details {articles.kernel_attrs(k)}{split}><summary>{articles.kernel_head(k)}</summary>\n{body(k)}</details>\n"
            for k in kernels
        ],
        "kernels",
    )
    main = [
        _toolbar(options),
        '<section id="overview-all">',
        html_sections.overview_html(page),
        "</section>\n",
        f'<section id="frames"><h2>Frames ({len(frames)})</h2>\n',
        frame_parts or "<p>No frames were compiled in this run.</p>",
        "</section>\n",
        f'<section id="kernels"><h2>Kernels ({len(kernels)})</h2>\n',
        kernel_parts or "<p>No kernels were recorded.</p>",
        "</section>\n",
        _repros(options.repros),
        _perfetto_blob(report) if options.perfetto else "",
        _help(),
    ]
    found = _search_index(page, frames, kernels, articles.anchors, report.run)
    sidebar = _sidebar(page, frames, kernels)
    return _shell(page.title, "".join(main), sidebar, index=None, search=found)


def _listed(parts: list[str], what: str) -> str:
    """The first :data:`LISTED` articles as they are, the rest deflated in chunks the script
    lists when asked (a button, a search hit or a link to one of them): a report of 15,000
    kernels opens as fast as one of 300."""
    head = "".join(parts[:LISTED])
    rest = parts[LISTED:]
    if not rest:
        return head
    chunks = "".join(
        f'<div class="more-articles" data-z="{deflate("".join(rest[i : i + CHUNK]))}"></div>\n'
        for i in range(0, len(rest), CHUNK)
    )
    button = f'<p><button type="button" class="show-more">List {len(rest):,} more {what}</button></p>\n'
    return head + button + chunks


def _shell(title: str, main: str, sidebar: str, *, index: str | None, search: str = "[]") -> str:
    """A whole document: the strict policy, the style, *main* beside *sidebar*, the script.
    *index*: the page that holds every article (a split folder's index.html)."""
    home = f' data-index="{esc(index)}"' if index else ""
    layout = "layout" if sidebar else "layout single"
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8" />\n'
        f'<meta http-equiv="Content-Security-Policy" content="{policy()}" />\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1" />\n'
        '<meta name="color-scheme" content="light dark" />\n'
        '<link rel="icon" href="data:," />\n'
        f"<title>{esc('inspectc: ' + title)}</title>\n"
        f"<style>\n{STYLE}\n{html_sections.pygments_css()}</style>\n</head>\n<body{home}>\n"
        f'<div class="{layout}">\n'
        f"{sidebar}"
        f'<main id="main">\n{main}</main>\n</div>\n'
        f'<div id="search-index" hidden="hidden" data-json="{esc(search)}"></div>\n'
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
        f'<li><a href="#{esc(frame_anchor(f.compile_id))}" class="st-{esc(shown_status(f))}">'
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
    page: Page, frames: Iterable[Frame], kernels: Iterable[Kernel], anchors: KernelAnchors, run: Run
) -> Iterable[dict[str, str]]:
    for f in frames:
        # the full path (what a search for the file finds), and a notebook cell's number beside it
        cell = f"{location(f.filename, f.line, run)} " if run.cell(f.filename) is not None else ""
        yield {
            "k": "frame",
            "t": f"{f.compile_id.label} {shown_function(f)}",
            "d": f"{cell}{f.filename or ''}:{f.line} {shown_status(f)}",
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
    page: Page, frames: list[Frame], kernels: list[Kernel], anchors: KernelAnchors, run: Run
) -> str:
    return json.dumps(
        list(_entries(page, frames, kernels, anchors, run)), ensure_ascii=False, separators=(",", ":")
    )
