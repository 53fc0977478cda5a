"""JSON round trip: dataclasses <-> plain dicts, tolerant of unknown and missing keys.

What a field nests is read from its type hint, once per class: a dataclass (or a tuple of
them) is built from its dict (or list of dicts), and a ``CompileId`` (or a tuple of them) is
stored as its text, as torch prints it ("0/1"), and parsed back. No class is named here and
nothing is registered by hand.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from functools import cache
from typing import Any, TypeVar

from inspectc.model.compile_id import CompileId

T = TypeVar("T")

# How a field is read and written: as it is, an id as its text, or a nested dataclass. A tuple
# of ids or of dataclasses is a list in JSON, told apart by the value.
_PLAIN, _ID, _NESTED = range(3)


@cache
def _layout(cls: Any) -> tuple[tuple[str, int, Any], ...]:
    """(field name, how, nested class) of each field of dataclass *cls*, from its hints."""
    try:
        hints = typing.get_type_hints(cls)
    except Exception:  # noqa: BLE001 - a hint that does not resolve here: every field as it is
        hints = {}
    return tuple((f.name, *_how(hints.get(f.name))) for f in dataclasses.fields(cls))


def _how(hint: Any) -> tuple[int, Any]:
    inner = _without_none(hint)
    if typing.get_origin(inner) is tuple:
        args = typing.get_args(inner)
        inner = args[0] if args else None
    if inner is CompileId:
        return _ID, None
    if isinstance(inner, type) and dataclasses.is_dataclass(inner):
        return _NESTED, inner
    return _PLAIN, None


def _without_none(hint: Any) -> Any:
    """``X`` of ``X | None``; any other hint as it is."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return hint


def to_plain(obj: Any) -> Any:
    """A dataclass (or nested structure of them) as JSON-ready dicts and lists.

    Field by field, as ``dataclasses.asdict`` and its deep copy of every value would give,
    without the copy (a frame is written again at each flush of a long run).
    """
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {
            name: _id_text(getattr(obj, name)) if how == _ID else to_plain(getattr(obj, name))
            for name, how, _ in _layout(type(obj))
        }
    if isinstance(obj, (list, tuple)):
        return [to_plain(v) for v in obj]
    if isinstance(obj, dict):
        return {str(k): to_plain(v) for k, v in obj.items()}
    return obj


def from_plain(cls: type[T], data: Any) -> T:
    """Build *cls* from a dict written by :func:`to_plain`; unknown keys are ignored."""
    if not isinstance(data, dict):
        raise TypeError(f"{cls.__name__}: expected an object, got {type(data).__name__}")
    kwargs: dict[str, Any] = {}
    for name, how, sub in _layout(typing.cast(Any, cls)):
        if name not in data:
            continue
        value = data[name]
        if how == _ID:
            if isinstance(value, list):  # a tuple of ids
                value = tuple(CompileId.parse(v) for v in value if isinstance(v, str))
            else:
                value = CompileId.parse(value) if isinstance(value, str) else None
        elif how == _NESTED and value is not None:
            if isinstance(value, list):
                value = tuple(from_plain(sub, v) for v in value)
            else:
                value = from_plain(sub, value)
        elif isinstance(value, list):
            value = tuple(value)
        kwargs[name] = value
    return cls(**kwargs)


def _id_text(cid: Any) -> Any:
    if cid is None:
        return None
    if isinstance(cid, tuple):
        return [_id_text(c) for c in cid]
    if not isinstance(cid, CompileId):
        return to_plain(cid)
    # An id that names no compile (an AOT compile's kernel) is stored as the empty text.
    return str(cid) if cid.known else ""
