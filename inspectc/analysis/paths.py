"""Source paths as readers compare them: one key for "the same file" across runs. No torch.

The report stores each path as torch recorded it: ``/abs/path/mine.py`` from a plain
``python mine.py`` (its TORCH_TRACE log), ``mine.py`` from ``inspectc run mine.py``, another
checkout or venv on another machine. :func:`comparable_path` is the one place that turns such a
path into a comparison key; ``diff`` (two runs) and ``ranks`` (the ranks of one run) both use
it, so a frame is matched the same way everywhere:

- inside ``site-packages``/``dist-packages`` or the Python library: relative to that
  (``torch/nn/modules/module.py``), so two venvs compare equal;
- a relative path: relative to its run's working directory already (normalised: ``./a.py``
  is ``a.py``);
- an absolute path inside its run's working directory: relative to it;
- an absolute path of a run that did not record its directory (an imported log): relative to
  the first of *fallback_cwds* (the other run's directory) that holds it;
- anything else: as recorded, with ``/`` separators.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable

__all__ = ["comparable_path"]

_LIB_DIR = re.compile(r"^.*/(?:site-packages|dist-packages|lib/python3\.\d+)/")
_DRIVE = re.compile(r"^[A-Za-z]:/")


def comparable_path(path: str | None, cwd: str | None, fallback_cwds: Iterable[str | None] = ()) -> str:
    """The comparison key of *path* recorded by a run started in *cwd* ("?" when unknown)."""
    if not path:
        return "?"
    text = path.replace("\\", "/")
    lib = _LIB_DIR.sub("", text)
    if lib != text:
        return lib
    if not _absolute(text):
        return posixpath.normpath(text)
    bases = [cwd] if cwd else [c for c in fallback_cwds if c]
    for base in bases:
        inside = _relative_to(text, base)
        if inside is not None:
            return inside
    return posixpath.normpath(text)


def _absolute(path: str) -> bool:
    return path.startswith("/") or bool(_DRIVE.match(path))


def _relative_to(path: str, base: str) -> str | None:
    root = posixpath.normpath(base.replace("\\", "/"))
    full = posixpath.normpath(path)
    if root == "/":
        return full.lstrip("/") or "."
    if full == root:
        return "."
    return full[len(root) + 1 :] if full.startswith(root + "/") else None
