"""Run a user's script or module in this process, as ``python script.py`` / ``python -m`` would.

Sets ``sys.argv``, ``sys.path[0]`` and a fresh ``__main__`` module; the script's exit code
(``sys.exit``, an uncaught exception, Ctrl-C, SIGTERM) is returned the way Python gives it.
"""

from __future__ import annotations

import builtins
import importlib.machinery
import importlib.util
import os
import signal
import stat
import sys
import threading
import traceback
import types
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from inspectc.errors import UsageError


@dataclass(frozen=True, slots=True)
class Outcome:
    exit_code: int
    end_reason: str  # exit | exception | interrupt | signal
    exception: str | None = None
    signal: int | None = None  # re-raise this signal after cleanup (SIGINT/SIGTERM)


class Terminated(BaseException):
    """Raised inside the script when SIGTERM arrives, so cleanup runs."""


def prepare_script(path: str) -> types.CodeType:
    """Read and compile the script; bad input becomes one clear :class:`UsageError`."""
    script = Path(path)
    if not script.exists():
        raise UsageError(f"can't open file '{path}': no such file")
    if script.is_dir():
        main = script / "__main__.py"
        if not main.exists():
            raise UsageError(f"'{path}' is a directory with no __main__.py")
        script = main
    try:
        source = _read_script(script)
    except OSError as exc:
        raise UsageError(f"can't open file '{path}': {exc.strerror}") from None
    try:
        # absolute, as Python gives __main__ since 3.9: a chdir in the script keeps __file__
        return compile(source, os.path.abspath(script), "exec", dont_inherit=True)
    except SyntaxError as exc:
        where = f"{exc.filename}:{exc.lineno}" if exc.lineno else str(exc.filename)
        raise UsageError(f"syntax error in {where}: {exc.msg}") from None
    except ValueError as exc:
        raise UsageError(f"cannot compile '{path}': {exc}") from None


MAX_SCRIPT_BYTES = 64 << 20  # a script larger than this is not source code (INSPECTC_LIMITS=N)


def _read_script(script: Path) -> bytes:
    """The script's bytes: a regular file (not a FIFO or device, checked with fstat before any
    read) of at most ``MAX_SCRIPT_BYTES``, read no further than that."""
    from inspectc.model.limits import scale

    fd = os.open(script, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UsageError(f"can't run '{script}': not a regular file (a FIFO or a device)")
        cap = int(MAX_SCRIPT_BYTES * scale())
        if info.st_size > cap:
            raise UsageError(
                f"can't run '{script}': {info.st_size >> 20} MB, more than a script of"
                f" {cap >> 20} MB (INSPECTC_LIMITS=N raises the limit)"
            )
        data = fh.read(cap + 1)
    if len(data) > cap:  # it grew while read
        raise UsageError(
            f"can't run '{script}': more than {cap >> 20} MB (INSPECTC_LIMITS=N raises the limit)"
        )
    return data


def check_module(name: str) -> None:
    """Find *name* the way ``python -m`` does (the current directory first on the path), without
    running any package's ``__init__``: a package that raises is the script's error, shown with
    its traceback under capture, not inspectc's."""
    sys.path[0] = os.getcwd()
    parts = name.split(".")
    if not all(parts):
        raise UsageError(f"no module named '{name}' (not a module name)")
    try:
        spec = importlib.util.find_spec(parts[0])
        for depth in range(1, len(parts)):
            if spec is None or spec.submodule_search_locations is None:
                raise UsageError(f"no module named '{name}' ('{'.'.join(parts[:depth])}' is not a package)")
            spec = importlib.machinery.PathFinder.find_spec(
                ".".join(parts[: depth + 1]), list(spec.submodule_search_locations)
            )
    except (ImportError, ValueError) as exc:
        raise UsageError(f"no module named '{name}' ({exc})") from None
    if spec is None:
        raise UsageError(f"no module named '{name}'")


def run_code(code: types.CodeType, argv: list[str]) -> Outcome:
    """Execute a compiled script as ``__main__``."""
    filename = code.co_filename
    main = types.ModuleType("__main__")
    # the builtins module, as python gives __main__ (here, in a module, __builtins__ is its dict)
    main.__dict__.update({"__file__": filename, "__builtins__": builtins, "__cached__": None})
    main.__spec__ = None
    main.__loader__ = None
    sys.modules["__main__"] = main
    sys.argv = [argv[0] if argv else filename, *argv[1:]]
    sys.path[0] = os.path.dirname(os.path.abspath(filename))
    return _guarded(lambda: exec(code, main.__dict__))  # noqa: S102 - running the user's script


def run_module(name: str, argv: list[str]) -> Outcome:
    import runpy

    sys.argv = [name, *argv]
    sys.path[0] = os.getcwd()
    seed = {"__builtins__": builtins}  # as python -m gives it (exec would put in the module's dict)
    return _guarded(lambda: runpy.run_module(name, init_globals=seed, run_name="__main__", alter_sys=True))


def _guarded(body: Callable[[], object]) -> Outcome:
    previous = _install_sigterm()
    try:
        body()
    except SystemExit as exc:
        return Outcome(exit_code=_exit_code(exc.code), end_reason="exit")
    except KeyboardInterrupt as exc:
        _print_user_traceback(exc)
        return Outcome(130, "interrupt", "KeyboardInterrupt", signal=signal.SIGINT)
    except Terminated:
        return Outcome(128 + signal.SIGTERM, "signal", "SIGTERM", signal=signal.SIGTERM)
    except BaseException as exc:  # noqa: BLE001 - the script's own exception, shown as Python does
        _print_user_traceback(exc)
        return Outcome(1, "exception", f"{type(exc).__name__}: {exc}")
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    return Outcome(exit_code=0, end_reason="exit")


def wait_for_threads() -> Outcome | None:
    """Wait, as Python does before it exits, for the script's non-daemon threads, so what they
    compile after the script's last line is recorded. Executor workers are left alone: Python
    shuts their pools down first, and their threads would wait forever. None when every
    thread ended; the ending when Ctrl-C or SIGTERM stopped the wait (the report is still
    finished, as it is when they stop the script)."""
    from concurrent.futures import thread as futures_thread

    me = threading.current_thread()
    previous = _install_sigterm()
    try:
        while True:
            waiting = [
                t
                for t in threading.enumerate()
                if t is not me
                and not t.daemon
                and t.is_alive()
                and getattr(t, "_target", None) is not futures_thread._worker  # noqa: SLF001
            ]
            if not waiting:
                return None
            waiting[0].join()
    except KeyboardInterrupt:
        return Outcome(130, "interrupt", "KeyboardInterrupt", signal=signal.SIGINT)
    except Terminated:
        return Outcome(128 + signal.SIGTERM, "signal", "SIGTERM", signal=signal.SIGTERM)
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _install_sigterm() -> signal.Handlers | None:
    """Turn SIGTERM into an exception so the report is finished; only if nobody else owns it."""
    try:
        if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
            return None

        def on_term(signum: int, frame: object) -> None:
            raise Terminated()

        signal.signal(signal.SIGTERM, on_term)
        return signal.SIG_DFL
    except ValueError:  # not the main thread
        return None


def _exit_code(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def _print_user_traceback(exc: BaseException) -> None:
    """Print the traceback as Python would, without inspectc's own frames on top."""
    tb = exc.__traceback__
    here = os.path.dirname(os.path.abspath(__file__))
    runpy_file = os.path.splitext(__import__("runpy").__file__ or "")[0]
    while tb is not None and (
        os.path.dirname(os.path.abspath(tb.tb_frame.f_code.co_filename)) == here
        or os.path.splitext(tb.tb_frame.f_code.co_filename)[0] == runpy_file
    ):
        tb = tb.tb_next
    hook = sys.excepthook
    if hook is not sys.__excepthook__:  # the script's own hook shows its uncaught exception
        try:
            hook(type(exc), exc, tb)
            return
        except Exception as failed:  # noqa: BLE001 - said as Python says it, then the original
            print("Error in sys.excepthook:", file=sys.stderr)
            traceback.print_exception(type(failed), failed, failed.__traceback__)
            print("\nOriginal exception was:", file=sys.stderr)
    traceback.print_exception(type(exc), exc, tb)


def reraise_signal(signum: int) -> None:
    """Exit the way Python does on an unhandled SIGINT/SIGTERM (so the shell sees it)."""
    sys.stdout.flush()
    sys.stderr.flush()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)
