"""Scanning the Python text of a printed FX graph: top-level splits, brackets left open,
comments outside strings, the known names an expression reads. Pure string functions."""

from __future__ import annotations

import re

_NESTING = re.compile(r"[()\[\]{}'\"]")


def split_top_level(text: str, sep: str) -> list[str]:
    """Split *text* at *sep* outside brackets and quotes."""
    if sep not in text:
        return [text]
    if not _NESTING.search(text):
        return text.split(sep)
    parts: list[str] = []
    depth = 0
    quote: str | None = None
    start = 0
    i = 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = max(0, depth - 1)
        elif ch == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
        i += 1
    parts.append(text[start:])
    return parts


STRING = re.compile(r"""'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*\"""")
_IDENT = re.compile(r"(?<![\w.])([A-Za-z_]\w*)\b(?!\s*\()(?!\s*=(?!=))")


def references(expr: str, known: dict[str, int]) -> tuple[str, ...]:
    """Names of known nodes *expr* reads: not strings, attributes, calls or keywords."""
    clean = STRING.sub('""', expr)
    seen: dict[str, None] = {}
    for match in _IDENT.finditer(clean):
        name = match.group(1)
        if name in known:
            seen.setdefault(name, None)
    return tuple(seen)


def indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def drop_comment(text: str) -> str:
    """Drop a trailing ``# ...`` comment that is not inside a string."""
    parts = STRING.split(text)
    if "#" not in "".join(parts):
        return text
    out, pos = [], 0
    for match in STRING.finditer(text):
        chunk = text[pos : match.start()]
        if "#" in chunk:
            out.append(chunk[: chunk.index("#")])
            return "".join(out).rstrip()
        out.append(chunk + match.group())
        pos = match.end()
    rest = text[pos:]
    out.append(rest[: rest.index("#")] if "#" in rest else rest)
    return "".join(out).rstrip()


def open_brackets(text: str) -> int:
    clean = STRING.sub('""', text)
    return sum(clean.count(c) for c in "([{") - sum(clean.count(c) for c in ")]}")


def balanced_call(rhs: str) -> bool:
    """``f(a)(b)`` or ``f(a) + g(b)`` are not one call of ``f``."""
    clean = STRING.sub('""', rhs)
    depth = 0
    first_open = clean.find("(")
    for i, ch in enumerate(clean):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i == len(clean.rstrip()) - 1 and i > first_open
    return False
