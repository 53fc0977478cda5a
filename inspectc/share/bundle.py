"""``inspectc share``'s driver: one redacted copy of a report, rendered, checked, bundled.

Every output is made from one redacted copy of the report (:mod:`.transform`), so the
summary, the HTML page, the repros and the bundled report can only show what the copy
shows. Before anything is written, detect-secrets (:mod:`.detect`) reads every member, the
copy cell by cell; a bundle it flags is not written unless the user says so
(``allow_flagged``): :class:`Flagged` names the field and the detector, never the value.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
import stat
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from inspectc.analysis.text import location, printable, short_path
from inspectc.errors import ReportError, SecretsFlagged, UsageError
from inspectc.model.limits import SHARE_TEXT_CHARS, TextBudget
from inspectc.render.share.info import share_page
from inspectc.render.share.markdown import GITHUB_LIMIT, render_markdown
from inspectc.share import detect
from inspectc.share.check import as_read, member_doc, report_texts
from inspectc.share.found import redactor_for
from inspectc.share.redact import LEFT_OUT, Redactor
from inspectc.share.rules import Rule
from inspectc.share.transform import redacted_copy
from inspectc.store import runlock
from inspectc.store.bundle import write_bundle
from inspectc.store.exclusive import TargetExists, remove_on_signal
from inspectc.store.open import open_report
from inspectc.store.reader import Report

REPORT_MEMBER = "report.inspectc"
SUMMARY_MEMBER = "SUMMARY.md"
HTML_MEMBER = "summary.html"
_REPRO_STATUSES = ("failed", "graph_break")

WriteText = Callable[[Path, str], None]  # writes a new file (never replacing one)


@dataclass(frozen=True, slots=True)
class Shared:
    markdown: Path
    bundle: Path
    html: Path | None
    repros: tuple[str, ...]
    replaced: str = ""  # what redaction removed, counted by rule
    # (field, rule) -> removed values: for --show-redactions, printed, never written
    removed: dict[tuple[str, str], set[str]] = field(default_factory=dict)
    flagged: tuple[detect.Flag, ...] = ()  # what detect-secrets flagged, written anyway (allow_flagged)


def share(
    report_path: str | os.PathLike[str],
    *,
    write_text: WriteText,
    output_dir: str | os.PathLike[str] | None = None,
    html: bool = False,
    redact: bool = True,
    no_source: bool = False,
    limit: int = GITHUB_LIMIT,
    extra_rules: tuple[Rule, ...] = (),
    allow_flagged: bool = False,
    read: Callable[[Path], Report] = open_report,
) -> Shared:
    """Write ``STEM.share.md``, ``STEM.share.zip`` (and ``STEM.share.html``) for a report.

    Raises :class:`SecretsFlagged` (nothing written) when detect-secrets flags any member and
    *allow_flagged* is not set; *write_text* writes the Markdown and HTML files; *read* opens
    the report (the CLI's says what the store noticed). The redactor works through
    ``SHARE_TEXT_CHARS`` of text at most, and the bundle's path is locked while it is made."""
    src = Path(report_path)
    try:  # the input first: a missing or unusable path is said as such, before any folder is made
        os.stat(src)
    except OSError as exc:
        raise UsageError(f"cannot read report {_shown(src)}: {_why(exc)}") from None
    out_dir = _output_dir(src, output_dir)
    stem = src.name.removesuffix(".inspectc").removesuffix(".zip") or "report"

    with (
        contextlib.ExitStack() as locks,
        read(src) as original,
        tempfile.TemporaryDirectory(prefix="inspectc-share-") as tmp,  # 0700: holds unredacted text
        remove_on_signal(tmp),
    ):
        redactor = redactor_for(original, extra_rules=extra_rules) if redact else None
        if redactor is not None:  # issue 38: redaction (~1 MB/s) is bounded
            redactor = dataclasses.replace(
                redactor, budget=TextBudget(src, "texts to redact", SHARE_TEXT_CHARS)
            )
        stem = _public_stem(redactor, stem)  # the files' names are posted too
        md_path = out_dir / f"{stem}.share.md"
        zip_path = out_dir / f"{stem}.share.zip"
        html_path = out_dir / f"{stem}.share.html" if html else None
        outputs = [p for p in (md_path, zip_path, html_path) if p is not None]
        if os.path.realpath(src) in {os.path.realpath(p) for p in outputs}:
            raise UsageError(f"share would overwrite its input {_shown(src)}: choose another -o DIR")
        for path in outputs:
            check_target(path)
        locks.enter_context(runlock.holding(zip_path, what="share"))  # issue 38: one writer, before the work
        copy = Path(tmp) / REPORT_MEMBER
        redacted_copy(original.path, copy, redactor, no_source=no_source)
        markdown, page, repros = _render(copy, src, zip_path.name, html_path is not None, limit)
        members: list[tuple[str, bytes | Path]] = [(REPORT_MEMBER, copy), (SUMMARY_MEMBER, markdown.encode())]
        if page is not None:
            members.append((HTML_MEMBER, page.encode("utf-8")))
        members += [(f"repros/{name}", code.encode("utf-8")) for name, code in repros]
        flags = second_opinion(copy, members) if redact else []
        if flags and not allow_flagged:
            raise SecretsFlagged(_flagged_line(flags))
        try:
            write_bundle(zip_path, members, exclusive=True)  # mkstemp beside it, then a new name
        except TargetExists:
            check_target(zip_path)
            raise
        except OSError as exc:
            raise UsageError(f"cannot write {_shown(zip_path)}: {_why(exc)}") from None
    write_text(md_path, markdown)
    if html_path is not None and page is not None:
        write_text(html_path, page)
    return Shared(
        markdown=md_path,
        bundle=zip_path,
        html=html_path,
        repros=tuple(n for n, _ in repros),
        replaced=redactor.tally() if redactor else "",
        removed=dict(redactor.removed) if redactor else {},
        flagged=tuple(flags),
    )


def _output_dir(src: Path, output_dir: str | os.PathLike[str] | None) -> Path:
    out_dir = Path(output_dir) if output_dir else Path(os.path.realpath(src)).parent
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except FileExistsError:  # a file, or a link that leads nowhere (or in a loop): say which
        try:
            os.stat(out_dir)
            reason = "not a directory"
        except OSError as exc:
            reason = _why(exc)
        raise UsageError(f"cannot write to {_shown(out_dir)}: {reason}") from None
    except OSError as exc:
        raise UsageError(f"cannot write to {_shown(out_dir)}: {_why(exc)}") from None
    return out_dir


def _render(
    copy: Path, src: Path, bundle_name: str, html: bool, limit: int
) -> tuple[str, str | None, list[tuple[str, str]]]:
    """The Markdown, the HTML page (with *html*) and the repros, all from the redacted copy."""
    with _as_input(copy, src), Report(copy) as report:
        repros = repro_files(report)
        summary = share_page(report, repros=[name for name, _ in repros], bundle_name=bundle_name)
        markdown = render_markdown(summary, limit=limit)
        page = None
        if html:
            from inspectc.render.html.document import Options, render_document

            page = render_document(report, summary, Options(repros=repros, report_name=bundle_name))
    return markdown, page, repros


def second_opinion(copy: Path, members: list[tuple[str, bytes | Path]]) -> list[detect.Flag]:
    """What detect-secrets finds in what share is about to ship: the copy cell by cell, every
    other member as a reader sees it."""
    doc = detect.Doc("report.txt")
    for where, text in report_texts(copy):
        doc.add(f"{REPORT_MEMBER}: {where}", text)
    docs = [doc]
    for name, data in members:
        if isinstance(data, bytes):
            docs.append(member_doc(name, as_read(name, data.decode("utf-8", "replace"))))
    return detect.scan(docs)


def _flagged_line(flags: list[detect.Flag]) -> str:
    first = flags[0]
    more = f" (and {len(flags) - 1} more place(s))" if len(flags) > 1 else ""
    return printable(
        f"not written: detect-secrets' {first.detector} flags {first.where}{more} in the redacted"
        " bundle; look with --show-redactions, add a --redact-rules rule, or pass --allow-flagged"
        " if it is no secret"
    )


@contextmanager
def _as_input(copy: Path, src: Path) -> Iterator[None]:
    """A corrupt entry found in the private copy is said of the user's report, not of the copy."""
    try:
        yield
    except ReportError as exc:
        raise ReportError(str(exc).replace(str(copy), _shown(src))) from None


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
        where = location(f.filename, f.line, report.run)
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


def check_target(path: Path) -> None:
    """An output of share is a new file: anything already at its name is refused, never replaced."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise UsageError(f"cannot write {_shown(path)}: {_why(exc)}") from None
    if not stat.S_ISREG(info.st_mode):
        kind = "a symbolic link" if stat.S_ISLNK(info.st_mode) else "not a regular file"
        raise UsageError(f"cannot write {_shown(path)}: it is {kind} (inspectc does not write through it)")
    raise UsageError(
        f"refusing to overwrite {_shown(path)}: it exists (share never replaces a file;"
        " move it away or choose another -o DIR)"
    )


def _shown(path: str | os.PathLike[str]) -> str:
    return printable(short_path(os.fspath(path), None, 160))


def _why(exc: OSError) -> str:
    return exc.strerror or str(exc) or type(exc).__name__
