"""A redacted copy of a report file, for a share bundle: every text column, every payload.

:func:`redacted_copy` rewrites a private copy in place (SQLite's backup API, then UPDATEs
and a VACUUM under ``secure_delete`` so no page keeps the old text): every meta entry (each
rank's run record through :func:`~.redact.scrub_run`), every event's name, metadata and
decompressed payload, frames and kernels; the slices that point into payloads move with
the text. Event metadata loses ``has_payload``, the md5 of the *original* payload: hashing
guesses of a user name against it would undo the redaction.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from inspectc.errors import ReportError
from inspectc.model import Frame, GraphBreak, Recompile, StackFrame, from_plain, to_plain
from inspectc.model.runrecords import RECORDS_EVENT, ExportIssue, RunRecords
from inspectc.model.secrets import META_KEY
from inspectc.render.share.redact import DATA_EVENTS, HOST, LEFT_OUT, USER, Redactor, scrub_run
from inspectc.store import origin, untrusted
from inspectc.store.schema import compress, decompress
from inspectc.trace.records import CHECKSUM_KEYS, SOURCE_LINE_KEY


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
_ORIGIN = {origin.HOST: HOST, origin.USER: USER}
_NODE_NAME = re.compile(r"[A-Za-z_][\w.]*")
# A verbose guard: `CODE   # USER SOURCE LINE  # file.py:12 in fn` (torch's format); the
# middle comment is the user's source line. Read a line at a time, without backtracking.
_GUARD_WHERE = re.compile(r"[^#\n:]{1,500}:\d+ in [^#\n]{1,300}")
# Metadata that is a map from kernels to the user's source (tracebacks as text)
SOURCE_MAPS = frozenset({"inductor_provenance"})


def strip_code_lines(text: str | None) -> str | None:
    """*text* without the source lines a traceback shows under each ``File "...", line N``,
    and without the user's line a verbose guard quotes (``G['x'] == 2  # x = f(y)  # a.py:3 in g``)."""
    if not text:
        return text
    text = "".join(map(_guard_without_source, text.splitlines(keepends=True))) if " # " in text else text
    out: list[str] = []
    code_indent: int | None = None
    for line in text.splitlines(keepends=True):
        indent = len(line) - len(line.lstrip())
        if code_indent is not None and line.strip() and indent > code_indent:
            continue
        code_indent = indent if _TRACEBACK_FILE.match(line) else None
        out.append(line)
    return "".join(out)


def _guard_without_source(line: str) -> str:
    """``G['x'] == 2   # x = f(y)  # a.py:3 in g`` -> ``G['x'] == 2  # a.py:3 in g``."""
    body = line.rstrip("\r\n")
    cut = body.rfind("  # ")
    first = body.find(" # ")
    if cut < 0 or first < 0 or first + 1 >= cut or not _GUARD_WHERE.fullmatch(body[cut + 4 :]):
        return line
    guard = body[:first].rstrip()
    return f"{guard}  # {body[cut + 4 :]}{line[len(body) :]}" if guard else line


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

    def recompile(r: Recompile) -> Recompile:
        failed = tuple(replace(f, text=strip_code_lines(f.text) or "") for f in r.failed)
        return replace(r, text=strip_code_lines(r.text) or "", failed=failed)

    failure = frame.failure
    if failure is not None:
        failure = replace(failure, reason=strip_code_lines(failure.reason))
    return replace(
        frame,
        user_stack=stack(frame.user_stack),
        graph_breaks=tuple(gb(b) for b in frame.graph_breaks),
        guards=tuple(replace(g, user_code=None) for g in frame.guards),
        recompiles=tuple(recompile(r) for r in frame.recompiles),
        failure=failure,
    )


def _source_free(value: Any) -> Any:
    """Event metadata without the user's source: no ``loc`` (a stack's line), no kernel ->
    traceback maps, no code lines in any text (torch puts tracebacks in its reasons)."""
    if isinstance(value, dict):
        return {k: _source_free(v) for k, v in value.items() if k != SOURCE_LINE_KEY and k not in SOURCE_MAPS}
    if isinstance(value, list):
        return [_source_free(v) for v in value]
    if isinstance(value, str):
        return strip_code_lines(value)
    return value


def _payload_source_free(payload: str) -> str:
    """A kept payload (``recompile_reasons``: JSON text) without code lines in its strings."""
    try:
        return json.dumps(_source_free(json.loads(payload)))
    except (ValueError, RecursionError):
        return strip_code_lines(payload) or ""


def _origin_source_free(kernel: dict[str, Any]) -> dict[str, Any]:
    """A kernel row's data without the user's expressions its origins quote (an FX node's
    name, ``linear``, stays: it names the op, not the code)."""
    origins = kernel.get("origins")
    if isinstance(origins, list):
        kernel["origins"] = [_op_without_code(o) for o in origins]
    return kernel


def _op_without_code(origin: Any) -> Any:
    op = origin.get("op") if isinstance(origin, dict) else None
    if not isinstance(op, str) or _NODE_NAME.fullmatch(op):
        return origin
    return {**origin, "op": "(source left out)"}


def _scrub_meta(key: str, value: str, redactor: Redactor) -> str:
    """One meta entry redacted: run records (this run's, each merged rank's) field by field;
    who made the report is a placeholder whatever the name (a short one is kept in text)."""
    if key in _ORIGIN and value:
        return _ORIGIN[key]
    if key not in ("run", "ranks"):
        return redactor.sub(value)
    try:
        data = json.loads(value)
    except (ValueError, RecursionError):
        return redactor.sub(value)
    if key == "run":
        return json.dumps(scrub_run(data, redactor))
    if not isinstance(data, list):
        return redactor.sub(value)
    ranks = []
    for entry in data:
        if isinstance(entry, dict):
            entry = {
                k: scrub_run(v, redactor)
                if k == "run"
                else _ORIGIN[k]
                if k in _ORIGIN and v
                else redactor.sub_plain(v)
                for k, v in entry.items()
            }
        ranks.append(entry)
    return json.dumps(ranks)


def _drop_checksums(value: Any, counts: Any) -> Any:
    """Event metadata without checksums of the original text (``has_payload``)."""
    if isinstance(value, dict):
        kept = {}
        for k, v in value.items():
            if k in CHECKSUM_KEYS:
                counts["payload checksum"] += 1
            else:
                kept[k] = _drop_checksums(v, counts)
        return kept
    if isinstance(value, list):
        return [_drop_checksums(v, counts) for v in value]
    return value


def _records_without_source(payload: str) -> str:
    """A process's RunRecords (JSON) without the user's source lines (``--no-source``).

    The event stays readable JSON: blanked like a source payload, the report would no longer
    open (its records are data the summary reads)."""
    try:
        records = from_plain(RunRecords, json.loads(payload))
    except (ValueError, TypeError, RecursionError):
        return "{}"  # unreadable: nothing of it is copied

    def site(s: StackFrame | None) -> StackFrame | None:
        return None if s is None else replace(s, code=None)

    def issue(i: ExportIssue) -> ExportIssue:
        return replace(i, code=None, user_stack=tuple(replace(s, code=None) for s in i.user_stack))

    stripped = replace(
        records,
        exported_programs=tuple(
            replace(p, issues=tuple(issue(i) for i in p.issues), call_site=site(p.call_site))
            for p in records.exported_programs
        ),
        export_issues=tuple(issue(i) for i in records.export_issues),
        aot_compiles=tuple(replace(a, call_site=site(a.call_site)) for a in records.aot_compiles),
    )
    return json.dumps(to_plain(stripped))


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
    source, _ = untrusted.open_verified(Path(src))
    db = sqlite3.connect(str(dest), isolation_level=None)
    try:
        untrusted.guard(db, Path(src))
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
    at = redactor.at if redactor else (lambda where: None)
    # The salted hashes of the run's secrets stay in the private report: a short one can be guessed.
    db.execute("DELETE FROM meta WHERE key = ?", (META_KEY,))
    for key, value in _rows(db, "SELECT key, value FROM meta WHERE key NOT IN ('format', 'schema_version')"):
        if redactor is not None:
            at(f"meta {key}")
            value = _scrub_meta(key, value, redactor)
        db.execute("UPDATE meta SET value = ? WHERE key = ?", (value, key))

    offsets = _slices(db)
    moved: dict[int, dict[int, int]] = {}
    blanked: set[int] = set()
    for (seq,) in _rows(db, "SELECT seq FROM events ORDER BY seq"):
        name, metadata, blob = db.execute(
            "SELECT name, metadata, payload FROM events WHERE seq = ?", (seq,)
        ).fetchone()
        if no_source or redactor is not None:
            try:
                plain = json.loads(metadata)
                if redactor is not None:
                    plain = redactor.sub_plain(_drop_checksums(plain, redactor.counts))
                metadata = json.dumps(_source_free(plain) if no_source else plain)
            except (ValueError, RecursionError):
                metadata = "{}"  # unreadable metadata is not copied: it could hold anything
        at(f"event {seq} ({name})")
        payload = decompress(blob)
        if payload is not None and no_source and name == RECORDS_EVENT:
            payload = _records_without_source(payload)
        if payload is not None and no_source and name not in DATA_EVENTS and name != RECORDS_EVENT:
            payload = LEFT_OUT
            blanked.add(seq)
        elif payload is not None and no_source and name in DATA_EVENTS:
            payload = _payload_source_free(payload)
        elif payload is not None and redactor is not None:
            payload, moved[seq] = redactor.sub_mapped(payload, offsets.get(seq, ()))
        db.execute(
            "UPDATE events SET name = ?, metadata = ?, payload = ? WHERE seq = ?",
            (sub(name), metadata, None if payload is None else compress(payload), seq),
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
        at(f"kernel {kid}")
        if no_source or redactor is not None:
            plain = json.loads(data)
            if no_source:
                plain = _origin_source_free(plain)
            if redactor is not None:
                plain = redactor.sub_plain(plain)
            data = json.dumps(plain)
        db.execute("UPDATE kernels SET name = ?, data = ? WHERE id = ?", (sub(name), data, kid))
    for rank, cid, data in _rows(db, "SELECT rank, compile_id, data FROM frames"):
        at(f"frame {cid}" + (f" rank {rank}" if rank not in (None, -1) else ""))
        plain = json.loads(data)
        if no_source:
            plain = to_plain(_strip_source(from_plain(Frame, plain)))
        if redactor is not None:
            plain = redactor.sub_plain(plain)  # field by field: a guard keeps its shape, JSON stays JSON
        db.execute(
            "UPDATE frames SET data = ? WHERE rank = ? AND compile_id = ?", (json.dumps(plain), rank, cid)
        )
    left_out = ("user source lines", "kernel source", "graphs and repros") if no_source else ()
    return CopyNotes(
        redacted=tuple(redactor.describe()) if redactor else (),
        left_out=left_out,
    )
