"""Line mapping between a Triton kernel's Python source and its compiled stages. Stdlib only.

Triton keeps the kernel's Python location on every stage it emits:

- TTIR / TTGIR (MLIR): ``#loc12 = loc("/path/k.py":21:30)`` aliases, ``loc(#loc12)`` or an
  inline ``loc("/path/k.py":21:30)`` at the end of an op; a named location
  ``#loc30 = loc("tmp0"(#loc12))`` or ``loc(callsite(#loc3 at #loc4))`` stands for the one it names.
- LLIR: ``!dbg !12`` on an instruction, ``!12 = !DILocation(line: 21, column: 30, ...)``.
- PTX: ``.file 1 "/path/k.py"`` and ``.loc 1 21 30``: the lines after a ``.loc`` are its.
- SASS from ``nvdisasm -g``: ``//## File "/path/k.py", line 21`` comments.

:func:`line_map` turns one stage's text into {python line -> [stage lines]} (1-based), for
the kernel's own file only (Triton's own helpers, libdevice... are left out).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

STAGES = ("ttir", "ttgir", "llir", "ptx", "sass")

_MLIR_ALIAS = re.compile(r"^#(loc\d*)\s*=\s*loc\((.*)\)\s*$")
_MLIR_FILE_LOC = re.compile(r'"([^"]*)":(\d{1,18}):(\d{1,18})')
_MLIR_REF = re.compile(r"#(loc\d*)\b")
_MLIR_USE = re.compile(r"loc\((#loc\d*|\"[^\"]*\":\d{1,18}:\d{1,18}|.*)\)\s*$")
_LL_DILOC = re.compile(
    r"^!(\d{1,18})\s*=\s*(?:distinct\s+)?!DILocation\(line:\s*(\d{1,18})(?:.*?scope:\s*!(\d{1,18}))?"
)
_LL_SCOPE = re.compile(
    r"^!(\d{1,18})\s*=\s*(?:distinct\s+)?!DI(?:Subprogram|LexicalBlock\w*)\(.*?file:\s*!(\d{1,18})"
)
_LL_FILE = re.compile(r'^!(\d{1,18})\s*=\s*(?:distinct\s+)?!DIFile\(filename:\s*"([^"]*)"')
_LL_DBG = re.compile(r"!dbg !(\d{1,18})")
_PTX_FILE = re.compile(r'^\s*\.file\s+(\d{1,18})\s+"([^"]*)"')
_PTX_LOC = re.compile(r"^\s*\.loc\s+(\d{1,18})\s+(\d{1,18})\s+(\d{1,18})")
_SASS_LOC = re.compile(r'//##\s*File\s+"([^"]*)",\s*line\s+(\d{1,18})')


def line_map(stage: str, text: str, source_file: str | None = None) -> dict[int, list[int]]:
    """{python line: [1-based lines of *text*]} for *stage*; *source_file* keeps only lines
    of that file (its base name is compared: a report read elsewhere has other paths)."""
    lines = text.splitlines()
    if stage in ("ttir", "ttgir"):
        pairs = _mlir(lines)
    elif stage == "llir":
        pairs = _llir(lines)
    elif stage == "ptx":
        pairs = _ptx(lines)
    elif stage == "sass":
        pairs = _sass(lines)
    else:
        return {}
    want = _base(source_file) if source_file else None
    out: dict[int, list[int]] = {}
    for index, filename, py_line in pairs:
        if py_line <= 0 or (want is not None and _base(filename) != want):
            continue
        out.setdefault(py_line, []).append(index + 1)
    return out


def kernel_file(text: str) -> str | None:
    """The file most stage lines point to: the kernel's own (None when nothing is located)."""
    counts: dict[str, int] = {}
    for stage in ("ttir", "ptx", "llir", "ttgir", "sass"):
        for _index, filename, _line in _pairs_for(stage, text):
            counts[filename] = counts.get(filename, 0) + 1
        if counts:
            break
    return max(counts, key=lambda f: counts[f]) if counts else None


def _pairs_for(stage: str, text: str) -> list[tuple[int, str, int]]:
    lines = text.splitlines()
    if stage in ("ttir", "ttgir"):
        return _mlir(lines)
    if stage == "llir":
        return _llir(lines)
    if stage == "ptx":
        return _ptx(lines)
    return _sass(lines)


def _base(path: str) -> str:
    return path.replace("\\", "/").rsplit("/", 1)[-1]


def _mlir(lines: list[str]) -> list[tuple[int, str, int]]:
    raw: dict[str, str] = {}
    for line in lines:
        m = _MLIR_ALIAS.match(line.strip())
        if m:
            raw[m.group(1)] = m.group(2)
    resolved: dict[str, tuple[str, int] | None] = {}

    def resolve(alias: str, depth: int = 0) -> tuple[str, int] | None:
        if alias in resolved:
            return resolved[alias]
        body = raw.get(alias)
        found = _mlir_body(body, resolve, depth) if body is not None and depth < 32 else None
        resolved[alias] = found
        return found

    out: list[tuple[int, str, int]] = []
    for index, line in enumerate(lines):
        stripped = line.strip()
        if not stripped or stripped.startswith("#loc"):
            continue
        m = _MLIR_USE.search(stripped)
        if m is None:
            continue
        where = _mlir_body(m.group(1), resolve, 0)
        if where is not None:
            out.append((index, where[0], where[1]))
    return out


def _mlir_body(body: str, resolve: object, depth: int) -> tuple[str, int] | None:
    """A location body: a file location, an alias, or a named/callsite/fused one naming them
    (the first file location wins: a callsite's callee is where the op is)."""
    m = _MLIR_FILE_LOC.search(body)
    ref = _MLIR_REF.search(body)
    if m is not None and (ref is None or m.start() < ref.start()):
        return m.group(1), int(m.group(2))
    if ref is not None and callable(resolve):
        found = resolve(ref.group(1), depth + 1)
        return found if isinstance(found, tuple) else None
    return None


def _llir(lines: list[str]) -> list[tuple[int, str, int]]:
    files: dict[str, str] = {}
    scopes: dict[str, str] = {}
    locs: dict[str, tuple[int, str | None]] = {}
    for line in lines:
        if not line.startswith("!"):
            continue
        if m := _LL_FILE.match(line):
            files[m.group(1)] = m.group(2)
        elif m := _LL_SCOPE.match(line):
            scopes[m.group(1)] = m.group(2)
        elif m := _LL_DILOC.match(line):
            locs[m.group(1)] = (int(m.group(2)), m.group(3))
    out: list[tuple[int, str, int]] = []
    for index, line in enumerate(lines):
        if line.startswith("!"):
            continue
        m = _LL_DBG.search(line)
        if m is None or m.group(1) not in locs:
            continue
        py_line, scope = locs[m.group(1)]
        filename = files.get(scopes.get(scope or "", ""), "")
        out.append((index, filename, py_line))
    return out


def _ptx(lines: list[str]) -> list[tuple[int, str, int]]:
    files: dict[str, str] = {}
    for line in lines:
        if m := _PTX_FILE.match(line):
            files[m.group(1)] = m.group(2)
    out: list[tuple[int, str, int]] = []
    current: tuple[str, int] | None = None
    for index, line in enumerate(lines):
        if m := _PTX_LOC.match(line):
            current = (files.get(m.group(1), ""), int(m.group(2)))
            continue
        stripped = line.strip()
        if current is None or not stripped or stripped.startswith(("//", ".file", "$L", "}")):
            continue
        out.append((index, current[0], current[1]))
    return out


def _sass(lines: list[str]) -> list[tuple[int, str, int]]:
    out: list[tuple[int, str, int]] = []
    current: tuple[str, int] | None = None
    for index, line in enumerate(lines):
        if m := _SASS_LOC.search(line):
            current = (m.group(1), int(m.group(2)))
            continue
        if current is not None and "/*" in line and ";" in line:
            out.append((index, current[0], current[1]))
    return out


def lines_for(mapping: dict[int, list[int]], py_lines: Iterable[int]) -> list[int]:
    """Stage lines of several Python lines, in order, once each."""
    return sorted({n for p in py_lines for n in mapping.get(p, [])})
