"""``inspectc html``: the report as one offline HTML page, everything the TUI shows."""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

from inspectc.cli import tty
from inspectc.cli.output import check_output, shown, write_output
from inspectc.errors import UsageError

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

    if not args.max_mb > 0:
        raise UsageError("--max-mb wants a size above 0")
    options = Options(
        pictures=0 if args.no_pictures else args.pictures,
        report_name=args.report,
        bodies=int(args.max_mb * (1 << 20)),
    )
    if args.split:
        return _split(args, options)
    output = args.output or f"{Path(args.report.rstrip('/')).stem or 'report'}.html"
    check_output(output, what="HTML page", ours=_is_page, inputs=[args.report])
    with tty.read(args.report) as report:
        page = summary_page(report, report_path=args.report)
        text = render_document(report, page, options)
    write_output(output, text.encode("utf-8"), what="HTML page")
    if not args.quiet:
        tty.err(f"inspectc: wrote {shown(output)} ({len(text) / 1e6:.1f} MB): open it in a browser")
    return 0


def _split(args: argparse.Namespace, options: Any) -> int:
    """``--split DIR``: a new (or empty) folder of pages, never one that holds anything."""
    from inspectc.render.html.document import write_split
    from inspectc.render.sections.page import summary_page

    folder = Path(args.split)
    if args.output:
        raise UsageError("--split DIR writes a folder: -o names a single page (use one or the other)")
    if folder.is_symlink() or (folder.exists() and (not folder.is_dir() or any(folder.iterdir()))):
        raise UsageError(
            f"--split {shown(folder)}: not a new or empty folder (inspectc writes only into one)"
        )
    folder.mkdir(exist_ok=True)
    with tty.read(args.report) as report:
        page = summary_page(report, report_path=args.report)
        pages = write_split(report, page, folder, options)
    size = sum(p.stat().st_size for p in folder.iterdir())
    tty.err(
        f"inspectc: wrote {pages} pages ({size / 1e6:.1f} MB) in {shown(folder)}: open {shown(folder / 'index.html')}"
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
    p.add_argument(
        "--max-mb",
        type=float,
        default=16,
        metavar="MB",
        help="folded bodies one page holds, most important first (default 16; every one: --split)",
    )
    p.add_argument(
        "--split", metavar="DIR", help="write a folder of pages: index.html, one page per frame and kernel"
    )
    p.add_argument("-q", "--quiet", action="store_true", help="say nothing when it worked")
    p.set_defaults(func=cmd_html)
