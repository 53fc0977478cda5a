"""Leaving the TUI for a moment: an editor at file:line, a graphviz export. No Textual."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import tempfile
from pathlib import Path

from inspectc.model import CompileId
from inspectc.store.exclusive import place_new
from inspectc.store.reader import Report

# Editors that take `path:line` rather than `+line path`.
_COLON_EDITORS = {"subl", "zed", "hx", "helix"}
_GOTO_EDITORS = {"code", "code-insiders", "codium", "cursor"}


def editor_command(path: Path, line: int | None, editor: str | None = None) -> list[str]:
    """The command that opens *path* at *line* in the user's editor ($VISUAL, $EDITOR, vi)."""
    text = editor or os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    cmd = shlex.split(text) or ["vi"]
    name = Path(cmd[0]).name
    if line is None:
        return [*cmd, str(path)]
    if name in _GOTO_EDITORS:
        return [*cmd, "--goto", f"{path}:{line}"]
    if name in _COLON_EDITORS:
        return [*cmd, f"{path}:{line}"]
    return [*cmd, f"+{line}", str(path)]


def export_file_stem(report_path: Path, cid: CompileId) -> str:
    """``run-0_1`` (``run-r3-0_1`` with a rank): a file name for one frame's picture."""
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", str(cid))
    return f"{report_path.stem}-{'' if cid.rank is None else f'r{cid.rank}-'}{safe}"


def graph_exporter():  # noqa: ANN201 - the exporter function, or None if not installed
    """``inspectc.render.graph.fusion.fusion_dot`` when this inspectc has it, else None."""
    try:
        from inspectc.render.graph.fusion import fusion_dot  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return None
    return fusion_dot


def export_graph(report: Report, cid: CompileId, out_dir: Path, *, named: Path | None = None) -> list[Path]:
    """Write ``<report-stem>-<cid>.dot`` (and ``.svg`` when `dot` is on PATH); return paths.

    *named* is the path the user opened (a bundle's report is a temporary file)."""
    fusion_dot = graph_exporter()
    if fusion_dot is None:
        raise LookupError("graph export not available")
    text = fusion_dot(report, cid, rank=cid.rank)
    stem = export_file_stem(named or report.path, cid)
    dot_path = out_dir / f"{stem}.dot"
    # A new file only (O_EXCL|O_NOFOLLOW): never through a link, never over a file (FileExistsError)
    fd = os.open(dot_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o666)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    written = [dot_path]
    dot = shutil.which("dot")
    if dot is not None:
        svg_path = out_dir / f"{stem}.svg"
        fd, tmp = tempfile.mkstemp(prefix=f".{stem[:40]}.", suffix=".tmp.svg", dir=out_dir)
        os.close(fd)
        try:
            result = subprocess.run(
                [dot, "-Tsvg", str(dot_path), "-o", tmp], capture_output=True, timeout=120
            )
            if result.returncode == 0:
                os.chmod(tmp, 0o644)
                place_new(tmp, svg_path)  # refuses (FileExistsError) to replace a file
                written.append(svg_path)
        finally:
            Path(tmp).unlink(missing_ok=True)
    return written
