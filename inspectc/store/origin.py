"""Who made a report, where: asked before running anything a report recorded.

A report's argv is a command line and its kernels are code: running them is running a
stranger's program when the report came from somebody else. Capture writes three meta keys
(additive: a report without them reads as "origin not recorded", which counts as foreign):
``origin_host`` (``socket.gethostname()``), ``origin_user`` (``getpass.getuser()``) and
``report_id`` (random, 128 bits). :func:`consent` asks on a terminal before a command runs
recorded code of a report not made here by this user, and refuses without a terminal unless
the user passed ``--yes``.
"""

from __future__ import annotations

import getpass
import secrets
import socket
import sys
from collections.abc import Mapping

from inspectc.errors import UsageError

HOST, USER, REPORT_ID = "origin_host", "origin_user", "report_id"


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no name for this uid (a container)
        return ""


def origin_meta() -> dict[str, str]:
    """The meta keys capture writes."""
    return {HOST: socket.gethostname(), USER: _user(), REPORT_ID: secrets.token_hex(16)}


def made_here(meta: Mapping[str, str]) -> bool:
    """True when *meta* says this machine and this user made the report."""
    host, user = meta.get(HOST), meta.get(USER)
    return bool(host) and host == socket.gethostname() and user == _user()


def consent(meta: Mapping[str, str], what: str, command: list[str] | str, *, yes: bool) -> None:
    """Ask before running *command* (recorded code of a report with *meta*) unless the report
    was made here by this user or *yes*; :class:`UsageError` when refused or not askable."""
    if yes or made_here(meta):
        return
    shown = command if isinstance(command, str) else " ".join(_quote(a) for a in command)
    host, user = meta.get(HOST) or "?", meta.get(USER) or "?"
    where = (
        f"this report was made by {user!r} on {host!r}, not by you here"
        if HOST in meta
        else "this report does not record who made it where (an import, a mixed merge or an older inspectc)"
    )
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        raise UsageError(
            f"{where}: {what} would run {shown!r}; refused without a terminal (pass --yes to allow)"
        )
    print(f"inspectc: {where}.", file=sys.stderr)
    print(f"inspectc: {what} would run: {shown}", file=sys.stderr)
    print("inspectc: run it? [y/N] ", end="", file=sys.stderr, flush=True)
    answer = sys.stdin.readline().strip().lower()
    if answer not in ("y", "yes"):
        raise UsageError(f"{what}: not run (no consent)")


def _quote(arg: str) -> str:
    import shlex

    return shlex.quote(arg)
