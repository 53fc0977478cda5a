"""A bounded exit for processes that ran the profiler (kernel timings), and their forked children.

Once torch's profiler has run in a process, Kineto holds a static ``ConfigLoader`` whose
thread waits on a condition variable. A child made by ``os.fork()`` inherits the condition
variable with that waiter recorded but not the thread: at the child's ``exit()`` the static
destructor (``libkineto::ConfigLoader::~ConfigLoader``) blocks for good in
``pthread_cond_destroy``, and the parent waits for the child forever. torch does it on its
own (profiler start/stop, fork, ``sys.exit`` in the child); ``multiprocessing``'s fork
children leave through ``os._exit`` and are not hit.

The way out: in every child forked after the first profiler window, a C-level exit handler
``_exit(status)`` is registered with glibc's ``on_exit`` (it receives the status ``exit()``
was given), preceded by ``fflush(NULL)``. C exit handlers run last-registered first, so the
child's ``exit()`` runs whatever the child registered itself, flushes C stdio and ends with
its own status, before the destructors of the C++ libraries loaded before the fork. The
child's Python ending is untouched: ``atexit`` handlers, ``finally`` blocks, flushing
``sys.stdout`` all run in ``Py_Finalize``, before ``exit()``. The handlers are plain libc
functions called by libc: no Python runs after finalization.

The same handler, armed in the process itself (:func:`leave_before_static_destructors`),
bounds the exit of a CUDA process whose profiler stop started Kineto's CUPTI teardown
(``TEARDOWN_CUPTI=1``, set by capture to keep the loop after a window fast): that teardown
thread waits on a static condition variable for a CUDA runtime call, and ``exit()`` hung
destroying it when none came (Triton launches go through the driver API). Seen on an H200
(torch 2.11+cu130) with torch alone: profiler start/stop, then exit, hangs, and one
``torch.cuda.synchronize()`` right after the stop does not prevent it.
"""

from __future__ import annotations

import ctypes
import os
import sys

_state: dict[str, str | None] = {}  # what was armed -> None, or why it could not be


def _libc_why() -> str | None:
    """Why the exit path cannot be armed here (not Linux/glibc), else None."""
    if "libc" not in _state:
        why: str | None = None
        if not sys.platform.startswith("linux") or not hasattr(os, "register_at_fork"):
            why = f"no safe exit path on {sys.platform}"
        else:
            try:
                libc = ctypes.CDLL(None)
                for name in ("on_exit", "__cxa_atexit", "_exit", "fflush"):
                    getattr(libc, name)
            except (OSError, AttributeError) as exc:  # not glibc (musl has no on_exit)
                why = f"no safe exit path: {exc}"
        _state["libc"] = why
    return _state["libc"]


def guard_forked_children() -> str | None:
    """Arm the child-side exit path, once per process; return why it cannot be (else None)."""
    if "children" not in _state:
        why = _libc_why()
        if why is None:
            os.register_at_fork(after_in_child=_in_child)
        _state["children"] = why
    return _state["children"]


def leave_before_static_destructors() -> str | None:
    """This process's ``exit()`` ends with ``_exit(status)`` before the static destructors.

    For a CUDA process whose profiler stop started Kineto's CUPTI teardown
    (``TEARDOWN_CUPTI=1``): that detached thread waits on a static condition variable for a
    CUDA runtime call that may never come, and ``exit()`` would block for good destroying it.
    Python's own ending is untouched (atexit handlers, flushed streams, the exit code); C++
    static destructors of the libraries loaded so far are skipped, as ``os._exit`` skips
    them. Once per process; returns why it cannot be (else None).
    """
    if "self" not in _state:
        why = _libc_why()
        if why is None:
            _arm()
        _state["self"] = why
    return _state["self"]


def _in_child() -> None:
    if "self" in _state:
        return  # inherited: the parent's handlers are the child's too
    _arm()


def _arm() -> None:
    try:
        libc = ctypes.CDLL(None)
        # on_exit(f, arg) calls f(status, arg): _exit(status) (the extra argument is ignored)
        libc.on_exit(ctypes.cast(libc._exit, ctypes.c_void_p), None)
        # registered after, so it runs before: __cxa_atexit(f, arg, dso) calls fflush(NULL)
        libc.__cxa_atexit(ctypes.cast(libc.fflush, ctypes.c_void_p), None, None)
    except (OSError, AttributeError):  # checked when armed: not expected here
        pass  # noqa: S110 - an at-fork hook must not raise into the user's fork()
