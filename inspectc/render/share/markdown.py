"""The Markdown summary for a bug report (``inspectc share``): a :class:`Page` as GitHub
Markdown. Pure: page in, text out.

Every section of the page is there, in the page's order, as the terminal and the HTML page
show it. The text never exceeds GitHub's 65,536-character limit for an issue body: what a
maintainer needs most goes in first (failures, then warnings, each section's first lines, the
tables, the folded details, the rest) and a note says what was left out.

Everything from the report is data: inline text is escaped (HTML entities and Markdown
punctuation), code sits in spans and fences longer than any backtick run it contains.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

from inspectc.analysis.text import no_mentions, one_line, printable
from inspectc.render.sections import CODE, ERROR, STRONG, WARNING, Item, Line, Page, Section, Table, plural

GITHUB_LIMIT = 65_536
LINE_CAP = 300  # characters of report text on one line
DETAILS_CAP = 6_000  # characters of one <details> body
_NOTE_RESERVE = 700  # room kept for the truncation note
_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~#!{}])")


def clean(text: str | None) -> str:
    """Report text, lines and tabs kept, through the one sanitizer (:func:`printable`)."""
    return printable((text or "").replace("\r\n", "\n"), keep="\n\t")


def cap(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n… ({len(text) - limit:,} more characters in the report)"


def md_text(text: str | None, width: int = LINE_CAP) -> str:
    """One line of report text, safe as Markdown inline text (and inside a table cell)."""
    flat = one_line(clean(text).replace("\t", " "), width)
    return no_mentions(_MD_SPECIAL.sub(r"\\\1", html.escape(flat, quote=False)))


def md_code(text: str | None, width: int = LINE_CAP) -> str:
    """Inline code span that survives any backticks in *text* (not for table cells)."""
    flat = one_line(clean(text), width) or " "
    ticks = "`" * (max((len(m) for m in re.findall(r"`+", flat)), default=0) + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") else ""
    return f"{ticks}{pad}{flat}{pad}{ticks}"


def md_fence(text: str, lang: str = "text") -> str:
    body = clean(text).rstrip("\n")
    longest = max((len(m) for m in re.findall(r"^\s*(`{3,}|~{3,})", body, re.MULTILINE)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{lang}\n{body}\n{fence}\n"


def md_details(summary: str, body: str, lang: str = "text") -> str:
    summary_html = no_mentions(html.escape(one_line(clean(summary), 120)))
    return f"<details><summary>{summary_html}</summary>\n\n{md_fence(cap(body, DETAILS_CAP), lang)}\n</details>\n"


def _inline(text: str) -> str:
    """Report text inline, its own spaces kept: HTML and Markdown punctuation escaped."""
    flat = " ".join(clean(text).replace("\t", " ").splitlines())
    return no_mentions(_MD_SPECIAL.sub(r"\\\1", html.escape(flat, quote=False)))


def md_line(spans: Line, *, cell: bool = False) -> str:
    """A line of spans: code as code spans (escaped text in a table cell), counts in bold."""
    out = []
    for s in spans:
        if s.style == CODE and not cell and s.text.strip():
            pad = s.text[: len(s.text) - len(s.text.lstrip())]
            out.append(pad + md_code(s.text.strip()))
        elif s.style == STRONG and s.text.strip():
            out.append(f"**{_inline(s.text.strip())}**")
        else:
            out.append(_inline(s.text))
    return re.sub(r" {2,}", " ", "".join(out)).strip()[: LINE_CAP * 3]


def _table(table: Table, rows: int | None = None) -> str:
    shown = table.rows if rows is None else table.rows[:rows]
    head = "| " + " | ".join(md_text(c.name, 40) for c in table.columns) + " |"
    rule = "| " + " | ".join("---:" if c.numeric else "---" for c in table.columns) + " |"
    body = ["| " + " | ".join(md_line(cell, cell=True) or " " for cell in row) + " |" for row in shown]
    return "\n".join([head, rule, *body]) + "\n"


def _item(item: Item) -> str:
    text = f"- {md_line(item.line)}\n"
    for note in item.notes:
        text += f"  {md_line(note)}  \n" if note else ""
    return text


def _folds(item: Item) -> str:
    return "".join("\n" + md_details(f.summary, f.body, f.language) for f in item.folds if f.body)


def _heading(s: Section) -> str:
    return f"### {md_text(s.title, 400)}\n\n"


@dataclass(slots=True)
class _Plan:
    """Chooses what fits in *room* characters, in the order it is asked for."""

    room: int
    lines: dict[int, int] = field(default_factory=dict)  # items kept per section
    rows: dict[int, int] = field(default_factory=dict)  # table rows kept per section
    folds: set[tuple[int, int]] = field(default_factory=set)
    notes: set[int] = field(default_factory=set)

    def take(self, cost: int) -> bool:
        if cost > self.room:
            return False
        self.room -= cost
        return True

    def add_items(self, s: Section, share: float = 1.0) -> None:
        allowance = int(self.room * share)
        kept = self.lines.setdefault(id(s), 0)
        while kept < len(s.items):
            cost = len(_item(s.items[kept]))
            if cost > allowance or not self.take(cost):
                break
            allowance -= cost
            kept += 1
        self.lines[id(s)] = kept

    def add_rows(self, s: Section) -> None:
        if s.table is None:
            return
        kept = self.rows.setdefault(id(s), 0)
        if kept == 0 and not self.take(len(_table(s.table, 0)) + 50):
            return
        while kept < len(s.table.rows):
            if not self.take(
                len(_table(Table(s.table.columns, s.table.rows[kept : kept + 1]), None))
                - len(_table(s.table, 0))
            ):
                break
            kept += 1
        self.rows[id(s)] = kept

    def add_notes(self, s: Section) -> None:
        cost = sum(len(md_line(n)) + 4 for n in s.notes) + sum(len(f) + 20 for f in s.fields)
        if self.take(cost):
            self.notes.add(id(s))

    def add_folds(self, s: Section) -> None:
        for n, item in enumerate(s.items[: self.kept(s)]):
            body = _folds(item)
            if body and self.take(len(body) + 1):
                self.folds.add((id(s), n))

    def kept(self, s: Section) -> int:
        return self.lines.get(id(s), 0)


def _order(page: Page) -> list[Section]:
    rank = {ERROR: 0, WARNING: 1}
    return sorted(page.sections, key=lambda s: rank.get(s.severity, 2))


def render_markdown(page: Page, *, limit: int = GITHUB_LIMIT) -> str:
    """*page* as GitHub Markdown, at most *limit* characters (its footer after a rule)."""
    head = f"## {md_text(page.title, 200)}\n\n{md_text(page.headline)}\n\n"
    head += md_fence("\n".join(one_line(clean("".join(s.text for s in f)), 400) for f in page.facts)) + "\n"
    end = "\n---\n\n" + "".join(f"{md_line(f)}  \n" for f in page.footer)
    headings = sum(len(_heading(s)) for s in page.sections)
    plan = _Plan(limit - len(head) - len(end) - _NOTE_RESERVE - headings)
    ordered = _order(page)
    for s in ordered:  # what a maintainer needs most: each section's first lines, errors first
        plan.add_notes(s)
        plan.add_items(s, share=0.3 if s.severity else 0.15)
    for s in ordered:
        plan.add_rows(s)
    for s in ordered:
        plan.add_folds(s)
    for s in ordered:
        plan.add_items(s)
    body = "".join(_section(s, plan) for s in page.sections)
    text = head + _note(page, plan, limit) + body + end
    assert len(text) <= limit, "share: summary over the limit"  # the plan's budget guarantees it
    return text


def _section(s: Section, plan: _Plan) -> str:
    key = id(s)
    out = [_heading(s)]
    if s.fields and key in plan.notes:
        width = max(10, max(len(label) for label, _ in s.fields) + 2)
        text = "\n".join(f"{label + ':':<{width}}{one_line(clean(value), 400)}" for label, value in s.fields)
        out.append(md_fence(text) + "\n")
    for n, item in enumerate(s.items[: plan.kept(s)]):
        out.append(_item(item))
        if (key, n) in plan.folds:
            out.append(_folds(item))
    if s.items:
        out.append("\n")
    kept_rows = plan.rows.get(key, 0)
    if s.table is not None and kept_rows:
        out.append(_table(s.table, kept_rows) + "\n")
    if key in plan.notes:
        out += [md_line(n) + "  \n" for n in s.notes]
        out.append("\n" if s.notes else "")
    return "".join(out)


def _note(page: Page, plan: _Plan, limit: int) -> str:
    left: list[str] = []
    for s in page.sections:
        key = id(s)
        held = max(s.total or 0, len(s.items))
        if held > plan.kept(s):
            left.append(f"{held - plan.kept(s)} of {held} lines of {s.title.split(' (')[0]}")
        if s.table is not None and plan.rows.get(key, 0) < len(s.table.rows):
            left.append(f"{len(s.table.rows) - plan.rows.get(key, 0)} rows of {s.title.split(' (')[0]}")
        if (s.notes or s.fields) and key not in plan.notes:
            left.append(f"the notes of {s.title.split(' (')[0]}")
    folds = sum(
        1
        for s in page.sections
        for n, item in enumerate(s.items[: plan.kept(s)])
        if item.folds and (id(s), n) not in plan.folds
    )
    if folds:
        left.append(plural(folds, "detail block"))
    if not left:
        return ""
    note = (
        f"> **Shortened to fit GitHub's {limit:,}-character limit.** Left out: {', '.join(left)}. "
        "Everything is in the attached bundle.\n\n"
    )
    return note if len(note) <= _NOTE_RESERVE else note[: _NOTE_RESERVE - 40] + "…\n\n"
