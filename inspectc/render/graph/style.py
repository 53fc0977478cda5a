"""How the pictures look, and how report text gets into them safely.

Report text (op names, kernel names, reasons, paths) is data. It reaches ``graphviz`` only
through :func:`label` (an HTML-like label built from :func:`html`-escaped pieces),
:func:`plain` (a quoted escString such as a tooltip) or :func:`ident` (a node ID): never raw,
so a name like ``<b>`` or ``a"b\\`` is drawn as written. Colours, fonts and the few words
every view shares live here too.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path
from urllib.parse import quote as percent

import graphviz

from inspectc.analysis.roofline import roofline
from inspectc.analysis.text import location
from inspectc.analysis.views import LIMIT_HIT
from inspectc.model import (
    STATUS_COMPILING,
    STATUS_EMPTY,
    STATUS_FAILED,
    STATUS_GRAPH_BREAK,
    STATUS_INTERRUPTED,
    STATUS_OK,
    Kernel,
    Run,
)
from inspectc.render.roofline import limit_text
from inspectc.render.timefmt import NOISY, column_unit
from inspectc.store.bench import BenchResults

# --------------------------------------------------------------------------- escaping

_UNSAFE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def clean(text: object) -> str:
    """*text* as a printable string: control characters and lone surrogates become U+FFFD."""
    value = str(text).replace("\r\n", "\n").replace("\r", "\n").replace("\t", " ")
    return _UNSAFE.sub("\ufffd", value)


def clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def html(text: object, width: int | None = None) -> str:
    """Escape *text* for a Graphviz HTML-like label; newlines become ``<BR/>``."""
    value = clean(text)
    if width is not None:
        value = "\n".join(clip(line, width) for line in value.split("\n"))
    value = (
        value.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&#39;")
    )
    return value.replace("\n", '<BR ALIGN="LEFT"/>') if "\n" in value else value


def quote(text: object) -> str:
    """*text* as a DOT double-quoted string, quotes included (what :func:`plain` writes)."""
    value = clean(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{value}"'


def label(markup: str) -> str:
    """An HTML-like label from already-escaped *markup*: ``graphviz`` writes it as ``<...>``."""
    return f"<{markup}>"


def plain(text: object) -> str:
    """*text* for a plain string attribute (tooltip): shown literally, never read as HTML.

    ``graphviz.escape`` doubles backslashes (no ``\\N``/``\\l`` escapes) and marks the value
    not-HTML; ``graphviz`` then quotes it and escapes its double quotes.
    """
    return graphviz.nohtml(graphviz.escape(clean(text)).replace("\n", "\\n"))


@lru_cache(maxsize=1 << 16)  # the edges ask again for every node's id
def ident(text: str) -> str:
    """A node ID that DOT and ``graphviz`` take as one plain name, whatever *text* holds.

    Percent-encoding keeps IDs distinct and readable (``fx/mul_3``) and removes ``:``, which
    ``graphviz`` reads as a port in edges, and quotes, backslashes and ``<...>``.
    """
    return percent(text, safe="/.@_-", errors="surrogatepass")


# --------------------------------------------------------------------------- words

FONT = "Helvetica,Arial,sans-serif"


def small(markup: str, size: int = 9, color: str = "#444444") -> str:
    return f'<FONT POINT-SIZE="{size}" COLOR="{color}">{markup}</FONT>'


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def time_text(kernel: Kernel) -> str:
    t = kernel.time
    if t is None:
        return "not timed"
    share = f", {t.share:.0%} of frame" if t.share is not None else ""
    unit = column_unit([t.typical_us])
    noisy = f" ({NOISY})" if t.noise else ""
    return f"median {unit.fmt(t.typical_us)} {unit.name}, n={t.calls}{share}{noisy}"


def isolated_text(kernel: Kernel, bench: BenchResults, reads: int | None = None) -> str:
    """The isolated median per call of ``inspectc bench``, and the % of limit with its method."""
    fig = bench.primary(kernel.compile_id, kernel.graph_kind, kernel.name)
    text = f"isolated {fig.median_us:.1f} µs (n={fig.n})" if fig else "isolated: not measured"
    r = roofline(kernel, bench, reads)
    return text + (f" · {limit_text(r)} of limit ({r.method})" if r is not None else "")


def short_path(path: str | None) -> str:
    """The last two parts of *path*: enough to recognise a file."""
    if not path:
        return "?"
    parts = Path(path).parts
    return str(Path(*parts[-2:])) if len(parts) > 2 else path


def graph_where(filename: str | None, line: int | None, run: Run | None) -> str:
    """A location in a graph: ``model.py:41`` (:func:`short_loc`), a notebook's ``cell [3], line 7``."""
    if run is not None and run.cell(filename) is not None:
        return location(filename, line, run)  # the one way a cell is named
    return f"{short_loc(filename, run.cwd if run else None)}:{line}" if filename else "?"


def short_loc(path: str | None, cwd: str | None) -> str:
    """*path* relative to the run's working directory when under it, else :func:`short_path`."""
    if not path:
        return "?"
    if cwd and os.path.isabs(path):
        try:
            rel = os.path.relpath(path, cwd)
        except ValueError:
            rel = path
        if not rel.startswith(".."):
            return rel
    return short_path(path)


# --------------------------------------------------------------------------- colours

# Share of the frame's measured kernel time -> fill (ColorBrewer Oranges), darkest last.
SHARE_BANDS: tuple[tuple[float, str, str], ...] = (
    (0.05, "#fff5eb", "< 5%"),
    (0.15, "#fdd0a2", "5 to 15%"),
    (0.30, "#fd8d3c", "15 to 30%"),
    (0.50, "#d94801", "30 to 50%"),
    (float("inf"), "#7f2704", "50% or more"),
)
UNTIMED = "#eeeeee"
INPUT_FILL = "#d9f0d3"
OUTPUT_FILL = "#fee8c8"
EXTERN_FILL = "#dadaeb"
STATUS_FILL = {
    STATUS_OK: "#d9f0d3",
    STATUS_GRAPH_BREAK: "#fdd0a2",
    STATUS_FAILED: "#fcbba1",
    STATUS_EMPTY: "#f0f0f0",
    STATUS_COMPILING: "#fff7bc",
    STATUS_INTERRUPTED: "#fff7bc",
    LIMIT_HIT: "#fdd0a2",  # a performance problem like a break, not a failure
}


def share_fill(share: float | None) -> str:
    if share is None:
        return UNTIMED
    for limit, colour, _ in SHARE_BANDS:
        if share < limit:
            return colour
    return SHARE_BANDS[-1][1]


# Fraction of the device's measured bandwidth (roofline) -> fill, the same palette.
ROOF_BANDS: tuple[tuple[float, str, str], ...] = (
    (0.10, SHARE_BANDS[0][1], "< 10% of limit"),
    (0.30, SHARE_BANDS[1][1], "10 to 30%"),
    (0.50, SHARE_BANDS[2][1], "30 to 50%"),
    (0.75, SHARE_BANDS[3][1], "50 to 75%"),
    (float("inf"), SHARE_BANDS[4][1], "75% or more"),
)
COLOR_BY = ("share", "roofline")


def fraction_fill(fraction: float | None) -> str:
    if fraction is None:
        return UNTIMED
    return next(colour for limit, colour, _ in ROOF_BANDS if fraction < limit)


def font_on(fill: str) -> str:
    """Text colour readable on *fill*: white on the two darkest bands."""
    return "white" if fill in (SHARE_BANDS[-1][1], SHARE_BANDS[-2][1]) else "black"


def legend_table(color_by: str = "share") -> str:
    """The fusion view's key: what each fill and shape means, as an HTML-like table."""
    roof = color_by == "roofline"
    title = "achieved bandwidth, % of the measured limit" if roof else "kernel share of frame time"
    rows = [f'<TR><TD COLSPAN="2"><B>{title}</B></TD></TR>']
    for _, colour, text in ROOF_BANDS if roof else SHARE_BANDS:
        rows.append(f'<TR><TD BGCOLOR="{colour}" WIDTH="18"> </TD><TD ALIGN="LEFT">{html(text)}</TD></TR>')
    for colour, text in (
        (UNTIMED, "not recorded or not measured" if roof else "not timed"),
        (INPUT_FILL, "graph input"),
        (OUTPUT_FILL, "graph output"),
        (EXTERN_FILL, "extern kernel (library call)"),
        ("white", "dashed: in no kernel (view, folded)"),
    ):
        rows.append(f'<TR><TD BGCOLOR="{colour}"> </TD><TD ALIGN="LEFT">{html(text)}</TD></TR>')
    return '<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0" CELLPADDING="3">' + "".join(rows) + "</TABLE>"


# --------------------------------------------------------------------------- layout

# Above BIG_GRAPH drawn nodes, bound dot's network-simplex and crossing-minimisation passes and
# draw straight edges: a 10,000-node graph then lays out in minutes, not hours (benchmarks/).
BIG_GRAPH = 1000
FAST_LAYOUT = {
    "nslimit": "1",
    "nslimit1": "1",
    "searchsize": "5",
    "mclimit": "0.3",
    "remincross": "false",
    "splines": "line",
}
