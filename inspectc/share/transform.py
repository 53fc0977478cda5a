"""What a share bundle's copy of a report holds: each row redacted, the user's source left out.

:class:`ShareRewrite` is the :class:`~inspectc.store.rewrite.Rewrite` that
:func:`redacted_copy` hands to the store, which reads every row and writes a fresh file:
every meta entry (each rank's run record through :func:`~.redact.scrub_run`), every event's
name, metadata and decompressed payload, frames, kernels and bench figures; the slices that
point into payloads move with the text. Event metadata loses ``has_payload``, the md5 of
the *original* payload: hashing guesses of a user name against it would undo the redaction.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field, replace
from typing import Any

from inspectc.errors import ReportError
from inspectc.model import Frame, GraphBreak, Recompile, StackFrame, from_plain, to_plain
from inspectc.model.decode.record_keys import CHECKSUM_KEYS, SOURCE_LINE_KEY
from inspectc.model.runrecords import RECORDS_EVENT, ExportIssue, RunRecords
from inspectc.model.secrets import META_KEY
from inspectc.share.redact import DATA_EVENTS, HOST, LEFT_OUT, USER, Redactor, scrub_run
from inspectc.store import origin
from inspectc.store.rewrite import Event, Rewritten, rewrite_report


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
RUN_KEYS = ("run", "ranks")  # meta entries that hold run records (a merged report's: ranks)


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


def _drop_checksums(value: Any, redactor: Redactor) -> Any:
    """Event metadata without checksums of the original text (``has_payload``)."""
    if isinstance(value, dict):
        kept = {}
        for k, v in value.items():
            if k in CHECKSUM_KEYS:
                redactor.note("payload checksum", str(v))
            else:
                kept[k] = _drop_checksums(v, redactor)
        return kept
    if isinstance(value, list):
        return [_drop_checksums(v, redactor) for v in value]
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


def file_names(value: Any, into: set[str]) -> None:
    """Add every ``filename`` string of a plain JSON value to *into* (a frame's stacks, breaks
    and guards, a kernel's origins, a run record's call sites: every place a location is kept)."""
    todo = [value]
    while todo:
        item = todo.pop()
        if isinstance(item, dict):
            name = item.get("filename")
            if isinstance(name, str):
                into.add(name)
            todo.extend(item.values())
        elif isinstance(item, list):
            todo.extend(item)


def cells_named(entry: str, named: set[str]) -> str:
    """A run meta entry (``run``, or ``ranks``' records) whose notebook ``cells`` keep only the
    cells the copy names elsewhere: the map holds every cell the session ran, and a cell's file
    name is a hash of its code (ipykernel's), which the copy must not add for code it never ran."""
    try:
        data = json.loads(entry)
    except (ValueError, RecursionError):
        return entry
    ranks = [e.get("run") for e in data if isinstance(e, dict)] if isinstance(data, list) else []
    runs = [run for run in [data, *ranks] if isinstance(run, dict) and isinstance(run.get("cells"), dict)]
    for run in runs:
        run["cells"] = {name: n for name, n in run["cells"].items() if name in named} or None
    return json.dumps(data) if runs else entry


@dataclass
class ShareRewrite:
    """What ``share`` does to each row of the copy (:func:`~inspectc.store.rewrite.rewrite_report`):
    every text through *redactor* (when given), the user's source left out with *no_source*.
    Run records are written last, with only the notebook cells a frame, kernel or run record
    of the copy names (:func:`cells_named`)."""

    redactor: Redactor | None
    no_source: bool = False
    held: dict[str, str] = field(default_factory=dict)  # run records, written after every row
    named: set[str] = field(default_factory=set)  # the file names the copy's rows hold

    def _sub(self, text: str) -> str:
        return self.redactor.sub(text) if self.redactor is not None else text

    def _at(self, where: str) -> None:
        if self.redactor is not None:
            self.redactor.at(where)

    def meta(self, key: str, value: str) -> str | None:
        if key in (META_KEY, "redaction"):  # the salted hashes stay in the private report
            return None
        if self.redactor is not None:
            self._at(f"meta {key}")
            value = _scrub_meta(key, value, self.redactor)
        if key in RUN_KEYS and '"cells"' in value:
            self.held[key] = value  # its cells are known once every row is read: added_meta
            return None
        return value

    def event(self, event: Event, offsets: frozenset[int]) -> Rewritten:
        self._at(f"event {event.seq} ({event.name})")
        metadata = event.metadata
        if self.no_source or self.redactor is not None:
            try:
                plain = json.loads(metadata)
                if self.redactor is not None:
                    plain = self.redactor.sub_plain(_drop_checksums(plain, self.redactor))
                metadata = json.dumps(_source_free(plain) if self.no_source else plain)
            except (ValueError, RecursionError):
                metadata = "{}"  # unreadable metadata is not copied: it could hold anything
        payload, moved = event.payload, None
        if payload is not None and self.no_source:
            if event.name == RECORDS_EVENT:  # readable JSON still: the summary reads it
                payload = _records_without_source(payload)
            elif event.name in DATA_EVENTS:
                payload = _payload_source_free(payload)
            else:  # every slice of it (graphs, kernel source) becomes the note
                return Rewritten(
                    replace(event, name=self._sub(event.name), metadata=metadata, payload=LEFT_OUT), None
                )
        if payload is not None and self.redactor is not None:
            payload, moved = self.redactor.sub_mapped(payload, offsets)
        if payload is not None and event.name == RECORDS_EVENT:  # exports' and AOT compiles' call sites
            self._names_in(payload)
        new = replace(event, name=self._sub(event.name), metadata=metadata, payload=payload)
        return Rewritten(new, moved if moved is not None else {o: o for o in offsets})

    def frame(self, rank: int, compile_id: str, data: str) -> str:
        self._at(f"frame {compile_id}" + (f" rank {rank}" if rank not in (None, -1) else ""))
        plain = json.loads(data)
        if self.no_source:
            plain = to_plain(_strip_source(from_plain(Frame, plain)))
        if self.redactor is not None:
            plain = self.redactor.sub_plain(plain)  # field by field: a guard keeps its shape, JSON stays JSON
        file_names(plain, self.named)
        return json.dumps(plain)

    def kernel(self, kid: int, name: str, data: str) -> tuple[str, str]:
        self._at(f"kernel {kid}")
        if self.no_source or self.redactor is not None:
            plain = json.loads(data)
            if self.no_source:
                plain = _origin_source_free(plain)
            if self.redactor is not None:
                plain = self.redactor.sub_plain(plain)
            data = json.dumps(plain)
        self._names_in(data)
        return self._sub(name), data

    def _names_in(self, text: str) -> None:
        try:
            file_names(json.loads(text), self.named)
        except (ValueError, RecursionError):
            pass  # not JSON: it names no cell a reader would look up

    def bench(self, kernel: str, data: str) -> tuple[str, str]:
        self._at(f"bench {kernel}")
        if self.redactor is None:
            return kernel, data
        return self._sub(kernel), json.dumps(self.redactor.sub_plain(json.loads(data)))

    def label(self, text: str) -> str:
        return self._sub(text)

    def added_meta(self) -> dict[str, str]:
        runs = {key: cells_named(entry, self.named) for key, entry in self.held.items()}
        return {**runs, "redaction": self.notes().to_meta()}

    def notes(self) -> CopyNotes:
        left_out = ("user source lines", "kernel source", "graphs and repros") if self.no_source else ()
        redacted = tuple(self.redactor.describe()) if self.redactor else ()
        return CopyNotes(redacted=redacted, left_out=left_out)


def redacted_copy(
    src: str | os.PathLike[str],
    dest: str | os.PathLike[str],
    redactor: Redactor | None,
    *,
    no_source: bool = False,
) -> CopyNotes:
    """Write *src* to *dest* (a new file) with every text redacted, and the user's source left
    out with *no_source*; the report's rows are read and written by :mod:`inspectc.store.rewrite`."""
    rewrite = ShareRewrite(redactor, no_source)
    try:
        rewrite_report(src, dest, rewrite)
    except ReportError as exc:
        raise ReportError(str(exc).replace("cannot make a copy", "cannot make a shareable copy")) from None
    return rewrite.notes()
