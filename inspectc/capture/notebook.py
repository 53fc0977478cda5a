"""The notebook's cell numbers, read from IPython as capture stops. No torch.

In a notebook, a cell's code runs under a file name IPython made for it (ipykernel:
``/tmp/ipykernel_<pid>/<hash>.py``), and that is what Dynamo records for a break in it. The
shell's compiler (IPython's ``CachingCompiler``, ipykernel's ``XCachingCompiler``) keeps
``_filename_map``: each such name -> the execution count the notebook shows (``In [3]``), the
map IPython's own tracebacks read for ``Cell In[3], line 7``. :func:`cells` copies it (the
newest :data:`~inspectc.model.cells.MAX_CELLS` entries: a cell run before capture started may
hold the model) into the run record, where readers find it (``Run.cells``).

IPython is never imported here: outside a running shell there is nothing to read.
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Callable

from inspectc.model.cells import MAX_CELLS, checked_cells


def cells(record: Callable[[str], None]) -> dict[str, int] | None:
    """The running IPython shell's cells (file name -> execution count); None outside one.

    Never raises: what goes wrong is *record*-ed (a capture error) and the map is not recorded.
    """
    ipython = sys.modules.get("IPython")
    if ipython is None:  # not loaded: no shell runs this process
        return None
    try:
        shell = ipython.get_ipython()
        if shell is None:
            return None
        found = getattr(getattr(shell, "compile", None), "_filename_map", None)
        if not isinstance(found, dict):
            record("notebook cells not recorded: IPython's compiler keeps no _filename_map here")
            return None
        # Newest last (cells are added as they run): the last MAX_CELLS, without copying them all.
        newest = list(itertools.islice(reversed(found.items()), MAX_CELLS))
        return checked_cells(dict(reversed(newest)))
    except Exception as exc:  # noqa: BLE001 - a shell of another make: recorded, capture goes on
        record(f"notebook cells not recorded: {type(exc).__name__}: {exc}")
        return None
