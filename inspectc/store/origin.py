"""Who made a report: a mark only this user's captures can write, asked for before running recorded code.

A report's argv is a command line and its output code is a program: running them is running
a stranger's program when the report came from somebody else. What a report says about
itself cannot decide that (anyone can write ``origin_host``/``origin_user``), so trust lives
with the user, as git's ``safe.directory`` and VS Code's workspace trust do: a random key in
the user's config folder (``$XDG_CONFIG_HOME/inspectc/key`` or ``~/.config/inspectc/key``;
folder 0700, file 0600, created exclusively, never opened through a symbolic link).

At its end a capture writes ``origin_mac``: an HMAC-SHA256, under that key, of everything
inspectc could run or offer to run from the report (:data:`COVERED`: the run record with its
argv, cwd and environment; every event payload, so every kernel and output code; the frames,
graph slices and kernels that point into them). A report is this user's own only when that
MAC verifies here (:func:`made_here`): a copy edited anywhere, a report from another machine
or user, and a share copy (which carries no MAC) are foreign. ``origin_host``, ``origin_user``
and ``report_id`` stay as what they are: a claim, shown in the question, never trusted.

:func:`consent` asks on a terminal before a command runs recorded code of a foreign report,
showing the command through the one sanitizer, and refuses without a terminal unless
``--yes``.
"""

from __future__ import annotations

import getpass
import hashlib
import hmac
import os
import secrets
import socket
import stat
import struct
import sys
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, Protocol

from inspectc.errors import UsageError
from inspectc.model.terminal import safe

HOST, USER, REPORT_ID, MAC = "origin_host", "origin_user", "report_id", "origin_mac"
KEY_FILE = "key"
_VERSION = b"inspectc-origin-1"

Rows = Callable[[str], Iterable[tuple[Any, ...]]]  # SQL -> its rows, streamed

# What the MAC covers: everything a command could run or derive a command from. Ordered by
# each table's primary key, so a report reads the same through any connection.
COVERED = (
    ("events", "SELECT seq, ts, rank, compile_id, name, metadata, payload FROM events ORDER BY seq"),
    ("frames", "SELECT rank, compile_id, ordinal, data FROM frames ORDER BY rank, compile_id"),
    ("graphs", "SELECT rank, compile_id, kind, seq, start, stop FROM graphs ORDER BY rank, compile_id, kind"),
    (
        "kernels",
        "SELECT id, rank, compile_id, name, language, kind, graph_kind, seq, start, stop, data"
        " FROM kernels ORDER BY id",
    ),
)
META_COVERED = (REPORT_ID, "run", "source", "format", "schema_version")


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no name for this uid (a container)
        return ""


def origin_meta() -> dict[str, str]:
    """The meta keys capture writes as it starts (a claim: shown, never trusted)."""
    return {HOST: socket.gethostname(), USER: _user(), REPORT_ID: secrets.token_hex(16)}


# -- the user's key ------------------------------------------------------------------------
def config_dir() -> Path:
    """``$XDG_CONFIG_HOME/inspectc`` (an absolute one), else ``~/.config/inspectc``."""
    base = os.environ.get("XDG_CONFIG_HOME", "")
    root = Path(base) if os.path.isabs(base) else Path.home() / ".config"
    return root / "inspectc"


def user_key(*, create: bool = False) -> bytes | None:
    """This user's key, or None (none yet and not *create*, or a key file not safe to trust:
    a link, not a regular file, not this user's, or readable by others)."""
    folder = config_dir()
    nofollow = getattr(os, "O_NOFOLLOW", 0)
    try:
        if create:
            folder.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            try:
                os.mkdir(folder, 0o700)
            except FileExistsError:
                pass
        dir_fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | nofollow | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if not _private(os.fstat(dir_fd), writable_only=True):
            return None
        try:
            fd = os.open(KEY_FILE, os.O_RDONLY | nofollow | os.O_CLOEXEC, dir_fd=dir_fd)
        except FileNotFoundError:
            if not create:
                return None
            return _new_key(dir_fd)
        with os.fdopen(fd, "rb") as fh:
            if not _private(os.fstat(fh.fileno())) or not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                return None
            key = fh.read(128).strip()
        return bytes.fromhex(key.decode("ascii")) if len(key) == 64 else None
    except (OSError, ValueError):
        return None
    finally:
        os.close(dir_fd)


def _new_key(dir_fd: int) -> bytes | None:
    key = secrets.token_bytes(32)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | os.O_CLOEXEC
    try:
        fd = os.open(KEY_FILE, flags, 0o600, dir_fd=dir_fd)
    except FileExistsError:  # another capture made it meanwhile: use theirs
        return _read_existing(dir_fd)
    with os.fdopen(fd, "wb") as fh:
        fh.write(key.hex().encode("ascii") + b"\n")
    return key


def _read_existing(dir_fd: int) -> bytes | None:
    try:
        fd = os.open(KEY_FILE, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | os.O_CLOEXEC, dir_fd=dir_fd)
        with os.fdopen(fd, "rb") as fh:
            if not _private(os.fstat(fh.fileno())):
                return None
            text = fh.read(128).strip()
        return bytes.fromhex(text.decode("ascii")) if len(text) == 64 else None
    except (OSError, ValueError):
        return None


def _private(info: os.stat_result, *, writable_only: bool = False) -> bool:
    """Owned by this user and not open to others (a folder: not writable by them)."""
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        return False
    return not info.st_mode & (0o022 if writable_only else 0o077)


# -- the MAC -------------------------------------------------------------------------------
def digest(rows: Rows, meta: Mapping[str, str]) -> bytes:
    """SHA-256 of what :data:`COVERED` names, each value typed and length-prefixed."""
    h = hashlib.sha256(_VERSION)
    for key in META_COVERED:
        _feed(h, key)
        _feed(h, meta.get(key))
    for table, sql in COVERED:
        _feed(h, table)
        for row in rows(sql):
            h.update(b"R")
            for value in row:
                _feed(h, value)
    return h.digest()


def _feed(h: Any, value: object) -> None:
    if value is None:
        h.update(b"N")
        return
    if isinstance(value, bytes):
        tag, data = b"B", value
    elif isinstance(value, str):
        tag, data = b"S", value.encode("utf-8", "surrogatepass")
    elif isinstance(value, float):
        tag, data = b"F", struct.pack(">d", value)
    else:
        tag, data = b"I", str(value).encode("ascii", "replace")
    h.update(tag + struct.pack(">Q", len(data)) + data)


def mac(key: bytes, rows: Rows, meta: Mapping[str, str]) -> str:
    return hmac.new(key, digest(rows, meta), hashlib.sha256).hexdigest()


def sign(rows: Rows, meta: Mapping[str, str]) -> str | None:
    """The ``origin_mac`` value for a report this user's capture just wrote (None: no key
    could be made, e.g. a read-only home; the report then reads as foreign)."""
    key = user_key(create=True)
    return mac(key, rows, meta) if key is not None else None


class _Writing(Protocol):
    def rows(self, sql: str) -> Iterable[tuple[Any, ...]]: ...
    def set_meta(self, key: str, value: Any) -> None: ...


def mark(writer: _Writing) -> None:
    """Sign the report *writer* is writing as this user's (capture calls this once, after
    its last row and before it closes the writer)."""
    meta = {str(k): str(v) for k, v in writer.rows("SELECT key, value FROM meta")}
    value = sign(writer.rows, meta)
    if value is not None:
        writer.set_meta(MAC, value)


def made_here(rows: Rows, meta: Mapping[str, str]) -> bool:
    """True only when the report's ``origin_mac`` verifies under this user's key."""
    claimed = meta.get(MAC)
    if not claimed or len(claimed) != 64:
        return False
    key = user_key()
    if key is None:
        return False
    return hmac.compare_digest(mac(key, rows, meta), claimed)


# -- asking --------------------------------------------------------------------------------
def consent(rows: Rows, meta: Mapping[str, str], what: str, command: list[str] | str, *, yes: bool) -> None:
    """Ask before running *command* (recorded code of the report read by *rows*, with *meta*)
    unless the report verifies as this user's own or *yes*; :class:`UsageError` when refused
    or not askable."""
    if yes or made_here(rows, meta):
        return
    shown = command if isinstance(command, str) else " ".join(_quote(a) for a in command)
    host, user = meta.get(HOST) or "?", meta.get(USER) or "?"
    if meta.get(MAC):
        where = f"this report says it was made by {user!r} on {host!r}, but it is not one your captures wrote here, as written"
    elif HOST in meta:
        where = f"this report says it was made by {user!r} on {host!r}; no capture of yours here marked it as yours"
    else:
        where = "this report does not record who made it where (an import, a merge, a share copy or an older inspectc)"
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        raise UsageError(
            f"{where}: {what} would run {shown!r}; refused without a terminal (pass --yes to allow)"
        )
    _say(f"inspectc: {where}.")
    _say(f"inspectc: {what} would run: {shown}")
    sys.stderr.write(safe("inspectc: run it? [y/N] "))
    sys.stderr.flush()
    answer = sys.stdin.readline().strip().lower()
    if answer not in ("y", "yes"):
        raise UsageError(f"{what}: not run (no consent)")


def _say(line: str) -> None:
    sys.stderr.write(safe(line) + "\n")  # every byte from the report, made visible


def _quote(arg: str) -> str:
    import shlex

    return shlex.quote(arg)
