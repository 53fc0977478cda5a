"""Streaming parser for TORCH_TRACE log files, plus helpers for structured-trace metadata.

A TORCH_TRACE log (the file tlparse reads) is a sequence of records. Each record is one
glog-prefixed line carrying a JSON metadata dict::

    V1206 15:18:20.253000 1500233 torch/_logging/structured.py:22] {"str": [...]}

followed by zero or more payload lines, each starting with a TAB. Live capture receives the
same (metadata, payload) pairs from torch's ``torch.__trace`` logger, so :func:`event_name`,
:func:`compile_id` and :class:`StringTable` work on both.

Stdlib only and tolerant: odd input is reported through ``on_error`` and skipped, never raised.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import IO, Any, TypeGuard

from inspectc.model import CompileId
from inspectc.model.limits import scale, small_int

__all__ = [
    "CONTEXT_KEYS",
    "MalformedRecord",
    "as_num",
    "StringTable",
    "TraceRecord",
    "compile_id",
    "event_name",
    "iter_records",
    "parse_file",
]

# Keys torch's trace_structured adds around the event's own key (rank, compile id, stack...).
CONTEXT_KEYS = frozenset(
    {
        "rank",
        "compiled_autograd_id",
        "frame_id",
        "frame_compile_id",
        "attempt",
        "has_payload",
        "stack",
        "subgraph_name",
        "severity",
        "timestamp",
        "pathname",
        "thread",
    }
)

ErrorCallback = Callable[[int, str], None]


def as_num(value: Any) -> float | None:
    """A finite number torch logged, else None (a 400-digit integer overflows a float: no figure)."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


class MalformedRecord(ValueError):
    """A record whose values torch never writes (a 400-digit ``ts``, a list as an ``id``):
    the builder keeps it raw and says so, the importer counts it with the malformed lines."""


@dataclass(frozen=True, slots=True)
class TraceRecord:
    """One structured-trace record: its metadata dict and optional payload text."""

    metadata: dict[str, Any]
    payload: str | None
    timestamp: float | None  # seconds since the epoch, when the year is known
    line: int  # 1-based line number of the glog line


def iter_records(
    stream: IO[str] | Iterable[str],
    *,
    on_error: ErrorCallback | None = None,
    year: int | None = None,
    check_md5: bool = False,
) -> Iterator[TraceRecord]:
    """Yield the records of a TORCH_TRACE log, line by line.

    Lines that are not a glog prefix followed by a JSON object are reported through
    *on_error* (line number, message) and skipped; payload lines with no record before them
    are reported once per run. Blank lines are ignored (tlparse does the same: some log
    shippers stutter them into payloads). The glog prefix has no year: pass *year* to get
    :attr:`TraceRecord.timestamp`, else it is None. With *check_md5*, a payload whose md5
    differs from ``has_payload`` (a dropped or altered line) is reported but still yielded.
    """
    yield from _records(stream, on_error or _ignore, _Clock(year), check_md5)


def parse_file(
    path: str | os.PathLike[str], *, check_md5: bool = False
) -> tuple[list[TraceRecord], list[tuple[int, str]]]:
    """Read a whole TORCH_TRACE file; return its records and the (line, message) errors."""
    errors: list[tuple[int, str]] = []
    clock = _Clock.for_file(path)
    with open(path, encoding="utf-8", errors="replace", newline="\n") as stream:
        records = list(_records(stream, lambda n, msg: errors.append((n, msg)), clock, check_md5))
    return records, errors


def event_name(metadata: dict[str, Any]) -> str:
    """The record's kind: its first non-context key; ``artifact:<name>`` for artifacts."""
    for key, value in metadata.items():
        if key in CONTEXT_KEYS:
            continue
        if key == "artifact":
            name = value.get("name") if isinstance(value, dict) else None
            return f"artifact:{name}" if isinstance(name, str) else "artifact"
        return key
    return "unknown"


def compile_id(metadata: dict[str, Any]) -> str | None:
    """The compile id as Dynamo prints it (``CompileId.__str__``): "0/1" or "!2/0/1".

    The restart ``attempt`` is not part of it. None when the record carries no compile id.
    """
    frame = metadata.get("frame_id")
    frame_compile = metadata.get("frame_compile_id")
    autograd = metadata.get("compiled_autograd_id")
    has_frame = _is_int(frame) and _is_int(frame_compile)
    if not has_frame and not _is_int(autograd):
        return None
    return CompileId(
        autograd=autograd if _is_int(autograd) else None,
        frame=frame if has_frame else None,
        compile=frame_compile if has_frame else None,
    ).text


class StringTable:
    """The interned filenames of a trace: ``{"str": [text, index]}`` records define them."""

    __slots__ = ("_strings",)

    def __init__(self) -> None:
        self._strings: dict[int, str] = {}

    def add(self, metadata: dict[str, Any]) -> bool:
        """Learn the string a ``str`` record defines; False when *metadata* is not one."""
        entry = metadata.get("str")
        if not isinstance(entry, list | tuple) or len(entry) != 2:
            return False
        text, index = entry
        if not isinstance(text, str) or not _is_int(index):
            return False
        self._strings[index] = text
        return True

    def resolve(self, ref: int | str | None) -> str | None:
        """The filename for a stack frame's ``filename`` field (an index, or already text)."""
        if isinstance(ref, str):
            return ref
        if _is_int(ref):
            return self._strings.get(ref)
        return None

    def __len__(self) -> int:
        return len(self._strings)


_BLANK_LINES = frozenset({"", "\n", "\r\n"})  # skipped like tlparse: shippers stutter them in
# Characters of one record's payload kept (INSPECTC_LIMITS=N scales it): Inductor's output code
# of huge models is ~100 MB; past this the payload is cut and the cut counted as a problem.
PAYLOAD_CAP = 128 << 20
_HINT = " (INSPECTC_LIMITS=N raises the limits)"


class _Payload:
    """One record's payload lines as they stream, joined at the end; past ``PAYLOAD_CAP``
    characters the rest is counted, not kept (a log of millions of tiny payload lines)."""

    __slots__ = ("cap", "dropped", "kept", "parts")

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.parts: list[str] = []  # lines, or runs of whole lines (``bounded.lines``)
        self.kept = 0
        self.dropped = 0

    def add(self, text: str) -> None:
        room = self.cap - self.kept
        if len(text) > room:
            self.dropped += len(text) - max(room, 0)
            text = text[: max(room, 0)]
        if text:
            self.parts.append(text)
            self.kept += len(text)


def _records(
    stream: Iterable[str], report: ErrorCallback, clock: _Clock, check_md5: bool
) -> Iterator[TraceRecord]:
    header: tuple[int, dict[str, Any], float | None] | None = None
    cap = int(PAYLOAD_CAP * scale())
    payload = _Payload(cap)
    orphans_reported = False
    line_no = 0
    for line in stream:  # a line, or a run of payload lines
        line_no += 1
        if line.startswith("\t"):
            if header is not None:
                payload.add(line)
            elif not orphans_reported:
                report(line_no, "payload line without a record before it")
                orphans_reported = True
            line_no += max(line.count("\n", 0, len(line) - 1), 0)  # the run's other lines
            continue
        if line in _BLANK_LINES:
            continue
        if header is not None:
            yield _finish(header, payload, report, check_md5)
            payload = _Payload(cap)
        header = _parse_header(line, line_no, clock, report)
        orphans_reported = True  # a bad header's payload is dropped with it, silently
    if header is not None:
        yield _finish(header, payload, report, check_md5)


def _parse_header(
    line: str, line_no: int, clock: _Clock, report: ErrorCallback
) -> tuple[int, dict[str, Any], float | None] | None:
    start = line.find("] {")
    if start < 0:
        shown = line.rstrip("\r\n")[:80]
        report(line_no, f"not a trace record: {shown!r}")
        return None
    try:
        metadata = json.loads(line[start + 2 :])
    except ValueError as error:
        report(line_no, f"bad metadata JSON: {error}")
        return None
    except RecursionError:  # one record nested past the interpreter's depth: only it is lost
        report(line_no, "bad metadata JSON: nested too deeply to read")
        return None
    if not isinstance(metadata, dict):
        report(line_no, "metadata is not a JSON object")
        return None
    return line_no, metadata, clock.timestamp(line)


def _finish(
    header: tuple[int, dict[str, Any], float | None],
    payload: _Payload,
    report: ErrorCallback,
    check_md5: bool,
) -> TraceRecord:
    line_no, metadata, timestamp = header
    text = _join_payload(payload.parts) if payload.parts else None
    if payload.dropped:
        report(
            line_no,
            f"payload longer than {payload.cap:,} characters: cut there, {payload.dropped:,} more"
            f" not kept{_HINT}",
        )
    elif check_md5:
        _check_md5(metadata, text, line_no, report)
    return TraceRecord(metadata, text, timestamp, line_no)


def _join_payload(lines: list[str]) -> str:
    # Every line starts with one TAB; joining then dropping "\n\t" pairs strips them all in C.
    if not lines[-1].endswith("\n"):
        lines[-1] += "\n"  # the file's last line, or lines given without their newlines
    text = "".join(lines) if lines[0].endswith("\n") else "\n".join(lines)
    lines.clear()  # the parts go as soon as they are joined
    text = text[1:-1].replace("\n\t", "\n")
    if "\r" in text:  # a log written with Windows line endings
        text = text.replace("\r\n", "\n").removesuffix("\r")
    return text


def _check_md5(metadata: dict[str, Any], payload: str | None, line_no: int, report: ErrorCallback) -> None:
    expected = metadata.get("has_payload")
    if not isinstance(expected, str):
        return
    actual = hashlib.md5((payload or "").encode("utf-8", "replace"), usedforsecurity=False).hexdigest()
    if actual != expected:
        report(line_no, f"payload md5 mismatch: expected {expected}, got {actual}")


class _Clock:
    """Turns the glog prefix (``V1206 15:18:20.253000``) into epoch seconds, local time."""

    __slots__ = ("_cache", "_not_after", "_year")

    def __init__(self, year: int | None, not_after: float | None = None) -> None:
        self._year = year
        self._not_after = not_after  # the file's mtime: no record is later than that
        self._cache: dict[str, float | None] = {}

    @classmethod
    def for_file(cls, path: str | os.PathLike[str]) -> _Clock:
        try:
            mtime = os.stat(path).st_mtime
        except OSError:
            return cls(None)
        return cls(time.localtime(mtime).tm_year, mtime)

    def timestamp(self, line: str) -> float | None:
        if self._year is None:
            return None
        key = line[1:14]  # "MMDD HH:MM:SS": many records share one second
        base = self._cache.get(key)
        if base is None and key not in self._cache:
            base = self._cache[key] = self._epoch(key)
        if base is None or line[14:15] != ".":
            return base
        digits = line[15:21]
        micros = small_int(digits)
        return base + micros / 1e6 if micros is not None else base

    def _epoch(self, key: str) -> float | None:
        year = self._year
        if year is None:
            return None
        epoch = _local_epoch(year, key)
        if epoch is None or self._not_after is None or epoch <= self._not_after + 86400:
            return epoch
        return _local_epoch(year - 1, key)  # the log began before New Year


def _local_epoch(year: int, key: str) -> float | None:
    try:
        return time.mktime(time.strptime(f"{year} {key}", "%Y %m%d %H:%M:%S"))
    except (ValueError, OverflowError):
        return None


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _ignore(line_no: int, message: str) -> None:
    del line_no, message
