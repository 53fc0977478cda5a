"""The self-contained HTML page of ``inspectc share --html``. Pure: facts in, text out.

One file, no external assets, no JavaScript (``<details>`` folds without it; a
Content-Security-Policy forbids scripts and remote loads anyway). Source is highlighted by
Pygments with inline styles. Every string from a report goes through :func:`esc`; the output
is well-formed XML apart from the doctype, which the tests check.
"""

from __future__ import annotations

import re
from html import escape

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import CppLexer, PythonLexer, TextLexer

from inspectc.analysis.resume import shown_function
from inspectc.analysis.text import one_line
from inspectc.render.share.markdown import (
    DETAILS_CAP,
    LINE_CAP,
    STACK_CAP,
    ShareInfo,
    break_details,
    break_where,
    cap,
    clean,
    frame_name,
    kernel_columns,
    location,
    plural,
)

CODE_CAP = 200_000  # characters of one highlighted block
ITEMS_CAP = 300  # graph-break groups, recompiled and failed frames shown per section
_FORMATTER = HtmlFormatter(noclasses=True, style="default", wrapcode=True)
_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
_STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; max-width: 72rem; margin: 1.5rem auto; padding: 0 1rem; color: #1f2328; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 13px; }
pre { padding: .6rem .8rem; overflow-x: auto; background: #f6f8fa; border-radius: 6px; white-space: pre; }
.highlight pre { margin: 0; }
table { border-collapse: collapse; margin: .5rem 0; }
th, td { border: 1px solid #d0d7de; padding: .25rem .6rem; text-align: left; vertical-align: top; }
td.num { text-align: right; }
details { margin: .3rem 0 .8rem 0; }
summary { cursor: pointer; color: #57606a; }
.item { margin: .6rem 0; }
.count { font-weight: bold; }
.status-failed { color: #cf222e; } .status-graph_break { color: #9a6700; }
footer { margin-top: 2rem; color: #57606a; border-top: 1px solid #d0d7de; padding-top: .5rem; }
""".strip()


def esc(text: object) -> str:
    """Report text as HTML text: control characters replaced, markup escaped."""
    return escape(clean(str(text) if text is not None else ""), quote=True)


def code_block(text: str, language: str = "text") -> str:
    lexer = {"python": PythonLexer, "cpp": CppLexer}.get(language, TextLexer)()
    return highlight(cap(clean(text), CODE_CAP), lexer, _FORMATTER)


def _details(summary: str, inner_html: str, *, open_: bool = False) -> str:
    flag = ' open="open"' if open_ else ""
    return f"<details{flag}><summary>{esc(summary)}</summary>\n{inner_html}</details>\n"


def _table(header: list[str], rows: list[list[str]], numeric: set[int] | None = None) -> str:
    numeric = numeric or set()
    head = "".join(f"<th>{esc(h)}</th>" for h in header)
    body = "".join(
        "<tr>"
        + "".join(f'<td class="num">{c}</td>' if i in numeric else f"<td>{c}</td>" for i, c in enumerate(r))
        + "</tr>\n"
        for r in rows
    )
    return f"<table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n{body}</tbody>\n</table>\n"


def _c(text: object) -> str:
    return f"<code>{esc(text)}</code>"


def render_body(
    info: ShareInfo,
    *,
    kernel_sources: dict[int, str] | None = None,
    repros: list[tuple[str, str]] | None = None,
) -> str:
    """The page's content (no ``<html>``/``<head>``): the share page and a notebook cell."""
    parts = [
        f"<h1>{esc(info.title)}</h1>\n<p>{esc(info.headline)}</p>\n",
        _details(
            "Environment",
            _table(["", ""], [[esc(k), esc(v)] for k, v in info.environment + info.run_lines]),
            open_=True,
        ),
        _failures(info),
        _breaks(info),
        _recompiles(info),
        _kernels(info, kernel_sources or {}),
        _frames(info),
        _repros(repros or []),
    ]
    if info.capture_errors:
        parts.append(
            "<h2>Capture errors</h2>\n"
            + _details(
                f"{plural(len(info.capture_errors), 'error')} inspectc met while capturing",
                code_block("\n".join(info.capture_errors)),
            )
        )
    footer = "".join(f"<p>{esc(note)}</p>\n" for note in info.notes)
    if info.bundle_name:
        footer += (
            f"<p>Bundle {_c(info.bundle_name)}: open it with {_c('inspectc tui ' + info.bundle_name)}.</p>\n"
        )
    return "".join(parts) + f"<footer>\n{footer}</footer>\n"


def render_html(
    info: ShareInfo,
    *,
    kernel_sources: dict[int, str] | None = None,
    repros: list[tuple[str, str]] | None = None,
) -> str:
    """The whole page. *kernel_sources*: kernel id -> source; *repros*: (name, code)."""
    body = render_body(info, kernel_sources=kernel_sources, repros=repros)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8" />\n'
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}" />\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1" />\n'
        f"<title>{esc('inspectc: ' + info.title)}</title>\n<style>\n{_STYLE}\n</style>\n</head>\n<body>\n"
        + body
        + "</body>\n</html>\n"
    )


def render_fragment(info: ShareInfo) -> str:
    """The same content for a notebook cell: one ``<div>`` with its styles scoped to it."""
    return f'<div class="inspectc-report">\n<style>\n{_scoped_style()}\n</style>\n{render_body(info)}</div>\n'


def _scoped_style(scope: str = ".inspectc-report") -> str:
    """:data:`_STYLE` with every selector under *scope* (``body`` becomes the scope itself),
    so a notebook's own page keeps its look."""

    def scope_rule(match: re.Match[str]) -> str:
        selectors = (s.strip() for s in match.group(2).split(","))
        return match.group(1) + ", ".join(scope if s == "body" else f"{scope} {s}" for s in selectors) + " {"

    return re.sub(r"(\s*)([^{}\s][^{}]*?)\s*\{", scope_rule, _STYLE)


def _failures(info: ShareInfo) -> str:
    if not info.failures:
        return ""
    out = [f"<h2>Failed frames ({len(info.failures)})</h2>\n"]
    for f in info.failures[:ITEMS_CAP]:
        assert f.failure is not None
        fail = f.failure
        where = location(fail.filename or f.filename, fail.line or f.line, info.base)
        out.append(
            f'<div class="item">{_c(frame_name(f))} {_c((f.function or "?") + "()")} at {_c(where)}: '
            f"<strong>{esc(fail.fail_type or 'failed')}</strong>: {esc(one_line(fail.reason, LINE_CAP))}\n"
        )
        if fail.reason and (len(fail.reason) > LINE_CAP or "\n" in fail.reason.strip()):
            out.append(_details("full error", code_block(cap(fail.reason, DETAILS_CAP))))
        out.append("</div>\n")
    return "".join(out) + _more(len(info.failures))


def _more(count: int) -> str:
    hidden = count - ITEMS_CAP
    return f"<p>… {hidden:,} more, in the bundle's report.</p>\n" if hidden > 0 else ""


def _breaks(info: ShareInfo) -> str:
    if not info.groups:
        return ""
    total = sum(g.count for g in info.groups)
    out = [f"<h2>Graph breaks ({len(info.groups)} unique, {total} in all)</h2>\n"]
    for g in info.groups[:ITEMS_CAP]:
        gid = f" [{esc(g.gb_id)}]" if g.gb_id else ""
        out.append(
            f'<div class="item"><span class="count">{g.count}×</span> '
            f"{_c(break_where(g, info.base))}: {esc(one_line(g.reason, LINE_CAP))}{gid}\n"
        )
        inner = code_block(cap(break_details(g, info.base), DETAILS_CAP))
        stack = [s for s in g.example.user_stack[-STACK_CAP:] if s.code]
        if stack:
            lines = []
            for s in stack:
                lines.append(f"# {location(s.filename, s.line, info.base)} in {s.function or '?'}")
                lines.append((s.code or "").strip())
            inner += "<p>User code:</p>\n" + code_block("\n".join(lines), "python")
        out.append(_details("details", inner) + "</div>\n")
    return "".join(out) + _more(len(info.groups))


def _recompiles(info: ShareInfo) -> str:
    if not info.recompiled:
        return ""
    out = [f"<h2>Recompiles ({plural(len(info.recompiled), 'frame')})</h2>\n"]
    for f in info.recompiled[:ITEMS_CAP]:
        first = f.recompiles[0]
        earlier = (
            f" (guard of {_c(str(first.earlier_compile_id))} failed)" if first.earlier_compile_id else ""
        )
        where = location(f.filename, f.line, info.base)
        out.append(
            f'<div class="item">{_c(frame_name(f))} {_c((f.function or "?") + "()")} at {_c(where)}: '
            f"{esc(one_line(first.guard or first.text, LINE_CAP))}{earlier}\n"
        )
        full = "\n".join(r.text for r in f.recompiles)
        out.append(_details(f"all {len(f.recompiles)} reasons", code_block(cap(full, DETAILS_CAP))))
        out.append("</div>\n")
    return "".join(out) + _more(len(info.recompiled))


def _kernels(info: ShareInfo, sources: dict[int, str]) -> str:
    out = ["<h2>Top kernels by time</h2>\n"]
    if not info.top_kernels:
        what = "no kernel times recorded" if info.kernels_total else "no kernels recorded"
        return out[0] + f"<p>{info.kernels_total} kernels; {what}.</p>\n"
    cols = kernel_columns(info.top_kernels, info.bench, info.bench_methods)
    rows = []
    for k in info.top_kernels:
        name, frame, *cells = cols.cells(k)
        rows.append([_c(name), esc(frame), *(esc(c) for c in cells)])
    out.append(_table(cols.header, rows, cols.numeric))
    out.append(
        f"<p>Top {len(info.top_kernels)} of {info.kernels_total} kernels by measured time. {esc(cols.legend)}</p>\n"
    )
    for k in info.top_kernels:
        source = sources.get(k.id)
        if source:
            lang = "cpp" if k.language == "cpp" else "python"
            out.append(_details(f"source of {k.name} ({k.language})", code_block(source, lang)))
    return "".join(out)


def _frames(info: ShareInfo) -> str:
    if not info.frames:
        return ""
    rows = []
    for f in info.frames:
        seconds = f"{f.metrics.entire_frame_s:.2f}" if f.metrics.entire_frame_s is not None else "-"
        rows.append(
            [
                esc(frame_name(f)),
                esc(shown_function(f)),
                _c(location(f.filename, f.line, info.base)),
                f'<span class="status-{esc(f.status)}">{esc(f.status)}</span>',
                str(len(f.graph_breaks)),
                str(f.kernel_count),
                seconds,
                esc(f.cache.get("fx_graph") or "-"),
            ]
        )
    header = ["frame", "function", "location", "status", "breaks", "kernels", "compile s", "cache"]
    return f"<h2>Frames ({len(info.frames)})</h2>\n" + _details(
        "frame table", _table(header, rows, {4, 5, 6})
    )


def _repros(repros: list[tuple[str, str]]) -> str:
    if not repros:
        return ""
    out = [
        f"<h2>Runnable repros ({len(repros)})</h2>\n<p>From torch's <code>fx_graph_runnable</code>; also in the bundle.</p>\n"
    ]
    for name, code in repros:
        out.append(_details(name, code_block(code, "python")))
    return "".join(out)
