"""``inspectc share --check BUNDLE``: does a bundle hold anything that looks private?

Before a bundle is attached to a public issue (or when one made elsewhere is about to be),
every member is read, boundedly: the report (every meta entry, event name, metadata and
payload, frame and kernel), the Markdown, the HTML page and the repros. What counts as a
finding: a home directory or a cluster user folder with a name still in it, a user or host
name the report itself records or this machine has, a token shape, a content hash, a payload checksum (``has_payload``), and a
report that says it was never redacted. The values themselves are shown masked.
"""

from __future__ import annotations

import html
import json
import os
import re
import sqlite3
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from inspectc.errors import ReportError
from inspectc.render.share.found import redactor_for
from inspectc.render.share.rules import Rule
from inspectc.store import untrusted
from inspectc.store.bundle import DAMAGED, MemberBudget, check_directory, damage, open_bundle
from inspectc.store.schema import decompress
from inspectc.trace.records import CHECKSUM_KEYS

MEMBER_CAP = 64 * 1024 * 1024  # bytes read of one text member
SHOWN = 20  # findings listed; the rest are counted
_VERSIONS = ("torch_version", "triton_version", "cuda_version", "python_version")


@dataclass(frozen=True, slots=True)
class Finding:
    kind: str  # "token", "user name", "home directory", "content hash", ...
    where: str  # member, and where in the report
    sample: str  # where in the text (never the value)

    def line(self) -> str:
        return f"{self.kind} in {self.where}: {self.sample}"


def place(match: re.Match[str]) -> str:
    """Where a finding is, never what: ``--check`` runs in public CI logs, and a value's first
    characters and length narrow a short password down to a guess."""
    return f"at character {match.start():,}"


def scan_bundle(
    path: str | os.PathLike[str], *, this_machine: bool = True, extra_rules: tuple[Rule, ...] = ()
) -> list[Finding]:
    """Everything in the bundle at *path* that looks private; raises :class:`ReportError`."""
    findings: list[Finding] = []
    seen: set[tuple[str, str, str]] = set()

    def look(text: str | None, where: str) -> None:
        for match in detector.pattern.finditer(text or ""):
            kind = detector.kind(match)
            key = (kind, where, match.group(0))
            if key not in seen:
                seen.add(key)
                findings.append(Finding(kind, where, place(match)))

    with open_bundle(path) as report:
        # What the report still records (an unredacted run's host, cwd) and this machine's names.
        detector = redactor_for(report, this_machine=this_machine, extra_rules=extra_rules)
        if not _redacted(report.meta.get("redaction")):
            findings.append(
                Finding("not redacted", "report.inspectc", "made with --no-redact, or not by share")
            )
        for where, text in _report_texts(report.path, findings):
            look(text, f"report.inspectc ({where})")
    for name, text in _text_members(path):
        look(as_read(name, text), name)
    return findings


_MD_ESCAPE = re.compile(r"\\([\\`*_\[\]|~#!{}])")


def as_read(name: str, text: str) -> str:
    """A member's text as a reader sees it: HTML entities and Markdown escapes undone, so
    the checker matches what the redactor matched (``&lt;user&gt;`` is the placeholder)."""
    if name.endswith((".html", ".htm")):
        from inspectc.render.html.text import page_text

        return page_text(text)
    if name.endswith(".md"):
        return html.unescape(_MD_ESCAPE.sub(r"\1", text))
    return text


def _report_texts(report_path: os.PathLike[str], findings: list[Finding]) -> Iterator[tuple[str, str]]:
    db, _ = untrusted.open_verified(Path(report_path))
    try:
        for key, value in db.execute("SELECT key, value FROM meta"):
            yield f"meta {key}", _without_versions(key, value)
        for seq, name, metadata, blob in db.execute("SELECT seq, name, metadata, payload FROM events"):
            yield f"event {seq}", f"{name}\n{metadata}"
            if any(f'"{k}"' in metadata for k in CHECKSUM_KEYS):
                findings.append(
                    Finding("payload checksum", f"report.inspectc (event {seq})", min(CHECKSUM_KEYS))
                )
            try:
                yield f"event {seq} payload", decompress(blob) or ""
            except zlib.error as exc:
                raise ReportError(f"event {seq} of the bundled report is corrupt ({exc})") from None
        for cid, data in db.execute("SELECT compile_id, data FROM frames"):
            yield f"frame {cid}", data
        for name, data in db.execute("SELECT name, data FROM kernels"):
            yield f"kernel {name}", f"{name}\n{data}"
    except sqlite3.DatabaseError as exc:
        raise ReportError(f"the bundled report is corrupt ({exc})") from None
    finally:
        db.close()


def _redacted(meta: str | None) -> bool:
    try:
        data = json.loads(meta or "null")
    except (ValueError, RecursionError):
        return False
    return isinstance(data, dict) and bool(data.get("redacted"))


def by_kind(findings: list[Finding]) -> str:
    """``3 token, 1 user name``: the findings counted by kind, most first."""
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
            for field in _VERSIONS:
                run.pop(field, None)
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
