"""Keep the profiler's own chatter off the user's stderr; pass everything else through.

Kineto's C++ logger writes ``USDT:... SyncActivityProfilerHandler.cpp:52] profiler_start``
(and ``..._stop``) straight to file descriptor 2 at every profiler start and stop, and
``torch.profiler`` warns once that it "clears events at the end of each cycle". A debugger must
not add lines to its user's stderr, so around a profiler start or stop fd 2 points at a
temporary file; afterwards the lines that are not Kineto's are written to the real stderr in
order, and the warning is filtered for that call only. A temporary file, not a pipe: a pipe
fills at 64 KiB and would block a chatty call forever. Another thread writing to stderr in
that instant is delayed by the call's duration, never dropped.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

T = TypeVar("T")

# Kineto's activity-profiler log lines: "USDT:<date> <pid>:<tid> <file>.cpp:<line>] <text>" and
# its glog-style "INFO:"/"WARNING:" lines from the same handler.
_KINETO_LINE = re.compile(rb"^(USDT|INFO|WARNING|ERROR):.*\b\w+\.cpp:\d+\] ")
PROFILER_WARNING = r".*Profiler clears events at the end of each cycle"
MAX_HELD = 16 << 20  # what one call may write to stderr; beyond it, passed through unfiltered


def is_kineto_line(line: bytes) -> bool:
    return bool(_KINETO_LINE.match(line))


@contextmanager
def _fd2_filtered() -> Iterator[None]:
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError, AttributeError):  # no fd 2 (a daemon, a closed stream)
        yield
        return
    with tempfile.TemporaryFile() as held:
        os.dup2(held.fileno(), 2)
        try:
            yield
        finally:
            try:
                sys.stderr.flush()
            except (OSError, ValueError):
                pass
            os.dup2(saved, 2)
            os.close(saved)
            held.seek(0)
            data = held.read(MAX_HELD)
            rest = held.read()
            kept = b"".join(line for line in data.splitlines(keepends=True) if not is_kineto_line(line))
            _write_all(kept + rest)


def _write_all(data: bytes) -> None:
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(2, view) :]
        except InterruptedError:
            continue
        except OSError:  # stderr closed under us: nothing to pass on to
            return


def quietly(call: Callable[[], T]) -> T:
    """Run *call* (a profiler start or stop) without its Kineto lines and cycle warning."""
    with _fd2_filtered(), warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=PROFILER_WARNING)
        return call()
