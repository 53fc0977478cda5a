"""inspectc's own frames in a user's stack: one rule for the builder and the readers. No torch.

Under ``inspectc run`` (and ``python -m inspectc``) the console script, the CLI, the runner and
runpy sit under the user's frames. They are known by the package's folder (this checkout), by
their place in an ``inspectc`` package (a log or report made by inspectc elsewhere: any
subpackage, so a re-layout of the package needs no edit here) and by the console script.
"""

from __future__ import annotations

import os
import re

from inspectc import version
from inspectc.model import StackFrame

# The package's own folder, named by a module at its top (version.py), not by how deep this
# file sits: a move of this file must not make every stack start in inspectc's own code.
_PACKAGE_DIR = os.path.dirname(os.path.abspath(version.__file__)) + os.sep
_OWN_FRAME = re.compile(
    r"(?:^|[/\\])(?:inspectc[/\\](?:__main__\.py|cli[/\\]\w+\.py|capture[/\\]runner\.py)"
    r"|(?:bin|Scripts)[/\\]inspectc(?:\.exe|-script\.py)?)$"
)
# a file in a subpackage of an installed inspectc, as the readers see a report made elsewhere
_OWN_PARTS = re.compile(r"[/\\]inspectc[/\\]\w+[/\\]|[/\\]inspectc[/\\]__main__\.py$")
_RUNNER_FILES = ("<frozen runpy>", "runpy.py")


def is_own_frame(filename: str | None) -> bool:
    """A frame of inspectc's entry chain (or runpy's) that sits under the user's frames."""
    if not filename:
        return False
    return (
        filename.startswith(_PACKAGE_DIR)
        or filename.endswith(_RUNNER_FILES)
        or _OWN_FRAME.search(filename) is not None
    )


# A notebook's cell runs under ~16 frames of its kernel (runpy, ipykernel, tornado, asyncio,
# IPython's run_cell ... run_code): the cell's code starts after the last of IPython's.
_NOTEBOOK_HOST = re.compile(r"[/\\](?:IPython|ipykernel)[/\\]")


def users_frames(stack: tuple[StackFrame, ...]) -> tuple[StackFrame, ...]:
    """*stack* without inspectc's own frames and runpy's, and without the notebook kernel's
    frames above a cell's: it starts at the user's code."""
    host = [i for i, f in enumerate(stack) if f.filename and _NOTEBOOK_HOST.search(f.filename)]
    if host and host[-1] + 1 < len(stack):
        stack = stack[host[-1] + 1 :]
    return tuple(f for f in stack if not is_own_frame(f.filename))


def is_runner_frame(frame: StackFrame) -> bool:
    """inspectc's own frames, runpy's and the ``inspectc`` console script, as a reader finds them
    in a report made anywhere (any file of an ``inspectc`` subpackage counts)."""
    name = frame.filename or ""
    if is_own_frame(name) or _OWN_PARTS.search(name):
        return True
    return (frame.code or "").strip() == "sys.exit(entry())" or name.replace("\\", "/").endswith(
        "/bin/inspectc"
    )
