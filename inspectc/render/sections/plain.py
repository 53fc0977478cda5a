"""A :class:`Page` as plain JSON data: the export's ``summary`` (what every other output shows,
for scripts). Paths keep their absolute form beside the shown one (``full``)."""

from __future__ import annotations

from typing import Any

from inspectc.render.sections import Item, Line, Page, Section, Table, text_of


def page_plain(page: Page) -> dict[str, Any]:
    return {
        "title": page.title,
        "headline": page.headline,
        "counts": dict(page.counts),
        "facts": [text_of(f) for f in page.facts],
        "sections": [_section(s) for s in page.sections],
    }


def _line(spans: Line) -> dict[str, Any]:
    out: dict[str, Any] = {"text": text_of(spans)}
    links = [s.link for s in spans if s.link]
    paths = [{"shown": s.text, "path": s.full} for s in spans if s.full]
    if links:
        out["links"] = links
    if paths:
        out["paths"] = paths
    return out


def _item(item: Item) -> dict[str, Any]:
    return {
        **_line(item.line),
        "severity": item.severity or None,
        "anchor": item.anchor,
        "notes": [text_of(n) for n in item.notes],
        "details": [{"summary": f.summary, "body": f.body, "language": f.language} for f in item.folds],
    }


def _table(table: Table) -> dict[str, Any]:
    return {
        "columns": [c.name for c in table.columns],
        "rows": [[text_of(c) for c in row] for row in table.rows],
        "anchors": list(table.anchors),
    }


def _section(s: Section) -> dict[str, Any]:
    return {
        "key": s.key,
        "title": s.title,
        "severity": s.severity or None,
        "brief": s.brief,  # in the terminal summary too
        "counts": dict(s.counts),
        "items": [_item(i) for i in s.items],
        "table": _table(s.table) if s.table is not None else None,
        "fields": [list(f) for f in s.fields],
        "notes": [text_of(n) for n in s.notes],
    }
