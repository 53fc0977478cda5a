"""Share bundles (``.zip``): writing them, and opening the report inside one safely.

A bundle comes from a stranger, so reading one trusts nothing in it: only the one report
member (a top-level ``*.inspectc`` file) is ever extracted, under a fixed name in a fresh
temporary directory; members with absolute or ``..`` paths, symlinks, encryption or sizes
over the limit are refused; nothing in the archive is executed or unpickled.
"""

from __future__ import annotations

import os
import shutil
import stat
import struct
import tempfile
import weakref
import zipfile
import zlib
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from inspectc.errors import ReportError
from inspectc.store.exclusive import place_new
from inspectc.store.reader import Report, check_path
from inspectc.store.target import umask

ZIP_MAGIC = b"PK\x03\x04"
REPORT_SUFFIX = ".inspectc"
MAX_REPORT_BYTES = 4 * 1024**3  # a report larger than this is not something we unpack
# A report's payloads are zlib-compressed already, so a real report deflates a few times at
# most: a member that inflates more than MAX_RATIO times (past FREE_BYTES) is a bomb.
MAX_RATIO = 100
FREE_BYTES = 256 * 1024**2
_CHUNK = 1 << 20


MAX_MEMBERS = 1000  # a bundle inspectc writes holds a report, a summary, a page and repros
TEXT_TOTAL = 128 << 20  # bytes all text members of one bundle may inflate to, together


_EOCD = struct.Struct("<4s4H2LH")  # end of central directory: entries, size and offset of it
_EOCD64_LOCATOR = struct.Struct("<4sLQL")
_EOCD64 = struct.Struct("<4sQ2H2L4Q")
_CD_ENTRY_BYTES = 4096  # a member's central-directory entry with a long name and extras, at most


def check_directory(path: str | os.PathLike[str]) -> None:
    """Refuse a bundle whose central directory lists more than ``MAX_MEMBERS`` entries (or is
    larger than they take), read from its end records before ``zipfile`` parses every entry
    into an object (1,000,000 of them: seconds and half a gigabyte). A file with no end record
    is left to ``zipfile``, which says what is wrong with it."""
    from inspectc.model.limits import scale

    most = int(MAX_MEMBERS * scale())
    with open(path, "rb") as fh:
        size = fh.seek(0, os.SEEK_END)
        back = min(size, _EOCD.size + 0xFFFF)  # the record, then a comment of 64 KB at most
        fh.seek(size - back)
        tail = fh.read(back)
        at = tail.rfind(b"PK\x05\x06")
        if at < 0 or len(tail) - at < _EOCD.size:
            return
        _, _, _, _, count, cd_size, _, _ = _EOCD.unpack_from(tail, at)
        where = size - back + at  # the zip64 locator and record are right before it
        if (count == 0xFFFF or cd_size == 0xFFFFFFFF) and where >= _EOCD64_LOCATOR.size + _EOCD64.size:
            fh.seek(where - _EOCD64_LOCATOR.size - _EOCD64.size)
            block = fh.read(_EOCD64.size + _EOCD64_LOCATOR.size)
            record = _EOCD64.unpack_from(block)
            if block[_EOCD64.size : _EOCD64.size + 4] == b"PK\x06\x07" and record[0] == b"PK\x06\x06":
                count, cd_size = record[7], record[8]
    if count > most:
        raise ReportError(f"{path}: bundle holds {count:,} members, more than {most:,}: refused")
    if cd_size > most * _CD_ENTRY_BYTES:
        raise ReportError(
            f"{path}: bundle's member list takes {cd_size:,} bytes, more than {most:,} members would: refused"
        )


class MemberBudget:
    """What the text members of one bundle may still inflate to (``share --check`` reads them).

    Refuses a bundle of more than ``MAX_MEMBERS`` members; a member may be read to its ratio
    cap and what is left of ``TEXT_TOTAL`` (limits times ``INSPECTC_LIMITS``)."""

    def __init__(self, archive: zipfile.ZipFile, bundle: str | os.PathLike[str]) -> None:
        from inspectc.model.limits import scale

        self.bundle = bundle
        most = int(MAX_MEMBERS * scale())
        count = len(archive.infolist())
        if count > most:
            raise ReportError(f"{bundle}: bundle holds {count:,} members, more than {most:,}: refused")
        self.total = int(TEXT_TOTAL * scale())
        self.left = self.total
        self.scale = scale()

    def allow(self, info: zipfile.ZipInfo) -> int:
        if self.left <= 0:
            raise ReportError(
                f"{self.bundle}: its members inflate past {self.total >> 20} MB together: refused"
                " (INSPECTC_LIMITS=N raises the limits)"
            )
        cap = int(max(1 << 20, MAX_RATIO * info.compress_size) * self.scale)
        if info.file_size > cap:
            raise ReportError(
                f"{self.bundle}: member {info.filename!r} inflates {info.file_size:,} bytes from"
                f" {info.compress_size:,}: refused as a bomb (INSPECTC_LIMITS=N raises the limits)"
            )
        return min(self.left, cap)

    def spend(self, n: int) -> None:
        self.left -= n


def is_bundle(path: str | os.PathLike[str]) -> bool:
    """True when *path* is a regular file that starts with the zip magic."""
    try:
        with open(path, "rb") as fh:
            return fh.read(4) == ZIP_MAGIC
    except OSError:
        return False  # the report opener reports missing/unreadable files itself


def check_member_name(name: str) -> None:
    """Refuse a member name that could point outside the extraction directory."""
    if not name or any(ch in name for ch in "\x00\\:"):  # NUL, Windows separators and drives
        raise ReportError(f"bundle member {name!r} has an unsafe name")
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts:
        raise ReportError(f"bundle member {name!r} points outside the bundle")


def _is_symlink(info: zipfile.ZipInfo) -> bool:
    return stat.S_ISLNK(info.external_attr >> 16)


def report_member(archive: zipfile.ZipFile, *, max_bytes: int = MAX_REPORT_BYTES) -> zipfile.ZipInfo:
    """The bundle's report member, checked; raises :class:`ReportError` otherwise."""
    candidates = []
    for info in archive.infolist():
        if info.filename.endswith(REPORT_SUFFIX):
            check_member_name(info.filename)  # a report-like member with a hostile name: refuse
            if "/" not in info.filename:
                candidates.append(info)
    if not candidates:
        raise ReportError(f"{archive.filename}: bundle holds no report (*{REPORT_SUFFIX})")
    if len(candidates) > 1:
        names = ", ".join(i.filename for i in candidates)
        raise ReportError(f"{archive.filename}: bundle holds several reports ({names})")
    info = candidates[0]
    if _is_symlink(info) or info.is_dir():
        raise ReportError(f"{archive.filename}: bundle member {info.filename!r} is not a plain file")
    if info.flag_bits & 0x1:
        raise ReportError(f"{archive.filename}: bundle member {info.filename!r} is encrypted")
    if info.file_size > max_bytes:
        raise ReportError(
            f"{archive.filename}: report member is {info.file_size} bytes, over the {max_bytes}-byte limit"
        )
    return info


def inflate_limit(info: zipfile.ZipInfo, max_bytes: int = MAX_REPORT_BYTES) -> int:
    """How many bytes the member may inflate to: its ratio cap, never over *max_bytes*."""
    return min(max_bytes, max(FREE_BYTES, MAX_RATIO * info.compress_size))


def extract_report(
    bundle: str | os.PathLike[str], target_dir: str | os.PathLike[str], *, max_bytes: int = MAX_REPORT_BYTES
) -> Path:
    """Copy the bundle's report into *target_dir*/report.inspectc and return that path.

    The output name is fixed, never taken from the archive. The member's first bytes must
    be SQLite's header before anything is written, and it streams under a cap (its own
    ratio, see :func:`inflate_limit`), so a member that lies about its size or is a zip
    bomb with a header cannot fill the disk.
    """
    from inspectc.store.schema import SQLITE_MAGIC

    out = Path(target_dir) / f"report{REPORT_SUFFIX}"
    try:
        check_directory(bundle)  # too many members: refused before zipfile reads them all
        with zipfile.ZipFile(bundle) as archive:
            MemberBudget(archive, bundle)  # refuses a bundle of too many members
            info = report_member(archive, max_bytes=max_bytes)
            limit = inflate_limit(info, max_bytes)
            written = 0
            with archive.open(info) as src:
                head = src.read(len(SQLITE_MAGIC))
                if head != SQLITE_MAGIC:
                    what = (
                        "is empty (0 bytes)"
                        if not head
                        else "is not an inspectc report (unknown file format)"
                    )
                    raise ReportError(f"{bundle} (report inside) {what}")
                with open(out, "xb") as dst:
                    dst.write(head)
                    written = len(head)
                    while chunk := src.read(_CHUNK):
                        written += len(chunk)
                        if written > limit:
                            raise ReportError(
                                f"{bundle}: report member inflates past {limit >> 20} MB"
                                f" ({info.compress_size} bytes packed; over the limit): refused"
                            )
                        dst.write(chunk)
    except zipfile.BadZipFile as exc:
        raise ReportError(f"{bundle}: not a readable bundle ({exc})") from None
    except (NotImplementedError, RuntimeError) as exc:  # unsupported compression, encryption
        raise ReportError(f"{bundle}: cannot read the bundle ({exc})") from None
    except DAMAGED as exc:  # a member's compressed data is corrupt or cut short
        raise ReportError(f"{bundle}: damaged bundle: {damage(exc)}") from None
    except OSError as exc:
        raise ReportError(f"cannot read bundle {bundle}: {exc.strerror or exc}") from None
    return out


def _damaged() -> tuple[type[Exception], ...]:
    """What reading a corrupt or truncated member raises besides OSError (zipfile lets the
    decompressor's own error through)."""
    found: list[type[Exception]] = [zlib.error, EOFError]
    try:
        import lzma

        found.append(lzma.LZMAError)
    except ImportError:  # a Python without lzma reads no LZMA member at all
        pass
    return tuple(found)


DAMAGED = _damaged()


def damage(exc: BaseException) -> str:
    """One line for a DAMAGED error (an EOFError says nothing, zlib's type is named ``error``)."""
    return f"a member's compressed data is corrupt or cut short ({str(exc) or 'it ends early'})"


class BundleReport(Report):
    """A report read from a bundle; its temporary copy goes away on close (or exit)."""

    def __init__(self, bundle: str | os.PathLike[str], *, max_bytes: int = MAX_REPORT_BYTES) -> None:
        self.bundle = Path(bundle)
        tmp = tempfile.mkdtemp(prefix="inspectc-bundle-")
        self._cleanup = weakref.finalize(self, shutil.rmtree, tmp, ignore_errors=True)
        try:
            path = extract_report(bundle, tmp, max_bytes=max_bytes)
            try:
                super().__init__(path)
            except ReportError as exc:  # name the bundle, not our temporary copy
                raise ReportError(str(exc).replace(str(path), f"{bundle} (report inside)")) from None
        except BaseException:
            self._cleanup()
            raise

    def close(self) -> None:
        try:
            super().close()
        finally:
            self._cleanup()


def open_bundle(path: str | os.PathLike[str], *, max_bytes: int = MAX_REPORT_BYTES) -> Report:
    """Open the report inside the bundle at *path* (see :func:`inspectc.store.open.open_report`)."""
    return BundleReport(path, max_bytes=max_bytes)


def write_bundle(
    path: str | os.PathLike[str], members: Iterable[tuple[str, bytes | Path]], *, exclusive: bool = False
) -> Path:
    """Write a bundle atomically: *members* are (name in the zip, bytes or a file to copy).
    With *exclusive*, an existing file at *path* is never replaced (``exclusive.TargetExists``)."""
    path = Path(path)
    fd, tmp_name = tempfile.mkstemp(prefix=".inspectc-", suffix=".zip.tmp", dir=path.parent)
    os.close(fd)
    try:
        with zipfile.ZipFile(tmp_name, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for name, data in members:
                check_member_name(name)
                if isinstance(data, Path):
                    archive.write(data, name)
                else:
                    archive.writestr(name, data)
        os.chmod(tmp_name, 0o666 & ~umask())  # mkstemp made it private; the bundle is for sharing
        if exclusive:
            place_new(tmp_name, path)
        else:
            os.replace(tmp_name, path)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
    return path


def open_single(path: str | os.PathLike[str]) -> Report:
    """Open one report file or bundle (never a folder): what merging reads."""
    check_path(Path(path))
    if is_bundle(path):
        return open_bundle(path)
    return Report(path)
