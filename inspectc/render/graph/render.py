"""DOT text to a picture: ``render(dot_text, "frame.svg")`` and ``svg(dot_text)`` for notebooks.

``.dot``/``.gv`` are written as they are (no Graphviz needed); ``.svg``, ``.png`` and ``.pdf``
are laid out by Graphviz's ``dot`` through ``graphviz.Source(...).pipe``. Its
``ExecutableNotFound`` becomes :class:`GraphvizMissing` and its ``CalledProcessError``
:class:`RenderError`, each one line for the CLI.

``graphviz`` (0.20, 0.21) has no timeout: ``pipe`` waits for ``dot`` however long it takes.
A caller that passes *timeout_s* gets a bounded ``subprocess.run`` of ``dot`` instead.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import graphviz

from inspectc.errors import GraphvizMissing, RenderError, UsageError
from inspectc.render.graph.style import clip

__all__ = ["FORMATS", "GraphvizMissing", "RenderError", "render", "svg"]

FORMATS = {".svg": "svg", ".png": "png", ".pdf": "pdf", ".dot": "dot", ".gv": "dot"}
INSTALL_HINT = "install Graphviz: apt-get install graphviz (or brew install graphviz)"


def svg(dot_text: str, *, timeout_s: float | None = None) -> str:
    """*dot_text* laid out by ``dot`` as SVG text (``IPython.display.SVG(svg(...))`` in a notebook)."""
    return _lay_out(dot_text, "svg", "the SVG", timeout_s).decode("utf-8")


def render(dot_text: str, path: str | os.PathLike[str], *, timeout_s: float | None = None) -> Path:
    """Write *dot_text* to *path*, in the format its extension names (.svg .png .pdf .dot)."""
    target = Path(path)
    fmt = FORMATS.get(target.suffix.lower())
    if fmt is None:
        known = ", ".join(FORMATS)
        raise UsageError(f"cannot tell the picture format of {target.name!r}: use one of {known}")
    if not target.parent.is_dir():
        raise UsageError(f"cannot write {target}: no such directory {target.parent}")
    if fmt == "dot":
        target.write_text(dot_text, encoding="utf-8")
        return target
    target.write_bytes(_lay_out(dot_text, fmt, target.name, timeout_s))
    return target


def _lay_out(dot_text: str, fmt: str, name: str, timeout_s: float | None) -> bytes:
    """``dot -T<fmt>`` of *dot_text*; *name* is what the errors call the picture."""
    try:
        if timeout_s is None:
            return graphviz.Source(dot_text).pipe(format=fmt, quiet=True)
        return _bounded(dot_text, fmt, timeout_s)
    except graphviz.ExecutableNotFound:
        raise GraphvizMissing(
            f"writing {name} needs Graphviz's `dot`, which is not on PATH: {INSTALL_HINT}"
            " (a .dot file needs no Graphviz)"
        ) from None
    except subprocess.TimeoutExpired:
        raise RenderError(f"dot took more than {timeout_s:.0f} s for {name}: try --max-nodes") from None
    except subprocess.CalledProcessError as exc:  # graphviz.CalledProcessError is one
        raise RenderError(
            f"dot failed (exit {exc.returncode}) writing {name}: {clip(_first_error(exc.stderr), 200)}"
        ) from None
    except OSError as exc:
        raise RenderError(f"cannot run dot for {name}: {exc.strerror or exc}") from None


def _bounded(dot_text: str, fmt: str, timeout_s: float) -> bytes:
    """What ``pipe`` does, but killed after *timeout_s*; the same errors as ``graphviz``'s."""
    exe = shutil.which("dot")
    if exe is None:
        raise graphviz.ExecutableNotFound(["dot", f"-T{fmt}"])
    proc = subprocess.run(
        [exe, f"-T{fmt}"], input=dot_text.encode("utf-8"), capture_output=True, timeout=timeout_s, check=False
    )
    if proc.returncode != 0:
        raise graphviz.CalledProcessError(proc.returncode, proc.args, proc.stdout, proc.stderr)
    return proc.stdout


def _first_error(stderr: bytes | str | None) -> str:
    text = stderr.decode("utf-8", "replace") if isinstance(stderr, bytes) else stderr or ""
    lines = text.strip().splitlines()
    return next((line for line in lines if "Error" in line), lines[0] if lines else "")
