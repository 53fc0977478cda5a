"""``inspectc share``: a Markdown summary to paste into a bug issue and a ``.zip`` to attach.

Every output is made from one redacted copy of the report (see ``redact.py``), so the
summary, the HTML page, the repros and the bundled report can only show what the copy shows.
"""

from __future__ import annotations

import argparse
import os
import re
import stat
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from inspectc.analysis.text import location, printable
from inspectc.cli.output import creating, shown, why
from inspectc.errors import ReportError, UsageError
from inspectc.render.share.copy import redacted_copy
from inspectc.render.share.found import redactor_for
from inspectc.render.share.info import share_page
from inspectc.render.share.markdown import GITHUB_LIMIT, render_markdown
from inspectc.render.share.redact import LEFT_OUT, Redactor
from inspectc.render.share.rules import Rule, load_rules
from inspectc.store.bundle import write_bundle
from inspectc.store.exclusive import TargetExists, remove_on_signal
from inspectc.store.open import open_report
from inspectc.store.reader import Report

REPORT_MEMBER = "report.inspectc"
SUMMARY_MEMBER = "SUMMARY.md"
HTML_MEMBER = "summary.html"
_REPRO_STATUSES = ("failed", "graph_break")


@dataclass(frozen=True, slots=True)
class Shared:
    markdown: Path
    bundle: Path
    html: Path | None
    repros: tuple[str, ...]
    replaced: str = ""  # what redaction replaced, counted by kind
    # (field, rule) -> removed values: for --show-redactions, printed, never written
    removed: dict[tuple[str, str], set[str]] = field(default_factory=dict)


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = subparsers.add_parser(
        "share",
        help="write a Markdown summary and a .zip bundle to attach to a bug report",
        description="Write a Markdown summary (paste it into an issue) and a .zip bundle (attach it)."
        " Home directories, user and host names (every rank's), access tokens and content hashes"
        " are redacted unless --no-redact. --check BUNDLE says whether a bundle looks private.",
    )
    p.add_argument("report", help="a report file (or a bundle)")
    p.add_argument(
        "--check",
        action="store_true",
        help="only check REPORT (a bundle) for anything that looks private: exit 1 and list it if so",
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
    )
    if args.show_redactions:
        _show_redactions(shared.removed)
    for path in (shared.markdown, shared.bundle, shared.html):
        if path is not None:
            print(printable(str(path)))
    what = "redacted" if not args.no_redact else "not redacted"
    if not args.no_redact:
        print(f"inspectc share: replaced {shared.replaced}", file=sys.stderr)
    print(
        printable(
            f"inspectc: paste {shared.markdown.name} into the issue and attach {shared.bundle.name} ({what})"
        ),
        file=sys.stderr,
    )
    return 0


def share(
    report_path: str | os.PathLike[str],
    *,
    output_dir: str | os.PathLike[str] | None = None,
    html: bool = False,
    redact: bool = True,
    no_source: bool = False,
    limit: int = GITHUB_LIMIT,
    extra_rules: tuple[Rule, ...] = (),
) -> Shared:
    src = Path(report_path)
    try:  # the input first: a missing or unusable path is said as such, before any folder is made
        os.stat(src)
    except OSError as exc:
        raise UsageError(f"cannot read report {shown(src)}: {why(exc)}") from None
    out_dir = Path(output_dir) if output_dir else Path(os.path.realpath(src)).parent
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except FileExistsError:  # a file, or a link that leads nowhere (or in a loop): say which
        try:
            os.stat(out_dir)
            reason = "not a directory"
        except OSError as exc:
            reason = why(exc)
        raise UsageError(f"cannot write to {shown(out_dir)}: {reason}") from None
    except OSError as exc:
        raise UsageError(f"cannot write to {shown(out_dir)}: {why(exc)}") from None
    stem = src.name.removesuffix(".inspectc").removesuffix(".zip") or "report"

    with (
        open_report(src) as original,
        tempfile.TemporaryDirectory(prefix="inspectc-share-") as tmp,  # 0700: holds unredacted text
        remove_on_signal(tmp),
    ):
        redactor = redactor_for(original, extra_rules=extra_rules) if redact else None
        stem = _public_stem(redactor, stem)  # the files' names are posted too
        md_path = out_dir / f"{stem}.share.md"
        zip_path = out_dir / f"{stem}.share.zip"
        html_path = out_dir / f"{stem}.share.html" if html else None
        outputs = [p for p in (md_path, zip_path, html_path) if p is not None]
        if os.path.realpath(src) in {os.path.realpath(p) for p in outputs}:
            raise UsageError(f"share would overwrite its input {shown(src)}: choose another -o DIR")
        for path in outputs:
            _check_target(path)
        copy = Path(tmp) / REPORT_MEMBER
        redacted_copy(original.path, copy, redactor, no_source=no_source)
        with _as_input(copy, src), Report(copy) as report:
            repros = repro_files(report)
            summary = share_page(report, repros=[name for name, _ in repros], bundle_name=zip_path.name)
            markdown = render_markdown(summary, limit=limit)
            page = None
            if html_path is not None:
                from inspectc.render.html.document import Options, render_document

                page = render_document(report, summary, Options(repros=repros, report_name=zip_path.name))
        members: list[tuple[str, bytes | Path]] = [
            (REPORT_MEMBER, copy),
            (SUMMARY_MEMBER, markdown.encode("utf-8")),
        ]
        if page is not None:
            members.append((HTML_MEMBER, page.encode("utf-8")))
        members += [(f"repros/{name}", code.encode("utf-8")) for name, code in repros]
        try:
            write_bundle(zip_path, members, exclusive=True)  # mkstemp beside it, then a new name
        except TargetExists:
            _check_target(zip_path)
            raise
        except OSError as exc:
            raise UsageError(f"cannot write {shown(zip_path)}: {why(exc)}") from None
    _write_text(md_path, markdown)
    if html_path is not None and page is not None:
        _write_text(html_path, page)
    return Shared(
        markdown=md_path,
        bundle=zip_path,
        html=html_path,
        repros=tuple(n for n, _ in repros),
        replaced=redactor.tally() if redactor else "",
        removed=dict(redactor.removed) if redactor else {},
    )


@contextmanager
def _as_input(copy: Path, src: Path) -> Iterator[None]:
    """A corrupt entry found in the private copy is said of the user's report, not of the copy."""
    try:
        yield
    except ReportError as exc:
        raise ReportError(str(exc).replace(str(copy), shown(src))) from None


def repro_files(report: Report) -> list[tuple[str, str]]:
    """(file name, code) of torch's runnable repro for each failed or graph-breaking frame."""
    found: list[tuple[str, str]] = []
    seen: set[str] = set()
    for f in report.frames:
        if f.status not in _REPRO_STATUSES or "fx_graph_runnable" not in f.graph_kinds:
            continue
        code = report.graph(f.compile_id, "fx_graph_runnable")
        if not code or code == LEFT_OUT:
            continue
        rank = f"r{f.rank}-" if f.rank is not None else ""
        name = _safe_name(f"{rank}{f.compile_id}-{f.function or 'frame'}") + ".py"
        if name in seen:
            continue
        seen.add(name)
        where = location(f.filename, f.line, report.run.cwd)
        header = (
            f"# Runnable repro from torch (fx_graph_runnable) for frame {f.compile_id},"
            f" {f.function or '?'}() at {where}: {f.status}.\n"
            "# Written by `inspectc share`; run it with `python` where torch is installed.\n"
        )
        found.append((name, _one_line_comment(header) + code))
    return found


def _safe_name(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("._")[:100] or "frame"


def _one_line_comment(text: str) -> str:
    # Report text in the header must stay inside comments: every line gets its own "#".
    return "".join("# " + line.lstrip("# ") + "\n" for line in text.splitlines())


def _public_stem(redactor: Redactor | None, stem: str) -> str:
    """The outputs' file stem: the report's, with what redaction removes replaced by a plain
    word (``alice_run`` -> ``user_run``)."""
    if redactor is not None:
        redactor.at("output file name")
    public = redactor.sub(stem) if redactor else stem
    if public == stem:
        return stem
    words = re.sub(r"[<>]", "", public.replace("~", "home"))
    return re.sub(r"[^\w.-]+", "_", words).strip("._") or "report"


def _write_text(path: Path, text: str) -> None:
    with creating(path, what="summary") as tmp:  # mkstemp beside it, then a name never taken
        tmp.write_text(text, encoding="utf-8", errors="replace")


def _check_target(path: Path) -> None:
    """An output of share is a new file: anything already at its name is refused, never replaced."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise UsageError(f"cannot write {shown(path)}: {why(exc)}") from None
    if not stat.S_ISREG(info.st_mode):
        kind = "a symbolic link" if stat.S_ISLNK(info.st_mode) else "not a regular file"
        raise UsageError(f"cannot write {shown(path)}: it is {kind} (inspectc does not write through it)")
    raise UsageError(
        f"refusing to overwrite {shown(path)}: it exists (share never replaces a file;"
        " move it away or choose another -o DIR)"
    )


def _show_redactions(removed: dict[tuple[str, str], set[str]]) -> None:
    """What redaction removed, field by field, for review before posting (stdout only)."""
    print(f"inspectc share: removed from {len({w for w, _ in removed})} field(s):")
    for (where, rule), values in sorted(removed.items()):
        shown_values = ", ".join(repr(v) for v in sorted(values)[:5])
        more = f" and {len(values) - 5} more" if len(values) > 5 else ""
        print(printable(f"  {where}: {rule}: {shown_values}{more}"))


def _check(bundle: str, extra_rules: tuple[Rule, ...] = ()) -> int:
    from inspectc.render.share.scan import SHOWN, by_kind, scan_bundle

    findings = scan_bundle(bundle, extra_rules=extra_rules)
    name = shown(bundle)
    if not findings:
        print(
            f"inspectc share --check: {name}: nothing that looks private (homes, user and host names,"
            " tokens, credentials, emails, IP addresses, cluster paths, hashes, checksums)"
        )
        return 0
    print(
        f"inspectc share --check: {name} holds {len(findings)} thing(s) that look private ({by_kind(findings)}):"
    )
    for finding in findings[:SHOWN]:
        print("  " + printable(finding.line()))
    if len(findings) > SHOWN:
        print(f"  … and {len(findings) - SHOWN} more")
    return 1
