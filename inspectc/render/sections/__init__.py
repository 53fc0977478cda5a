"""The section model: what a report says, once, for every output. No torch.

:func:`inspectc.render.sections.page.summary_page` turns a report into a :class:`Page`: a
headline, a few facts, and an ordered list of :class:`Section` s (title, severity, items or a
table, notes). Every output renders that one page: the terminal summary
(:mod:`inspectc.render.terminal`), the share Markdown, the HTML page, the JSON export's
``summary`` and the TUI overview. So a count, a break, a suggestion or a path shown by one of
them is shown alike by all (pyinstrument's renderers and coverage.py's reporters are the model).

Text in the model is report text, raw: each renderer makes it safe for its own medium (the
terminal's :func:`printable`, Markdown escaping, HTML escaping). A :class:`Span` says what a
piece of text is (code, a count, a link), never how one medium draws it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

# What a span is; each renderer draws them its own way (Markdown: `code`, **strong**).
PLAIN, CODE, STRONG, DIM = "", "code", "strong", "dim"
# A section's or item's severity: what the reader should look at first.
ERROR, WARNING, INFO = "error", "warning", ""


@dataclass(frozen=True, slots=True)
class Span:
    """A piece of a line: raw text, what it is, and where it leads."""

    text: str
    style: str = PLAIN
    link: str | None = None  # "#frame-0-1" inside the page, or an https:// page
    full: str | None = None  # the whole value behind a shortened one (a path's absolute form)


Line = tuple[Span, ...]


def line(*parts: Span | str | None) -> Line:
    """A line from spans and plain strings (None and empty strings left out)."""
    return tuple(p if isinstance(p, Span) else Span(p) for p in parts if p)


def text_of(spans: Iterable[Span]) -> str:
    return "".join(s.text for s in spans)


@dataclass(frozen=True, slots=True)
class Fold:
    """A body folded away (Markdown and HTML ``<details>``): a full error, a stack, code."""

    summary: str
    body: str
    language: str = "text"  # text | python | cpp
    anchor: str | None = None  # each line N of the body is anchor-N (HTML): links to a line
    links: tuple[tuple[int, str], ...] = ()  # (line N, where its leading "→ M" leads): a line map


@dataclass(frozen=True, slots=True)
class Item:
    """One finding of a section: its line, lines under it, folded bodies, its anchor."""

    line: Line
    notes: tuple[Line, ...] = ()
    folds: tuple[Fold, ...] = ()
    anchor: str | None = None
    severity: str = INFO
    indent: int = 2  # terminal: spaces before the line
    note_indent: int = 8  # terminal: spaces before each note, after the line's own indent


@dataclass(frozen=True, slots=True)
class Column:
    name: str
    numeric: bool = False


@dataclass(frozen=True, slots=True)
class Table:
    columns: tuple[Column, ...]
    rows: tuple[tuple[Line, ...], ...]
    anchors: tuple[str | None, ...] = ()  # one per row (or none)
    filter: bool = False  # HTML: a box that shows only the rows holding what is typed


@dataclass(frozen=True, slots=True)
class Section:
    """A titled part of the page. ``key`` is stable (JSON, HTML ids, tests); ``counts`` are the
    numbers behind the title (``{"unique": 4, "total": 6}``), the same in every output."""

    key: str
    title: str
    severity: str = INFO
    items: tuple[Item, ...] = ()
    table: Table | None = None
    notes: tuple[Line, ...] = ()  # after the items: "… 3 more", a legend
    counts: Mapping[str, int] = field(default_factory=dict)
    fields: tuple[tuple[str, str], ...] = ()  # label/value rows (the environment)
    brief: bool = True  # in the terminal summary (False: Markdown, HTML, JSON and TUI only)
    brief_rows: int | None = None  # rows of the table the terminal summary shows (None: all)
    brief_items: int | None = None  # items the terminal summary shows (None: all)
    total: int | None = None  # findings the items stand for, when more than the items held
    titled: bool = True  # terminal: False prints no title line (the frame table)


@dataclass(frozen=True, slots=True)
class Page:
    """A report as every output shows it."""

    title: str  # "torch.compile report for train.py"
    headline: str  # "12 frames compiled, 6 graph breaks (4 unique), ..."
    facts: tuple[Line, ...]  # under the headline: versions, command, how it ended
    sections: tuple[Section, ...]
    counts: Mapping[str, int] = field(default_factory=dict)  # the headline's numbers
    footer: tuple[Line, ...] = ()  # where the report is, how to open it, its records

    def section(self, key: str) -> Section | None:
        return next((s for s in self.sections if s.key == key), None)


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """``1 kernel``, ``3 kernels`` (``nouns`` for an irregular plural)."""
    return f"{count} {noun if count == 1 else (nouns or noun + 's')}"


def ranges(numbers: Iterable[int]) -> str:
    """``0-3, 5, 7-255``: sorted numbers with runs folded."""
    values = sorted(set(numbers))
    out: list[str] = []
    i = 0
    while i < len(values):
        j = i
        while j + 1 < len(values) and values[j + 1] == values[j] + 1:
            j += 1
        out.append(
            str(values[i])
            if i == j
            else f"{values[i]}-{values[j]}"
            if j > i + 1
            else f"{values[i]}, {values[j]}"
        )
        i = j + 1
    return ", ".join(out)
