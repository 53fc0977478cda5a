"""``inspectc share --check``: what two independent checkers find in a bundle or a page.

Before a bundle is attached to a public issue (or when one made elsewhere is about to be),
every member is read, boundedly: the bundled report cell by cell (every table, every text
column, every payload decompressed; JSON walked value by value), the Markdown, the HTML page
and the repros, each as a reader sees it. A Markdown or HTML file given alone is read the
same way. Two checkers look at each: detect-secrets (:mod:`.detect`: provider patterns,
keywords, entropy) and inspectc's own table (:mod:`.rules`, plus the user and host names the
report records or this machine has, a payload checksum, a report that says it was never
redacted). A finding names its place and its detector, never its value or length.

Finding nothing is not a proof of privacy: the verdict says what was checked.
"""

from __future__ import annotations

import html
import json
import os
import re
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspectc.errors import ReportError, UsageError
from inspectc.model.decode.record_keys import CHECKSUM_KEYS
from inspectc.model.limits import SHARE_TEXT_CHARS, TextBudget
from inspectc.share import detect
from inspectc.share.found import redactor_for
from inspectc.share.redact import Redactor
from inspectc.share.rules import Rule
from inspectc.store.bundle import DAMAGED, MemberBudget, check_directory, damage, open_bundle
from inspectc.store.cells import report_cells

MEMBER_CAP = 64 * 1024 * 1024  # bytes read of one text member
PAGE_CAP = 64 * 1024 * 1024  # bytes read of a Markdown or HTML file given alone
SHOWN = 20  # findings listed; the rest are counted
PAGES = (".md", ".markdown", ".html", ".htm")
_VERSIONS = ("torch_version", "triton_version", "cuda_version", "python_version")
OWN = "inspectc"  # the checker of a finding from inspectc's own rules


@dataclass(frozen=True, slots=True)
class Finding:
    kind: str  # a rule ("jwt", "user name") or a detect-secrets plugin ("Secret Keyword")
    where: str  # member, and where in it
    sample: str = ""  # where in the text (never the value)
    by: str = OWN  # "inspectc" or "detect-secrets"

    def line(self) -> str:
        at = f": {self.sample}" if self.sample else ""
        return f"{self.kind} ({self.by}) in {self.where}{at}"


@dataclass(frozen=True, slots=True)
class Verdict:
    """What ``--check`` found, and what it checked with."""

    findings: list[Finding]
    detectors: str  # detect.describe()
    rules: int  # inspectc's own rules used
    checked: list[str] = field(default_factory=list)  # the members read


def place(match: re.Match[str]) -> str:
    """Where a finding is, never what: ``--check`` runs in public CI logs, and a value's first
    characters and length narrow a short password down to a guess."""
    line = match.string.count("\n", 0, match.start())
    if not line:
        return f"at character {match.start():,}"
    return f"line {line + 1:,}, character {match.start() - match.string.rfind(chr(10), 0, match.start()):,}"


def check_path(
    path: str | os.PathLike[str], *, this_machine: bool = True, extra_rules: tuple[Rule, ...] = ()
) -> Verdict:
    """Check a bundle, or a Markdown/HTML page; raises :class:`ReportError`/:class:`UsageError`."""
    if str(path).lower().endswith(PAGES):
        return _check_page(Path(path), this_machine, extra_rules)
    return check_bundle(path, this_machine=this_machine, extra_rules=extra_rules)


def check_bundle(
    path: str | os.PathLike[str], *, this_machine: bool = True, extra_rules: tuple[Rule, ...] = ()
) -> Verdict:
    findings: list[Finding] = []
    docs: list[detect.Doc] = []
    budget = TextBudget(path, "texts to check", SHARE_TEXT_CHARS)  # issue 38: bounded work
    with open_bundle(path) as report:
        # What the report still records (an unredacted run's host, cwd) and this machine's names.
        own = redactor_for(report, this_machine=this_machine, extra_rules=extra_rules)
        if not _redacted(report.meta.get("redaction")):
            findings.append(
                Finding("not redacted", "report.inspectc", "made with --no-redact, or not by share")
            )
        doc = detect.Doc("report.txt")
        for where, text in report_texts(report.path):
            if where.startswith("events ") and where.rsplit(".", 1)[-1].rsplit(" ", 1)[-1] in CHECKSUM_KEYS:
                findings.append(Finding("payload checksum", f"report.inspectc: {where}"))
            budget.spend(len(text))
            _look(own, text, f"report.inspectc: {where}", findings)
            doc.add(f"report.inspectc: {where}", text)
        docs.append(doc)
    checked = ["report.inspectc"]
    for name, text in _text_members(path):
        shown = as_read(name, text)
        budget.spend(len(shown))
        _look(own, shown, name, findings)
        docs.append(member_doc(name, shown))
        checked.append(name)
    findings += [Finding(f.detector, f.where, by="detect-secrets") for f in detect.scan(docs)]
    return Verdict(findings, detect.describe(), len(own.rules), checked)


def _check_page(path: Path, this_machine: bool, extra_rules: tuple[Rule, ...]) -> Verdict:
    try:
        with open(path, "rb") as fh:
            data = fh.read(PAGE_CAP + 1)
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(data) > PAGE_CAP:
        raise UsageError(f"{path}: larger than {PAGE_CAP >> 20} MB: not a page share wrote")
    text = as_read(path.name, data.decode("utf-8", "replace"))
    own = Redactor.for_report(this_machine=this_machine, extra_rules=extra_rules)
    findings: list[Finding] = []
    _look(own, text, path.name, findings)
    flags = detect.scan([member_doc(path.name, text)])
    findings += [Finding(f.detector, f.where, by="detect-secrets") for f in flags]
    return Verdict(findings, detect.describe(), len(own.rules), [path.name])


def member_doc(name: str, text: str) -> detect.Doc:
    doc = detect.Doc(name)
    for n, line in enumerate(text.splitlines(), 1):
        doc.lines.append(line)
        doc.places.append(f"{name}, line {n}")
    return doc


def _look(own: Redactor, text: str, where: str, findings: list[Finding]) -> None:
    seen: set[tuple[str, str]] = set()
    for match in own.pattern.finditer(text):
        key = (own.kind(match), match.group(0))
        if key not in seen:
            seen.add(key)
            findings.append(Finding(key[0], where, place(match)))


def report_texts(report_path: str | os.PathLike[str]) -> Iterator[tuple[str, str]]:
    """(place, text) of every cell of a report; a JSON cell value by value (``frames 0/0 data:
    guards[3].code``), a payload too (one line of JSON holds a whole graph or cache key: read
    whole, it was cut at detect-secrets' line cap), run records without their versions (a
    torch commit hash is public)."""
    for cell in report_cells(report_path):
        text = _without_versions(cell.row, cell.text) if cell.table == "meta" else cell.text
        data = _json(text, strings=cell.column == "payload")
        if isinstance(data, str):  # a payload that is one JSON string (a chromium_event's)
            yield cell.place, data
            continue
        if data is None:
            yield cell.place, text
            continue
        for path, value in _leaves(data, ""):
            yield f"{cell.place}{': ' + path if path else ''}", value


def _json(text: str, *, strings: bool = False) -> Any:
    """*text* as JSON if it is an object or an array (with *strings*, a string too), else None."""
    if not text.lstrip().startswith(("{", "[", '"') if strings else ("{", "[")):
        return None
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _leaves(value: Any, path: str, depth: int = 0) -> Iterator[tuple[str, str]]:
    """Every string in a JSON value (keys too), with its path: ``guards[3].code``."""
    if depth > 64:
        yield path, json.dumps(value)
    elif isinstance(value, dict):
        for k, v in value.items():
            sub = f"{path}.{k}" if path else str(k)
            inner = _json(v) if isinstance(v, str) else None
            if inner is not None:  # JSON in a string (Inductor's config): read as JSON too
                yield from _leaves(inner, sub, depth + 1)
            elif isinstance(v, str):
                yield sub, f"{json.dumps(k)}: {json.dumps(v)}" if "\n" not in v else v
            else:
                yield from _leaves(v, sub, depth + 1)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _leaves(v, f"{path}[{i}]", depth + 1)
    elif isinstance(value, str):
        yield path, value


_MD_ESCAPE = re.compile(r"\\([\\`*_\[\]|~#!{}])")


def as_read(name: str, text: str) -> str:
    """A member's text as a reader sees it: HTML entities and Markdown escapes undone, so
    the checker matches what the redactor matched (``&lt;user&gt;`` is the placeholder)."""
    if name.endswith((".html", ".htm")):
        from inspectc.render.html.text import page_text

        return page_text(text)
    if name.endswith((".md", ".markdown")):
        return html.unescape(_MD_ESCAPE.sub(r"\1", text))
    return text


def _redacted(meta: str | None) -> bool:
    try:
        data = json.loads(meta or "null")
    except (ValueError, RecursionError):
        return False
    return isinstance(data, dict) and bool(data.get("redacted"))


def by_kind(findings: list[Finding]) -> str:
    """``3 jwt, 1 Secret Keyword``: the findings counted by kind, most first."""
    counts: dict[str, int] = {}
    for f in findings:
        counts[f.kind] = counts.get(f.kind, 0) + 1
    return ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items(), key=lambda kv: -kv[1]))


def _without_versions(key: str, value: str) -> str:
    """A run record without its version fields (a torch commit hash is public)."""
    if key not in ("run", "ranks"):
        return value
    try:
        data = json.loads(value)
    except (ValueError, RecursionError):
        return value
    runs = (
        [data]
        if key == "run"
        else [r.get("run") for r in data if isinstance(r, dict)]
        if isinstance(data, list)
        else []
    )
    for run in runs:
        if isinstance(run, dict):
            for name in _VERSIONS:
                run.pop(name, None)
    return json.dumps(data)


def _text_members(path: str | os.PathLike[str]) -> Iterator[tuple[str, str]]:
    check_directory(path)  # the entry count from the end record, before zipfile reads them all
    try:
        with zipfile.ZipFile(path) as archive:
            budget = MemberBudget(archive, path)  # member count, ratio and total inflate
            for info in archive.infolist():
                if info.is_dir() or info.filename.endswith(".inspectc"):
                    continue
                with archive.open(info) as member:
                    data = member.read(min(MEMBER_CAP, budget.allow(info)))
                budget.spend(len(data))
                yield info.filename, data.decode("utf-8", "replace")
    except (zipfile.BadZipFile, NotImplementedError, RuntimeError, OSError) as exc:
        raise ReportError(f"{path}: cannot read the bundle ({exc})") from None
    except DAMAGED as exc:
        raise ReportError(f"{path}: damaged bundle: {damage(exc)}") from None
