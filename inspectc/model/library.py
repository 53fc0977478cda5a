"""Which source files are installed code (site-packages, the standard library), not the user's.

One rule for the builder (``trace/names.py``: the user's call site is the innermost frame
outside the library) and the readers (``analysis/resume.py``: a frame compiled inside a
library). Stdlib only; paths are compared with forward slashes, as torch records them.
"""

from __future__ import annotations

_LIBRARY = ("/site-packages/", "/dist-packages/", "/lib/python3")


def in_library(filename: str | None) -> bool:
    """Whether *filename* is installed code (site-packages, the standard library), not the user's."""
    path = (filename or "").replace("\\", "/")
    return any(part in path for part in _LIBRARY)
