"""``inspectc share``: the command line of :mod:`inspectc.share` (a Markdown summary to paste
into a bug issue and a ``.zip`` to attach; ``--check`` for a second look at one)."""

from __future__ import annotations

import argparse
import os
from collections import Counter
from pathlib import Path
from typing import Any

from inspectc.cli import tty
from inspectc.cli.output import creating, shown
from inspectc.share import bundle
from inspectc.share.bundle import Shared
from inspectc.share.rules import Rule, load_rules


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = subparsers.add_parser(
        "share",
        help="write a Markdown summary and a .zip bundle to attach to a bug report",
        description="Write a Markdown summary (paste it into an issue) and a .zip bundle (attach it)."
        " Home directories, user and host names (every rank's), credentials, token shapes and content"
        " hashes are redacted unless --no-redact; detect-secrets then reads every member and a bundle"
        " it flags is not written. --check BUNDLE (or a .md/.html file) runs both checkers on it.",
    )
    p.add_argument("report", help="a report file (or a bundle); with --check, a bundle or a .md/.html file")
    p.add_argument(
        "--check",
        action="store_true",
        help="only check REPORT (a bundle, or a Markdown/HTML file) with detect-secrets and inspectc's"
        " own rules: exit 1 and list where (never what) if either finds something",
    )
    p.add_argument("-o", "--output-dir", metavar="DIR", help="where to write (default: beside the report)")
    p.add_argument("--html", action="store_true", help="also write one self-contained HTML page")
    p.add_argument("--no-redact", action="store_true", help="keep paths, user and host names as recorded")
    p.add_argument(
        "--no-source", action="store_true", help="leave out user source lines, graphs and kernel source"
    )
    p.add_argument(
        "--redact-rules",
        metavar="FILE",
        help="more redaction rules, one `name = regex` a line (read, never run); --check uses them too",
    )
    p.add_argument(
        "--show-redactions",
        action="store_true",
        help="list on the terminal what was removed, by field and rule (never written to the bundle)",
    )
    p.add_argument(
        "--allow-flagged",
        action="store_true",
        help="write the bundle even when detect-secrets flags something in it (after you looked)",
    )
    p.set_defaults(func=cmd_share)


def cmd_share(args: argparse.Namespace) -> int:
    extra = load_rules(args.redact_rules) if args.redact_rules else ()
    if args.check:
        return _check(args.report, extra)
    shared = share(
        args.report,
        output_dir=args.output_dir,
        html=args.html,
        redact=not args.no_redact,
        no_source=args.no_source,
        extra_rules=extra,
        allow_flagged=args.allow_flagged,
    )
    if args.show_redactions:
        _show_redactions(shared.removed)
    for path in (shared.markdown, shared.bundle, shared.html):
        if path is not None:
            tty.out(path)
    for flag in shared.flagged:
        tty.err(f"inspectc share: written as asked (--allow-flagged): {flag.line()}")
    what = "redacted" if not args.no_redact else "not redacted"
    if not args.no_redact:
        tty.err(f"inspectc share: removed by rule (once per field): {shared.replaced}")
    tty.err(f"inspectc: paste {shared.markdown.name} into the issue and attach {shared.bundle.name} ({what})")
    return 0


def share(report_path: str | os.PathLike[str], **options: Any) -> Shared:
    """:func:`inspectc.share.bundle.share`, writing the Markdown and HTML as new files only."""
    return bundle.share(report_path, write_text=_write_text, read=tty.read, **options)


def _write_text(path: Path, text: str) -> None:
    with creating(path, what="summary") as tmp:  # mkstemp beside it, then a name never taken
        tmp.write_text(text, encoding="utf-8", errors="replace")


def _show_redactions(removed: dict[tuple[str, str], set[str]]) -> None:
    """What redaction removed, by rule and then field by field, for review before posting
    (stdout only: the values are the private ones)."""
    by_rule: Counter[str] = Counter()
    for (_, rule), values in removed.items():
        by_rule[rule] += len(values)
    tty.out(f"inspectc share: removed from {len({w for w, _ in removed})} field(s):")
    for rule, n in sorted(by_rule.items(), key=lambda kv: (-kv[1], kv[0])):
        tty.out(f"  {rule}: {n}")
    for (where, rule), values in sorted(removed.items()):
        shown_values = ", ".join(repr(v) for v in sorted(values)[:5])
        more = f" and {len(values) - 5} more" if len(values) > 5 else ""
        tty.out(f"  {where}: {rule}: {shown_values}{more}")


def _check(target: str, extra_rules: tuple[Rule, ...] = ()) -> int:
    from inspectc.share.check import SHOWN, by_kind, check_path

    verdict = check_path(target, extra_rules=extra_rules)
    name = shown(target)
    checked = f"{verdict.detectors} and inspectc's own {verdict.rules} rules"
    if not verdict.findings:
        tty.out(
            f"inspectc share --check: {name}: no known secret pattern found by {checked}"
            f" in {', '.join(verdict.checked)} (a check, not a proof: read what you post)"
        )
        return 0
    findings = verdict.findings
    tty.out(f"inspectc share --check: {name}: {len(findings)} finding(s) ({by_kind(findings)}):")
    for finding in findings[:SHOWN]:
        tty.out("  " + finding.line())
    if len(findings) > SHOWN:
        tty.out(f"  … and {len(findings) - SHOWN} more")
    tty.out(f"checked with {checked}")
    return 1
