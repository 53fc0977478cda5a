"""Captures and ``os.fork()``: a forked child never writes into its parent's report.

A child made by ``fork()`` (a DataLoader worker, ``multiprocessing`` with fork) inherits the
parent's captures, their trace handler, writer, report lock and profiler window. After the
fork, in the child, every live capture lets go of all of them without writing or releasing
anything of the parent's (:meth:`Capture.abandon_in_child`); the parent's report stays its
own. The handler is registered once per process: one per capture would keep every capture,
and its builder, alive for good, so the set holds its captures weakly.
"""

from __future__ import annotations

import os
import weakref
from typing import Protocol


class Forkable(Protocol):
    def abandon_in_child(self) -> None: ...


LIVE: weakref.WeakSet[Forkable] = weakref.WeakSet()  # started and not yet stopped


def track(capture: Forkable) -> None:
    LIVE.add(capture)


def untrack(capture: Forkable) -> None:
    LIVE.discard(capture)


def _after_fork_in_child() -> None:
    for capture in list(LIVE):
        capture.abandon_in_child()
    LIVE.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
