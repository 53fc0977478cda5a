"""``inspectc import``: build a report from existing TORCH_TRACE logs (the files tlparse reads).

Records stream from :func:`tracefile.iter_records` into the same :class:`builder.Builder`
live capture uses, so the same events give the same report. One file, a directory of logs
(``*.log``, ``*.log.gz``), or several ranks' logs (``dedicated_log_torch_trace_rank_N_*.log``)
go into one report. A rank is decided by one rule: a record's ``rank`` key, else its file's
name (``rank_N``), else none. A file whose first records name another rank than its name is
read as its name's rank, with a warning (tlparse's multi-rank test folders); one whose
records name two ranks is refused in one line; so are two files of one rank (or two of no
rank): their frames would merge. Tolerant: unknown events are kept raw, malformed lines
are counted (the first few kept in the report's ``import_errors`` meta) and skipped.

Large logs stream: records are never held in a list, and rows are committed in big batches.
No torch.
"""

from __future__ import annotations

import errno
import gzip
import io
import json
import os
import re
import stat
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from inspectc.errors import RankConflict, ReportError, UsageError
from inspectc.model import Run, RunOptions
from inspectc.model.limits import MAX_EVENTS, most
from inspectc.store.oneshot import OneShotWriter
from inspectc.store.writer import ReportWriter
from inspectc.trace import bounded
from inspectc.trace.builder import Builder
from inspectc.trace.records import iter_records
from inspectc.version import __version__

LOG_PATTERNS = ("*.log", "*.log.gz")
KEPT_ERRORS = 5  # malformed-line messages kept in the report (all are counted)
COMMIT_EVERY = 50_000  # events per transaction
_RANK_IN_NAME = re.compile(r"rank_(\d{1,9})(?!\d)")  # longer: no rank (a name from a stranger)
_RANK_IN_RECORD = re.compile(r'"rank": (\d{1,9})(?!\d)')
_PEEK_LINES = 200


@dataclass(frozen=True, slots=True)
class LogFile:
    path: Path
    rank: int | None
    # its name says one rank, its records another (tlparse's multi-rank test folders): read as
    # the name's rank, with this one-line warning
    warning: str | None = None


@dataclass(slots=True)
class ImportResult:
    output: Path
    files: list[LogFile]
    bytes_read: int = 0
    events: int = 0
    frames: int = 0
    error_count: int = 0  # md5 mismatches included
    md5_mismatches: int = 0  # payloads kept as read although their md5 differs from has_payload
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    torch_version: str | None = None
    seconds: float = 0.0

    @property
    def ranks(self) -> list[int]:
        return sorted({f.rank for f in self.files if f.rank is not None})

    def describe(self) -> str:
        """One line for stderr: what was read, and how many malformed lines were skipped."""
        mb = self.bytes_read / 1e6
        files = f"{len(self.files)} log{'s' * (len(self.files) != 1)}"
        ranks = f", ranks {', '.join(map(str, self.ranks))}" if self.ranks else ""
        text = (
            f"inspectc import: {files}{ranks}, {mb:.1f} MB, {self.events} events, "
            f"{self.frames} frames in {self.seconds:.1f}s -> {self.output}"
        )
        skipped = self.error_count - self.md5_mismatches
        if skipped:
            firsts = [e for e in self.errors if _MD5 not in e]
            first = f"; first: {firsts[0]}" if firsts else ""
            text += f"; {skipped} problem line{'s' * (skipped != 1)} (malformed records are skipped{first})"
        if self.md5_mismatches:
            n = self.md5_mismatches
            firsts = [e for e in self.errors if _MD5 in e]
            first = f"; first: {firsts[0]}" if firsts else ""
            text += (
                f"; {n} payload{'s' * (n != 1)} whose md5 differs from the record's has_payload "
                f"(kept as read, the log was altered after torch wrote it{first})"
            )
        return "\n".join([text, *(f"inspectc import: warning: {w}" for w in self.warnings)])


def rank_from_name(path: Path) -> int | None:
    match = _RANK_IN_NAME.search(path.name)
    return int(match.group(1)) if match else None


def find_logs(path: str | os.PathLike[str]) -> list[LogFile]:
    """The logs to import from *path* (a file or a directory), each with its rank if known."""
    root = Path(path)
    try:
        mode = os.stat(root).st_mode  # the path the user named may be a link: theirs to follow
    except FileNotFoundError:
        raise UsageError(f"no such file or directory: {root}") from None
    except OSError as exc:
        raise UsageError(f"cannot read {root}: {exc.strerror or exc}") from None
    if stat.S_ISDIR(mode):
        # In a folder only regular files count: a link (rank_1.log -> /etc/passwd) is never
        # followed, or its target's first lines would land in the report's import_errors.
        found = {p for pattern in LOG_PATTERNS for p in root.glob(pattern)}
        paths = sorted(p for p in found if _regular(p))
        if not paths:
            links = sum(1 for p in found if p.is_symlink())
            why = f"; {links} symbolic link{'s' * (links != 1)} not followed" if links else ""
            raise UsageError(f"{root} holds no TORCH_TRACE logs (*.log{why})")
    elif not stat.S_ISREG(mode):  # /dev/zero never ends, a FIFO blocks
        raise UsageError(f"{root} is not a regular file (a device or FIFO): give a TORCH_TRACE log file")
    else:
        paths = [root]
    files = []
    for p in paths:
        try:
            files.append(LogFile(p, _file_rank(p)))
        except RankConflict as exc:  # the name wins, as tlparse reads a folder's ranks
            said = f"{p.name}: records of rank {exc.record_rank} where its name says rank {exc.file_rank}"
            files.append(LogFile(p, exc.file_rank, f"{said}; read as rank {exc.file_rank} (its name)"))
    _check_distinct_ranks(files)
    return files


def _file_rank(path: Path) -> int | None:
    named = rank_from_name(path)
    found: int | None = None
    try:
        with _open_log(path) as stream:
            for line in bounded.peek(stream, _PEEK_LINES):
                if not line.startswith("\t"):
                    match = _RANK_IN_RECORD.search(line)
                    if match:
                        found = int(match.group(1))
                        break
    except (OSError, EOFError):
        return named  # reported with a clear message when the file is read for real
    if found is not None and named is not None and found != named:
        raise RankConflict(named, found)
    return found if found is not None else named


def _conflict(path: Path, file_rank: int, record_rank: int) -> UsageError:
    said = "its name says" if rank_from_name(path) == file_rank else "its first records say"
    return UsageError(
        f"{path.name}: records of rank {record_rank} where {said} rank {file_rank};"
        " refusing to merge two ranks: rename the file or import it alone"
    )


def _check_distinct_ranks(files: list[LogFile]) -> None:
    # Two logs of one rank (or two with no rank) would overwrite each other's frames.
    seen: dict[int | None, Path] = {}
    for f in files:
        if f.rank in seen:
            which = f"rank {f.rank}" if f.rank is not None else "no rank"
            raise UsageError(
                f"{seen[f.rank].name} and {f.path.name} both have {which}: logs of two processes"
                " (two runs, or a process and the workers it forked or spawned) that one report"
                " cannot hold apart; import them one at a time"
            )
        seen[f.rank] = f.path


def _regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _open_log(path: Path) -> IO[str]:
    # O_NONBLOCK: a FIFO put in a log's place never blocks the import; then regular files only.
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(errno.EINVAL, "not a regular file", str(path))
    if path.suffix == ".gz":  # GzipFile would not close a file object it was given
        os.close(fd)
        return gzip.open(path, "rt", encoding="utf-8", errors="replace", newline="\n")
    os.set_blocking(fd, True)
    return io.TextIOWrapper(os.fdopen(fd, "rb"), encoding="utf-8", errors="replace", newline="\n")


def import_logs(
    path: str | os.PathLike[str],
    output: str | os.PathLike[str],
    *,
    argv: Sequence[str] | None = None,
) -> ImportResult:
    """Import the TORCH_TRACE log(s) at *path* into a new report at *output*."""
    files = find_logs(path)
    out = Path(output)
    for f in files:
        if f.path.resolve() == out.resolve():
            raise UsageError(f"the report would overwrite its input {f.path}")
    result = ImportResult(output=out, files=files)
    started = time.perf_counter()
    writer = OneShotWriter(out)  # a failed import keeps -o's file
    try:
        span = _import_files(writer, files, result)
        result.frames = len(writer.pending)
        writer.write_frames()
        if result.events == 0:
            raise UsageError(
                f"no structured-trace records in {path} (is it a TORCH_TRACE log?)"
                + (f": {result.errors[0]}" if result.errors else "")
            )
        result.seconds = time.perf_counter() - started
        _write_meta(writer, result, span, argv)
    except BaseException:
        writer.discard()  # the report it created, never a file that was there before
        raise
    writer.finish()
    return result


def _import_files(
    writer: OneShotWriter, files: list[LogFile], result: ImportResult
) -> tuple[float | None, float | None]:
    first_ts: float | None = None
    last_ts: float | None = None
    for log in files:
        builder = Builder(writer, rank=log.rank, strict_rank=True, name_rank=log.warning is not None)
        result.warnings.extend([log.warning] if log.warning else [])
        on_error = _error_sink(result, log.path.name)
        writer.source = log.path  # named by the one line of a limit (MAX_FRAMES)
        try:
            size = log.path.stat().st_size
            result.bytes_read += size
            with _open_log(log.path) as stream:
                for record in iter_records(
                    bounded.lines(stream, log.path, size=size),
                    on_error=on_error,
                    year=_year_of(log.path),
                    check_md5=True,
                ):
                    malformed = builder.feed(record.metadata, record.payload, record.timestamp)
                    if malformed is not None:  # stored raw, counted with the malformed lines
                        on_error(record.line, malformed)
                    if record.timestamp is not None:
                        first_ts = record.timestamp if first_ts is None else first_ts
                        last_ts = record.timestamp
                    result.events += 1
                    if result.events > most(MAX_EVENTS):
                        raise ReportError(
                            f"{log.path}: more than {most(MAX_EVENTS):,} records in all: refused"
                            " (INSPECTC_LIMITS=N raises the limits)"
                        )
                    if result.events % COMMIT_EVERY == 0:
                        writer.commit()
        except RankConflict as exc:
            raise _conflict(log.path, exc.file_rank, exc.record_rank) from None
        except (OSError, EOFError) as exc:  # unreadable or truncated .gz: count it, go on
            on_error(0, f"cannot read: {getattr(exc, 'strerror', None) or exc}")
        builder.finish()
        result.torch_version = result.torch_version or builder.torch_version
    return first_ts, last_ts


_MD5 = "payload md5 mismatch"  # records.py's message: the payload was kept, not skipped


def _error_sink(result: ImportResult, name: str):  # noqa: ANN202 - an ErrorCallback
    def on_error(line: int, message: str) -> None:
        result.error_count += 1
        result.md5_mismatches += message.startswith(_MD5)
        if len(result.errors) < KEPT_ERRORS:
            result.errors.append(f"{name}:{line}: {message}" if line else f"{name}: {message}")

    return on_error


def _year_of(path: Path) -> int | None:
    # The glog prefix has no year: the file's modification year is the best guess.
    try:
        return time.localtime(path.stat().st_mtime).tm_year
    except OSError:
        return None


def _write_meta(
    writer: ReportWriter,
    result: ImportResult,
    span: tuple[float | None, float | None],
    argv: Sequence[str] | None,
) -> None:
    ranks = result.ranks
    run = Run(
        argv=tuple(argv or ()),
        mode="import",
        started=span[0],
        ended=span[1],
        end_reason="imported",
        torch_version=result.torch_version,
        rank=ranks[0] if len(result.files) == 1 and ranks else None,
        world_size=max(ranks) + 1 if ranks else None,
        options=RunOptions(sources=tuple(str(f.path) for f in result.files)),
    )
    writer.set_meta("inspectc_version", __version__)
    writer.set_meta("source", "import")
    writer.set_meta("run", run)
    errors: dict[str, Any] = {
        "count": result.error_count,
        "md5_mismatches": result.md5_mismatches,
        "first": list(result.errors),
    }
    writer.set_meta("import_errors", json.dumps(errors))
