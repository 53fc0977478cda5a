"""What a bug report shows (``inspectc share``): the report's :class:`Page`, with a footer that
says what was redacted and what the bundle holds. The Markdown and the HTML page both render
this one page. Pure: report in, plain values out.
"""

from __future__ import annotations

import json

from inspectc.render.sections import CODE, Line, Page, Span, line, plural
from inspectc.render.sections.page import summary_page
from inspectc.store.reader import Report
from inspectc.version import __version__


def redaction_notes(report: Report) -> list[str]:
    try:
        data = json.loads(report.meta.get("redaction") or "null")
    except ValueError:
        data = None
    if not isinstance(data, dict):
        return ["Not redacted: paths, user and host names are as recorded."]
    notes = []
    redacted = [str(x) for x in data.get("redacted") or []]
    if redacted:
        notes.append("Redacted: " + ", ".join(redacted) + ".")
    else:
        notes.append("Not redacted (--no-redact): paths, user and host names are as recorded.")
    left_out = [str(x) for x in data.get("left_out") or []]
    if left_out:
        notes.append("Left out (--no-source): " + ", ".join(left_out) + ".")
    return notes


def share_footer(
    report: Report, *, repros: list[str] | None = None, bundle_name: str | None = None
) -> tuple[Line, ...]:
    """The lines under a shared summary: redaction, what the bundle holds, how to open it."""
    out = [line(note) for note in redaction_notes(report)]
    if bundle_name:
        held = f", {plural(len(repros or []), 'runnable repro')} (repros/)" if repros else ""
        out.append(
            line(
                "Bundle ",
                Span(bundle_name, CODE),
                f": the report{held} and this summary; open it with ",
                Span(f"inspectc tui {bundle_name}", CODE),
                " or ",
                Span(f"inspectc html {bundle_name}", CODE),
                ".",
            )
        )
    out.append(line(f"Made with inspectc {__version__} (inspectc share)."))
    return tuple(out)


def share_page(report: Report, *, repros: list[str] | None = None, bundle_name: str | None = None) -> Page:
    """The page a bug report shows (its footer: :func:`share_footer`)."""
    footer = share_footer(report, repros=repros, bundle_name=bundle_name)
    return summary_page(report, report_path=bundle_name or report.path.name, footer=footer)
