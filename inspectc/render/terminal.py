"""The terminal summary (end of ``inspectc run``, ``inspectc summary``): a :class:`Page` as
plain text. No torch.

Every section the page marks ``brief`` is drawn: a title line, its items (each note under its
item, indented), its table aligned in columns, its notes. Report text is made harmless on the
way out, so no escape sequence of a stranger's report reaches the terminal.
"""

from __future__ import annotations

from collections.abc import Iterable

from inspectc.analysis.text import printable
from inspectc.render.sections import Item, Line, Page, Section, Table, text_of
from inspectc.render.sections.page import summary_page
from inspectc.store.reader import Report


def render_summary(report: Report, *, report_path: str | None = None) -> str:
    """The summary of *report* (*report_path*: how the user named it)."""
    return render_page(summary_page(report, report_path=report_path))


def render_page(page: Page) -> str:
    out = [f"inspectc: {page.headline}"]
    out += ["  " + _text(f) for f in page.facts]
    out += render_sections(s for s in page.sections if s.brief)
    out.append("")
    out += [_text(f) for f in page.footer]
    return "\n".join(out)


def render_sections(sections: Iterable[Section]) -> list[str]:
    """Sections as terminal lines (a blank line before each), for a part of a page."""
    out: list[str] = []
    for section in sections:
        out += ["", *_section(section)]
    return out


def _text(spans: Line) -> str:
    return printable(text_of(spans), keep="\t")


def _section(s: Section) -> list[str]:
    out = [_text_plain(s.title)] if s.titled else []
    shown = s.items if s.brief_items is None else s.items[: s.brief_items]
    for item in shown:
        out += _item(item)
    if len(shown) < len(s.items):
        out.append(f"  … {len(s.items) - len(shown)} more (inspectc html, or inspectc export --json)")
    if s.table is not None:
        out += _table(s.table, s.brief_rows)
    out += ["  " + _text(n) for n in s.notes]
    return out


def _text_plain(text: str) -> str:
    return printable(text, keep="\t")


def _item(item: Item) -> list[str]:
    pad = " " * item.indent
    out = [pad + _text(item.line)]
    under = pad + " " * item.note_indent
    out += [under + _text(n) for n in item.notes]
    return out


def _table(table: Table, limit: int | None) -> list[str]:
    rows = table.rows if limit is None else table.rows[:limit]
    head = [c.name for c in table.columns]
    cells = [[_text(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in [head, *cells]) for i in range(len(head))]
    out = []
    for r in [head, *cells]:
        parts = [c.rjust(w) if col.numeric else c.ljust(w) for c, w, col in zip(r, widths, table.columns)]
        out.append("  " + "  ".join(parts).rstrip())
    if len(rows) < len(table.rows):
        out.append(f"  … {len(table.rows) - len(rows)} more (inspectc export --json)")
    return out
