"""Privacy for sharing: replace home directories, user names and host names in report text.

A :class:`Redactor` is one compiled pattern built from what this machine says (home,
``getpass.getuser()``, ``socket.gethostname()``) *and* what the report recorded (its run's
host name, the home parts of its paths), so a report captured elsewhere is cleaned too.
:func:`redacted_copy` writes a cleaned copy of a report file for a share bundle: every text
column, every decompressed payload, with the slices that point into payloads moved to match.
"""

from __future__ import annotations

import getpass
import json
import os
import re
import socket
import sqlite3
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from inspectc.errors import ReportError
from inspectc.report.model import Frame, GraphBreak, StackFrame, from_plain, to_plain
from inspectc.report.schema import compress, decompress

HOME = "~"
USER = "<user>"
HOST = "<host>"

# A user name inside a path: up to a character that ends a path part.
_NAME = r"(?:[^/\\\s'\"`<>:;,|()\[\]{}]|\\u[0-9a-fA-F]{4})+"  # \uXXXX: JSON-escaped
_GENERIC_HOMES = (
    rf"/(?:home|Users)/{_NAME}",
    rf"[A-Za-z]:(?:\\\\|\\)Users(?:\\\\|\\){_NAME}",  # Windows, also JSON-escaped
)
_HOME_USER = re.compile(rf"(?:/(?:home|Users)/|[A-Za-z]:(?:\\\\|\\)Users(?:\\\\|\\))({_NAME})")
# Names are replaced as whole words, where "_" also separates words: torch's default cache
# folder is /tmp/torchinductor_<user>.
_BEFORE = r"(?<![^\W_])"
_AFTER = r"(?![^\W_])"
_CACHE_USER = rf"(?<=torchinductor_){_NAME}"  # any user's, even one the report never names
# Shared system accounts are not personal; replacing them as words would mangle text
# ("root" is also a guard tree's word). Paths under their homes are still replaced.
GENERIC_ACCOUNTS = frozenset(
    {"root", "user", "admin", "runner", "ubuntu", "ec2-user", "jovyan", "vscode", "codespace", "nobody"}
)
MIN_USER = 3  # shorter names would hit ordinary words; their home paths are still replaced
MIN_HOST = 2

# With --no-source these event payloads are kept (they hold no source); all others are blanked.
DATA_EVENTS = frozenset({"inspectc_kernel_times", "artifact:torch_version", "artifact:recompile_reasons"})
LEFT_OUT = "# left out by `inspectc share --no-source`\n"


def _current_user() -> str | None:
    try:
        return getpass.getuser()
    except (OSError, KeyError, ImportError):
        return None


@dataclass(frozen=True, slots=True)
class Redactor:
    """Replaces home directories by ``~``, user names by ``<user>``, host names by ``<host>``."""

    homes: tuple[str, ...] = ()
    users: tuple[str, ...] = ()
    hosts: tuple[str, ...] = ()
    skipped: tuple[str, ...] = ()  # kinds ("user name", "host name") found but not replaced as words

    @classmethod
    def for_report(
        cls,
        *,
        hostnames: Iterable[str | None] = (),
        paths: Iterable[str | None] = (),
        this_machine: bool = True,
    ) -> Redactor:
        """Values from the report (its host names, paths) plus this machine's, if asked."""
        homes: set[str] = set()
        users: set[str] = set()
        hosts: set[str] = {h for h in hostnames if h}
        if this_machine:
            home = os.path.expanduser("~")
            if home and home not in ("/", "~"):
                homes.add(home.rstrip("/\\"))
            if user := _current_user():
                users.add(user)
            if host := socket.gethostname():
                hosts.add(host)
        for path in paths:
            for match in _HOME_USER.finditer(path or ""):
                users.add(match.group(1))
        hosts |= {h.split(".", 1)[0] for h in hosts}
        hosts -= {"", "localhost"}
        words = {u for u in users if u.lower() not in GENERIC_ACCOUNTS and len(u) >= MIN_USER}
        good_hosts = {h for h in hosts if len(h) >= MIN_HOST}
        skipped = [
            kind
            for kind, found, kept in (("user name", users, words), ("host name", hosts, good_hosts))
            if found - kept
        ]
        return cls(
            homes=tuple(sorted(homes, key=len, reverse=True)),
            users=tuple(sorted(words, key=len, reverse=True)),
            hosts=tuple(sorted(good_hosts, key=len, reverse=True)),
            skipped=tuple(skipped),
        )

    # -- matching ----------------------------------------------------------------------
    @property
    def pattern(self) -> re.Pattern[str]:
        return _compile(self.homes, self.users, self.hosts)

    @staticmethod
    def _replacement(match: re.Match[str]) -> str:
        group = match.lastgroup or ""
        return {"h": HOME, "u": USER, "n": HOST}[group[0]]

    def sub(self, text: str) -> str:
        return self.pattern.sub(self._replacement, text)

    def sub_mapped(self, text: str, offsets: Iterable[int]) -> tuple[str, dict[int, int]]:
        """Redact *text* and say where each old offset lands in the new text."""
        wanted = sorted(set(offsets))
        mapping: dict[int, int] = {}
        out: list[str] = []
        pos = shift = i = 0
        for match in self.pattern.finditer(text):
            start, end = match.span()
            rep = self._replacement(match)
            while i < len(wanted) and wanted[i] <= start:
                mapping[wanted[i]] = wanted[i] + shift
                i += 1
            while i < len(wanted) and wanted[i] < end:  # inside a match: after its replacement
                mapping[wanted[i]] = start + shift + len(rep)
                i += 1
            out += (text[pos:start], rep)
            pos = end
            shift += len(rep) - (end - start)
        for offset in wanted[i:]:
            mapping[offset] = offset + shift
        out.append(text[pos:])
        return "".join(out), mapping

    def found_in(self, text: str) -> list[str]:
        """The sensitive strings in *text* (tests and a last check use this)."""
        return [m.group(0) for m in self.pattern.finditer(text)]

    def describe(self) -> list[str]:
        """What gets replaced, in words for the summary (never the names themselves)."""
        what = [f"home directories → {HOME}"]
        if self.hosts:
            what.append(f"host name → {HOST}")
        else:
            what.append(f"the run's host name → {HOST} (too short to replace in text)")
        if self.users:
            what.append(f"user name → {USER}")
        if "user name" in self.skipped:
            what.append(
                f"a user name that is a shared account (such as root) or under {MIN_USER} characters is kept in text"
            )
        return what


_CACHE: dict[tuple[tuple[str, ...], ...], re.Pattern[str]] = {}


def _compile(homes: tuple[str, ...], users: tuple[str, ...], hosts: tuple[str, ...]) -> re.Pattern[str]:
    key = (homes, users, hosts)
    pattern = _CACHE.get(key)
    if pattern is None:
        parts = [rf"(?P<h{i}>{_either(h)}(?![\w.-]))" for i, h in enumerate(homes)]
        parts += [rf"(?P<hg{i}>{p})" for i, p in enumerate(_GENERIC_HOMES)]
        parts.append(rf"(?P<ug>{_CACHE_USER})")
        parts += [rf"(?P<n{i}>(?i:{_BEFORE}{_either(h)}{_AFTER}))" for i, h in enumerate(hosts)]
        parts += [rf"(?P<u{i}>{_BEFORE}{_either(u)}{_AFTER})" for i, u in enumerate(users)]
        pattern = _CACHE[key] = re.compile("|".join(parts))
    return pattern


def _either(value: str) -> str:
    """*value* as a pattern, also in its JSON-escaped form (``\\u00e9``, doubled backslashes)."""
    escaped = json.dumps(value)[1:-1]
    if escaped == value:
        return re.escape(value)
    return f"(?:{re.escape(escaped)}|{re.escape(value)})"


def redactor_for(report: Any, *, this_machine: bool = True) -> Redactor:
    """A :class:`Redactor` for an open :class:`~inspectc.report.reader.Report`."""
    run = report.run
    paths: list[str | None] = [run.cwd, *run.argv, str(report.path)]
    for frame in report.frames:
        paths.append(frame.filename)
        paths += [s.filename for s in frame.user_stack]
        for gb in frame.graph_breaks:
            paths.append(gb.filename)
            paths += [s.filename for s in gb.user_stack]
    return Redactor.for_report(hostnames=[run.hostname], paths=paths, this_machine=this_machine)


# ---------------------------------------------------------------------------
# A redacted copy of a report file


@dataclass(frozen=True, slots=True)
class CopyNotes:
    """What :func:`redacted_copy` did, for the summary and the copy's ``redaction`` meta."""

    redacted: tuple[str, ...]
    left_out: tuple[str, ...]

    def to_meta(self) -> str:
        return json.dumps(
            {"by": "inspectc share", "redacted": list(self.redacted), "left_out": list(self.left_out)}
        )


_TRACEBACK_FILE = re.compile(r'\s*File "[^"]*", line \d+')


def strip_code_lines(text: str | None) -> str | None:
    """*text* without the source lines a traceback shows under each ``File "...", line N``."""
    if not text:
        return text
    out: list[str] = []
    code_indent: int | None = None
    for line in text.splitlines(keepends=True):
        indent = len(line) - len(line.lstrip())
        if code_indent is not None and line.strip() and indent > code_indent:
            continue
        code_indent = indent if _TRACEBACK_FILE.match(line) else None
        out.append(line)
    return "".join(out)


def _strip_source(frame: Frame) -> Frame:
    """*frame* without user source: stack code lines, raw break text, guard user code."""

    def stack(entries: tuple[StackFrame, ...]) -> tuple[StackFrame, ...]:
        return tuple(replace(s, code=None) for s in entries)

    def gb(b: GraphBreak) -> GraphBreak:
        return replace(
            b,
            raw=None,
            reason=strip_code_lines(b.reason) or "",
            explanation=strip_code_lines(b.explanation),
            user_stack=stack(b.user_stack),
        )

    failure = frame.failure
    if failure is not None:
        failure = replace(failure, reason=strip_code_lines(failure.reason))
    return replace(
        frame,
        user_stack=stack(frame.user_stack),
        graph_breaks=tuple(gb(b) for b in frame.graph_breaks),
        guards=tuple(replace(g, user_code=None) for g in frame.guards),
        failure=failure,
    )


def _hide_host(run_json: str) -> str:
    """The run record's host name field, replaced whatever its length."""
    try:
        run = json.loads(run_json)
    except ValueError:
        return run_json
    if isinstance(run, dict) and run.get("hostname"):
        run["hostname"] = HOST
    return json.dumps(run)


def _drop_loc(value: Any) -> Any:
    """Event metadata without the source lines of stacks (``loc`` keys)."""
    if isinstance(value, dict):
        return {k: _drop_loc(v) for k, v in value.items() if k != "loc"}
    if isinstance(value, list):
        return [_drop_loc(v) for v in value]
    return value


def _slices(db: sqlite3.Connection) -> dict[int, set[int]]:
    """Payload offsets that graphs and kernels rows point at, per event."""
    found: dict[int, set[int]] = {}
    for table in ("graphs", "kernels"):
        for seq, start, stop in db.execute(f"SELECT seq, start, stop FROM {table}"):  # noqa: S608
            found.setdefault(seq, set()).update(x for x in (start, stop) if x is not None)
    return found


def _rows(db: sqlite3.Connection, sql: str) -> Iterator[tuple[Any, ...]]:
    yield from db.execute(sql).fetchall()


def redacted_copy(
    src: str | os.PathLike[str],
    dest: str | os.PathLike[str],
    redactor: Redactor | None,
    *,
    no_source: bool = False,
) -> CopyNotes:
    """Write *src* to *dest* with every text redacted (and source blanked with *no_source*).

    The copy is rebuilt with VACUUM under ``secure_delete`` so no page of the file keeps the
    old text.
    """
    dest = Path(dest)
    dest.unlink(missing_ok=True)
    source = sqlite3.connect(Path(src).resolve().as_uri() + "?mode=ro", uri=True)
    db = sqlite3.connect(str(dest), isolation_level=None)
    try:
        source.backup(db)
        source.close()
        db.execute("PRAGMA journal_mode=DELETE")
        db.execute("PRAGMA secure_delete=ON")
        db.execute("BEGIN")
        notes = _rewrite(db, redactor, no_source)
        db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('redaction', ?)", (notes.to_meta(),))
        db.execute("COMMIT")
        db.execute("VACUUM")
    except (sqlite3.DatabaseError, zlib.error, ValueError, TypeError) as exc:
        raise ReportError(f"{src}: cannot make a shareable copy, the report is corrupt ({exc})") from None
    finally:
        source.close()
        db.close()
    return notes


def _rewrite(db: sqlite3.Connection, redactor: Redactor | None, no_source: bool) -> CopyNotes:
    sub = redactor.sub if redactor else (lambda text: text)
    for key, value in _rows(db, "SELECT key, value FROM meta WHERE key NOT IN ('format', 'schema_version')"):
        if key == "run" and redactor is not None:
            value = _hide_host(value)
        db.execute("UPDATE meta SET value = ? WHERE key = ?", (sub(value), key))

    offsets = _slices(db)
    moved: dict[int, dict[int, int]] = {}
    blanked: set[int] = set()
    for (seq,) in _rows(db, "SELECT seq FROM events ORDER BY seq"):
        name, metadata, blob = db.execute(
            "SELECT name, metadata, payload FROM events WHERE seq = ?", (seq,)
        ).fetchone()
        if no_source:
            try:
                metadata = json.dumps(_drop_loc(json.loads(metadata)))
            except ValueError:
                metadata = "{}"
        payload = decompress(blob)
        if payload is not None and no_source and name not in DATA_EVENTS:
            payload = LEFT_OUT
            blanked.add(seq)
        elif payload is not None and redactor is not None:
            payload, moved[seq] = redactor.sub_mapped(payload, offsets.get(seq, ()))
        db.execute(
            "UPDATE events SET name = ?, metadata = ?, payload = ? WHERE seq = ?",
            (sub(name), sub(metadata), None if payload is None else compress(payload), seq),
        )

    for table in ("graphs", "kernels"):
        for rowid, seq, start, stop in _rows(db, f"SELECT rowid, seq, start, stop FROM {table}"):  # noqa: S608
            if seq in blanked:
                start, stop = (None, None) if table == "graphs" else (0, len(LEFT_OUT))
            elif seq in moved:
                start = moved[seq].get(start, start) if start is not None else None
                stop = moved[seq].get(stop, stop) if stop is not None else None
            db.execute(f"UPDATE {table} SET start = ?, stop = ? WHERE rowid = ?", (start, stop, rowid))  # noqa: S608
    for kid, name, data in _rows(db, "SELECT id, name, data FROM kernels"):
        db.execute("UPDATE kernels SET name = ?, data = ? WHERE id = ?", (sub(name), sub(data), kid))
    for rank, cid, data in _rows(db, "SELECT rank, compile_id, data FROM frames"):
        if no_source:
            data = json.dumps(to_plain(_strip_source(from_plain(Frame, json.loads(data)))))
        db.execute("UPDATE frames SET data = ? WHERE rank = ? AND compile_id = ?", (sub(data), rank, cid))
    left_out = ("user source lines", "kernel source", "graphs and repros") if no_source else ()
    return CopyNotes(
        redacted=tuple(redactor.describe()) if redactor else (),
        left_out=left_out,
    )
