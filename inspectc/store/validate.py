"""Untrusted report data -> typed model objects: every field checked against its declared type.

A number is checked for its range too: an int (in an int or a float field) outside 64 bits is
no figure any capture wrote (JSON reads 400 digits as an int, and float() of it overflows).
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from collections.abc import Callable
from functools import cache
from typing import Any, TypeVar

from inspectc.errors import ReportError
from inspectc.model import from_plain

T = TypeVar("T")

INT_RANGE = (-(1 << 63), 1 << 64)  # signed or unsigned 64 bits: every count, size and time


def _is_int(value: object) -> bool:
    return isinstance(value, int) and INT_RANGE[0] <= value < INT_RANGE[1]


def _is_number(value: object) -> bool:
    return isinstance(value, float) or _is_int(value)


def load_checked(cls: type[T], data: Any, what: str) -> T:
    """:func:`from_plain`, then check every field has its declared type (reports are untrusted)."""
    try:
        obj = from_plain(cls, data)
    except (TypeError, ValueError, RecursionError) as exc:
        raise ReportError(f"{what} ({short_error(exc)})") from None
    problem = _type_problem(obj)
    if problem:
        raise ReportError(f"{what} ({problem})")
    return obj


def parse_checked(cls: type[T], text: str | None) -> T | None:
    """JSON *text* as a checked *cls*; None where it does not read as one (not recorded)."""
    try:
        return load_checked(cls, json.loads(text or ""), cls.__name__)
    except (ValueError, RecursionError, ReportError):
        return None


Check = Callable[[Any], bool]


@cache
def _field_checks(cls: Any) -> tuple[tuple[str, Check], ...]:
    return tuple((name, _checker(hint)) for name, hint in typing.get_type_hints(cls).items())


def _type_problem(obj: Any) -> str | None:
    """The first field of dataclass *obj* (recursively) whose value has the wrong type."""
    cls: Any = type(obj)
    for name, check in _field_checks(cls):
        value = getattr(obj, name)
        if not check(value):
            return f"{cls.__name__}.{name}{_why(value)}"
    return None


def _why(value: Any) -> str:
    """What is wrong with a value that failed its check: inside a record, the field at fault."""
    items = value.values() if isinstance(value, dict) else value if isinstance(value, tuple) else ()
    for item in (value, *items):
        if dataclasses.is_dataclass(item) and (inner := _type_problem(item)):
            return f": {inner}"
        if isinstance(item, int) and not _is_int(item):
            return " is an int out of range" if item is value else " holds an int out of range"
    return f" is {type(value).__name__}"


def _checker(hint: Any) -> Check:
    """A fast isinstance-style test for a field's declared type (built once per hint)."""
    origin = typing.get_origin(hint)
    if hint is Any:
        return lambda v: True
    if hint is type(None):
        return lambda v: v is None
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(hint)
        simple = _plain_types(args)
        if simple is not None:  # e.g. str | None: one isinstance call (and an int's range)
            if int in simple:
                return lambda v: isinstance(v, simple) and (not isinstance(v, int) or _is_int(v))
            return lambda v: isinstance(v, simple)
        options = tuple(_checker(arg) for arg in args)
        return lambda v: any(check(v) for check in options)
    if origin is tuple:
        item = _checker(typing.get_args(hint)[0])
        return lambda v: isinstance(v, tuple) and all(item(x) for x in v)
    if origin is dict:
        value = _checker(typing.get_args(hint)[1])
        return lambda v: isinstance(v, dict) and all(value(x) for x in v.values())
    if hint is float:
        return _is_number
    if hint is int:
        return _is_int
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return lambda v: isinstance(v, hint) and _type_problem(v) is None
    if isinstance(hint, type):
        return lambda v: isinstance(v, hint)
    return lambda v: True


def _plain_types(hints: tuple[Any, ...]) -> tuple[type, ...] | None:
    out: list[type] = []
    for hint in hints:
        if not isinstance(hint, type) or typing.get_origin(hint) or dataclasses.is_dataclass(hint):
            return None
        out.extend((int, float) if hint is float else (hint,))
    return tuple(out)


def short_error(exc: BaseException) -> str:
    return str(exc)[:200] or type(exc).__name__
