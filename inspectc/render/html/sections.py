"""Sections as HTML: the page's overview, the share page and the notebook cell. Pure.

Every string from a report goes through :func:`esc` (control characters replaced, markup
escaped); links only ever point inside the page (``#frame-0-1``) or to an ``https://`` page.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from html import escape

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import CppLexer, PythonLexer, TextLexer

from inspectc.analysis.text import printable
from inspectc.render.sections import CODE, DIM, STRONG, Item, Line, Page, Section, Span, Table

CODE_CAP = 200_000  # characters of one block of code
HIGHLIGHT_BUDGET = 3_000_000  # characters one page highlights (Pygments: ~1 MB/s); the rest is plain
_FORMATTER = HtmlFormatter(nowrap=False, cssclass="hl", wrapcode=True)
_budget: ContextVar[list[int] | None] = ContextVar("highlight_budget", default=None)


@contextmanager
def highlight_budget(characters: int = HIGHLIGHT_BUDGET) -> Iterator[None]:
    """Within the block, code blocks are highlighted until *characters* were, then plain."""
    token = _budget.set([characters])
    try:
        yield
    finally:
        _budget.reset(token)


def _spend(size: int) -> bool:
    left = _budget.get()
    if left is None:
        return True
    if left[0] < size:
        return False
    left[0] -= size
    return True


def _plain(body: str, anchor: str | None) -> str:
    """Code as escaped text (no highlighting), each line anchored when asked."""
    lines = body.split("\n")
    if anchor:
        rows = "\n".join(
            f'<span id="{escape(anchor)}-{n}"></span>{escape(row)}' for n, row in enumerate(lines, 1)
        )
    else:
        rows = escape(body)
    return f'<div class="hl"><pre><code>{rows}</code></pre></div>\n'


def esc(text: object) -> str:
    """Report text as HTML text: control characters replaced, markup escaped."""
    return escape(printable(str(text) if text is not None else "", keep="\n\t"), quote=True)


def code_block(text: str, language: str = "text", anchor: str | None = None) -> str:
    """Highlighted source (Pygments, CSS classes: the page's stylesheet colours them); with
    *anchor*, line N carries the id ``anchor-N``."""
    lexer = {"python": PythonLexer, "cpp": CppLexer}.get(language, TextLexer)(stripnl=False)
    body = printable(text, keep="\n\t")
    if len(body) > CODE_CAP:
        body = body[:CODE_CAP] + f"\n… ({len(body) - CODE_CAP:,} more characters in the report)"
    if not _spend(len(body)):
        return _plain(body, anchor)
    if anchor:
        formatter = HtmlFormatter(cssclass="hl", wrapcode=True, lineanchors=anchor, anchorlinenos=False)
        return highlight(body, lexer, formatter)
    return highlight(body, lexer, _FORMATTER)


def mapped_block(text: str, links: tuple[tuple[int, str], ...]) -> str:
    """A stage's text whose mapped lines' gutter (``→ 33``) links to the line it maps to."""
    where = dict(links)
    rows = []
    for n, row in enumerate(printable(text, keep="\n\t").split("\n"), 1):
        href = where.get(n)
        head, _, rest = row.partition("  ") if row.startswith("→") else ("", "", row)
        if href and head:
            rows.append(f'<a href="{escape(href)}">{escape(head)}</a>  {escape(rest)}')
        else:
            rows.append(escape(row))
    return '<div class="hl"><pre><code>' + "\n".join(rows) + "</code></pre></div>\n"


def pygments_css() -> str:
    """Light and dark colours for highlighted code."""
    light = HtmlFormatter(style="default").get_style_defs(".hl")
    dark = HtmlFormatter(style="monokai").get_style_defs(".hl")
    return f"{light}\n@media (prefers-color-scheme: dark) {{\n{dark}\n}}\n"


def _href(link: str) -> str | None:
    if link.startswith("#") or link.startswith("https://"):
        return link
    return None


def span_html(s: Span) -> str:
    text = esc(s.text)
    if s.style == CODE:
        text = f"<code>{text}</code>"
    elif s.style == STRONG:
        text = f"<strong>{text.strip()}</strong>"
    elif s.style == DIM:
        text = f'<span class="dim">{text}</span>'
    title = f' title="{esc(s.full)}"' if s.full and s.full != s.text else ""
    href = _href(s.link) if s.link else None
    if href:
        return f'<a href="{esc(href)}"{title}>{text}</a>'
    return f"<span{title}>{text}</span>" if title else text


def line_html(spans: Line) -> str:
    return "".join(span_html(s) for s in spans).strip()


def details(summary: str, inner: str, *, open_: bool = False, cls: str = "") -> str:
    flag = ' open="open"' if open_ else ""
    klass = f' class="{cls}"' if cls else ""
    return f"<details{klass}{flag}><summary>{esc(summary)}</summary>\n{inner}</details>\n"


def item_html(item: Item) -> str:
    anchor = f' id="{esc(item.anchor)}"' if item.anchor else ""
    sev = f" sev-{item.severity}" if item.severity else ""
    out = [f'<li class="item{sev}"{anchor}><div class="head">{line_html(item.line)}</div>']
    out += [f'<div class="note">{line_html(n)}</div>' for n in item.notes]
    out += [
        details(
            f.summary, mapped_block(f.body, f.links) if f.links else code_block(f.body, f.language, f.anchor)
        )
        for f in item.folds
        if f.body
    ]
    out.append("</li>\n")
    return "".join(out)


def table_html(table: Table, *, cls: str = "") -> str:
    klass = f' class="{cls}"' if cls else ""
    head = "".join(f'<th class="{"num" if c.numeric else ""}">{esc(c.name)}</th>' for c in table.columns)
    rows = []
    for n, row in enumerate(table.rows):
        anchor = table.anchors[n] if n < len(table.anchors) else None
        data = f' data-target="{esc(anchor)}"' if anchor else ""
        cells = "".join(
            f'<td class="{"num" if c.numeric else ""}">{line_html(cell)}</td>'
            for c, cell in zip(table.columns, row)
        )
        rows.append(f"<tr{data}>{cells}</tr>")
    return (
        f"<table{klass}>\n<thead><tr>{head}</tr></thead>\n<tbody>\n"
        + "\n".join(rows)
        + "\n</tbody>\n</table>\n"
    )


def section_html(s: Section, *, level: int = 2) -> str:
    sev = f" sev-{s.severity}" if s.severity else ""
    counts = " ".join(f'data-{esc(k)}="{v}"' for k, v in s.counts.items())
    out = [f'<section class="findings{sev}" id="s-{esc(s.key)}" data-key="{esc(s.key)}" {counts}>']
    out.append(f"<h{level}>{esc(s.title)}</h{level}>\n")
    if s.fields:
        rows = "".join(f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in s.fields)
        out.append(f'<table class="fields"><tbody>{rows}</tbody></table>\n')
    if s.items:
        out.append('<ul class="items">\n' + "".join(item_html(i) for i in s.items) + "</ul>\n")
    if s.table is not None:
        box = (
            '<input class="filter" type="search" placeholder="filter these rows" />' if s.table.filter else ""
        )
        out.append(f'<div class="scroll">{box}{table_html(s.table)}</div>')
    out += [f'<p class="note">{line_html(n)}</p>\n' for n in s.notes]
    out.append("</section>\n")
    return "".join(out)


def overview_html(page: Page) -> str:
    """The page's overview: its headline, facts and every section, in order."""
    facts = "".join(f"<li>{line_html(f)}</li>" for f in page.facts)
    counts = " ".join(f'data-{esc(k)}="{v}"' for k, v in page.counts.items())
    out = [
        f'<header class="overview" id="overview" {counts}><h1>{esc(page.title)}</h1>\n',
        f'<p class="headline">{esc(page.headline)}</p>\n<ul class="facts">{facts}</ul></header>\n',
    ]
    out += [section_html(s) for s in page.sections]
    foot = "".join(f"<p>{line_html(f)}</p>\n" for f in page.footer)
    out.append(f'<footer class="page-footer">\n{foot}</footer>\n')
    return "".join(out)
