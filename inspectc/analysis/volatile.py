"""What differs between two runs of one unchanged script and is never a change. No torch.

``inspectc diff`` (and a CI gate built on it) compares frames, breaks and recompiles of two
runs by their text: object addresses, the ids an ID_MATCH guard compares, temp folders, pids,
timestamps and FX's per-process module numbers must not make them differ.
"""

from __future__ import annotations

import re

__all__ = ["normalised"]

# What differs between two runs of one unchanged script, never a change: object addresses
# (BACKEND_MATCH's ``id=0x7f...``, reprs), the ids an ID_MATCH/TYPE_MATCH guard compares, temp
# folders (``/tmp/tmpab12cd``, a notebook's ``/tmp/ipykernel_<pid>/``), pids and timestamps.
_VOLATILE = (
    (re.compile(r"\b0x[0-9a-fA-F]{4,16}\b"), "0x?"),
    (re.compile(r"(___check_(?:obj|type)_id\([^()]*?), \d{1,24}\)"), r"\1, ?)"),
    (
        re.compile(
            r"(?:/private)?(?:/tmp|/var/tmp|/var/folders/[^/\s]+/[^/\s]+/T)"
            r"/(?:tmp[\w-]{4,}|ipykernel_\d+|pymp-\w+|torchinductor_\w+|inspectc-[\w-]+)"
        ),
        "<tmp>",
    ),
    (re.compile(r"\b(pid[ =:]?\s?)\d{1,10}\b", re.IGNORECASE), r"\1?"),
    (re.compile(r"<eval_with_key>\.\d+"), "<eval_with_key>"),  # FX numbers its generated modules per process
    (re.compile(r"\b\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?"), "<time>"),
)


def normalised(text: str) -> str:
    """*text* without what changes from one run of a script to the next (``_VOLATILE``)."""
    for pattern, replacement in _VOLATILE:
        text = pattern.sub(replacement, text)
    return text
