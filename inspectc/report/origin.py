"""Where a report was made: host, user and a random report id, written at capture.

A report is data; its recorded command line and output code are a stranger's code once the
report leaves the machine that made it. Commands that would run them (``suggest`` re-runs the
recorded argv, ``bench`` the recorded output code) ask first unless :func:`made_here` says
this machine and this user made the report. A report without the entry (older, imported,
or shared: share redacts host and user) counts as made elsewhere.
"""

from __future__ import annotations

import getpass
import json
import os
import secrets
import socket

ORIGIN_KEY = "origin"


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no passwd entry (a container's uid): the uid itself
        return f"uid {os.getuid()}"


def current() -> dict[str, str]:
    """This process's host and user, and a new random report id."""
    return {"host": socket.gethostname(), "user": _user(), "id": secrets.token_hex(8)}


def recorded(meta: dict[str, str]) -> dict[str, str]:
    try:
        value = json.loads(meta.get(ORIGIN_KEY) or "{}")
    except (ValueError, RecursionError):
        return {}
    if not isinstance(value, dict):
        return {}
    return {k: str(v)[:200] for k, v in value.items() if k in ("host", "user", "id")}


def made_here(meta: dict[str, str]) -> bool:
    """True only when the report says it was made on this host by this user."""
    origin = recorded(meta)
    return bool(origin) and origin.get("host") == socket.gethostname() and origin.get("user") == _user()


def describe(meta: dict[str, str]) -> str:
    origin = recorded(meta)
    if not origin:
        return "the report does not say where it was made (older, imported or shared)"
    return f"made by {origin.get('user', '?')} on {origin.get('host', '?')} (report {origin.get('id', '?')})"
