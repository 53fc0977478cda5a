"""The multiplier of every input limit: ``INSPECTC_LIMITS=N`` (default 1). Stdlib only.

Every budget on input from a stranger (a report's SQLite reads in ``untrusted.py``, a
TORCH_TRACE log in ``trace/bounded.py``, a bundle's members, the script of ``run``) is its
constant times :func:`scale`, so a user who knows the input raises them all at once and tests
shrink them. It sits below the report file and the trace alike: both read it.
"""

from __future__ import annotations

import os


def scale() -> float:
    """The multiplier of every input limit (``INSPECTC_LIMITS``, default 1; tests shrink it)."""
    try:
        value = float(os.environ.get("INSPECTC_LIMITS", "") or 1)
    except ValueError:
        return 1.0
    return value if 0 < value < 1e6 else 1.0


def small_int(text: str | None, digits: int = 18) -> int | None:
    """A whole number written in text from a stranger, else None: ASCII digits only
    (``"²".isdigit()`` is True, ``int("²")`` raises) and at most *digits* of them (``int``
    refuses 4,300 and more; no line, id or rank has 19)."""
    if not text or len(text) > digits or not (text.isascii() and text.isdigit()):
        return None
    return int(text)
