"""``inspectc html``: the report as one offline HTML page, everything the TUI shows."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from inspectc.cli.output import check_output, shown, write_output

_OUR_PAGE = re.compile(
    rb"<!DOCTYPE html>\s*<html lang=\"en\">\s*<head>\s*<meta charset=\"utf-8\"\s*/?>\s*"
    rb"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'"
)


def _is_page(path: Path) -> bool:
    """True when *path* starts like a page inspectc wrote (safe to replace)."""
    try:
        with open(path, "rb") as fh:
            return bool(_OUR_PAGE.match(fh.read(400)))
    except OSError:
        return False


def cmd_html(args: argparse.Namespace) -> int:
    from inspectc.render.html.document import Options, render_document
    from inspectc.render.sections.page import summary_page
    from inspectc.store.open import open_report

    output = args.output or f"{Path(args.report.rstrip('/')).stem or 'report'}.html"
    check_output(output, what="HTML page", ours=_is_page, inputs=[args.report])
    with open_report(args.report) as report:
        page = summary_page(report, report_path=args.report)
        options = Options(pictures=0 if args.no_pictures else args.pictures, report_name=args.report)
        text = render_document(report, page, options)
    write_output(output, text.encode("utf-8"), what="HTML page")
    print(
        f"inspectc: wrote {shown(output)} ({len(text) / 1e6:.1f} MB): open it in a browser", file=sys.stderr
    )
    return 0


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "html",
        help="write the report as one offline HTML page (everything the TUI shows)",
        description="Write the report as one self-contained HTML page: the overview, every frame,"
        " break, recompile, guard, FX graph and kernel, fusion pictures. No network needed to open it.",
    )
    p.add_argument("report", help="a report file, a share bundle or a folder of rank reports")
    p.add_argument("-o", "--output", help="the page to write (default: REPORT-STEM.html here)")
    p.add_argument(
        "--pictures", type=int, default=40, metavar="N", help="fusion pictures to draw at most (default 40)"
    )
    p.add_argument("--no-pictures", action="store_true", help="draw no fusion picture (no Graphviz needed)")
    p.set_defaults(func=cmd_html)
