"""A kernel's source and compiled stages as the Kernels tab shows them, with the line mapping.

The source of a Triton kernel with recorded stages is the file Inductor wrote (the lines the
stages' locations number); each stage maps Python lines to its own lines
(``inspectc.model.irmap``). Choosing a line in any view names its Python line; every other
view then marks that Python line's lines. No Textual here: the pane draws what this says.
"""

from __future__ import annotations

from inspectc.model.irmap import STAGES, line_map, lines_for
from inspectc.model.kernel_detail import KernelDetail

_LEXERS = {"ttir": "llvm", "ttgir": "llvm", "llir": "llvm", "ptx": "ptx", "sass": None}


class KernelStages:
    def __init__(self, span: str, detail: KernelDetail | None) -> None:
        self.span = span
        self.detail = detail
        self._maps: dict[str, dict[int, list[int]]] = {}

    def names(self) -> list[str]:
        stages = self.detail.stages if self.detail is not None else {}
        return ["source", *(s for s in STAGES if s in stages)]

    def text(self, stage: str) -> str:
        if stage == "source":
            if self.detail is not None and self.detail.python_source:
                return self.detail.python_source
            return self.span
        return self.detail.stages.get(stage, "") if self.detail is not None else ""

    def language(self, stage: str, kernel_language: str) -> str | None:
        return kernel_language if stage == "source" else _LEXERS.get(stage)

    def tabs(self, current: str) -> str:
        """``[source] ttir ttgir ...  (s: next)``; cut stages say so."""
        cut = self.detail.truncated if self.detail is not None else {}
        names = [f"[{n}]" if n == current else n + ("(cut)" if n in cut else "") for n in self.names()]
        return " ".join(names) + "  (s: next stage, enter: map a line)"

    def mapping(self, stage: str) -> dict[int, list[int]]:
        if stage not in self._maps:
            text = self.text(stage) if stage != "source" else ""
            pyfile = self.detail.python_file if self.detail is not None else None
            self._maps[stage] = line_map(stage, text, pyfile) if text else {}
        return self._maps[stage]

    def python_line(self, stage: str, line: int) -> int | None:
        """The Python line of *line* (1-based) of *stage*."""
        if (
            stage == "source"
        ):  # the span's lines number as the file's: its first line ends in the opening quotes
            return line if self.detail is not None else None
        return next((py for py, rows in self.mapping(stage).items() if line in rows), None)

    def marks(self, stage: str, py_line: int | None) -> set[int]:
        """0-based lines of *stage* that *py_line* compiled to (the line itself in the source)."""
        if py_line is None:
            return set()
        if stage == "source":
            return {py_line - 1}
        return {n - 1 for n in lines_for(self.mapping(stage), [py_line])}

    def summary(self, py_line: int) -> str:
        parts = []
        for stage in self.names()[1:]:
            rows = lines_for(self.mapping(stage), [py_line])
            parts.append(f"{stage}: {_ranges(rows)}" if rows else f"{stage}: -")
        return " · ".join(parts) if parts else "no compiled stages recorded"


def _ranges(rows: list[int]) -> str:
    out: list[str] = []
    start = prev = rows[0]
    for n in rows[1:] + [-1]:
        if n == prev + 1:
            prev = n
            continue
        out.append(str(start) if start == prev else f"{start}-{prev}")
        start = prev = n
    return ",".join(out[:6]) + (" …" if len(out) > 6 else "")
