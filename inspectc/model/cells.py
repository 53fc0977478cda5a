"""Notebook cells as the notebook names them: ``cell [3], line 7``. Stdlib only.

IPython compiles each cell under a file name of its own (ipykernel:
``/tmp/ipykernel_<pid>/<hash>.py``; plain IPython: ``<ipython-input-3-...>``) and keeps, in its
compiler's ``_filename_map``, that name's execution count: the ``In [3]`` the notebook shows.
Capture copies the map into the run record (``Run.cells``); readers name a location in a
cell by its count and keep the file name beside it. A report is a stranger's file, so the map
is checked here, once, as a run record is made: string keys of bounded length, whole counts
in range, at most :data:`MAX_CELLS` entries; anything else is left out.
"""

from __future__ import annotations

from typing import Any

MAX_CELLS = 4096  # cells one run record keeps (the newest, in capture): a session of thousands
MAX_NAME = 1024  # characters of a cell's file name (ipykernel's are ~40)
MAX_COUNT = 10**9  # execution counts are small whole numbers; beyond this, not one


def checked_cells(value: Any) -> dict[str, int] | None:
    """*value* as a cell map (file name -> execution count), or None: not recorded.

    What does not read as an entry (a key not a string or too long, a count not a whole
    number from 1 to :data:`MAX_COUNT`, a bool) is left out; the first :data:`MAX_CELLS` kept.
    A map with no entry left reads as None.
    """
    if not isinstance(value, dict):
        return None
    out: dict[str, int] = {}
    for name, count in value.items():
        if len(out) >= MAX_CELLS:
            break
        if (
            isinstance(name, str)
            and 0 < len(name) <= MAX_NAME
            and type(count) is int
            and 0 < count <= MAX_COUNT
        ):
            out[name] = count
    return out or None  # no entry read: not recorded, as a missing map


def cell_label(count: int) -> str:
    """``cell [3]``: the cell whose prompt reads ``In [3]``."""
    return f"cell [{count}]"
