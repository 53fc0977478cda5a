"""JSON round trip: dataclasses <-> plain dicts, tolerant of unknown and missing keys.

The model's dataclasses register here which fields nest other dataclasses (``_NESTED``) and
which hold a CompileId stored as its text (``_ID_TEXT``); the functions know no class by name.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any, TypeVar

from inspectc.model.compile_id import CompileId

T = TypeVar("T")

_NESTED: dict[type, dict[str, type]] = {}


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


# Fields that hold a CompileId but store its text, as torch printed it ("0/0"), not an object.
_ID_TEXT: dict[type, frozenset[str]] = {}


def to_plain(obj: Any) -> Any:
    """A dataclass (or nested structure of them) as JSON-ready dicts and lists.

    Field by field, as ``dataclasses.asdict`` and its deep copy of every value would give,
    without the copy (a frame is written again at each flush of a long run).
    """
    names = _FIELD_NAMES.get(type(obj))
    if names is None and hasattr(obj, "__dataclass_fields__") and not isinstance(obj, type):
        names = _FIELD_NAMES[type(obj)] = tuple(f.name for f in fields(obj))
    if names is not None:
        texts = _ID_TEXT.get(type(obj))
        if texts:
            return {n: _id_text(getattr(obj, n)) if n in texts else to_plain(getattr(obj, n)) for n in names}
        return {name: to_plain(getattr(obj, name)) for name in names}
    if isinstance(obj, (list, tuple)):
        return [to_plain(v) for v in obj]
    if isinstance(obj, dict):
        return {str(k): to_plain(v) for k, v in obj.items()}
    return obj


def from_plain(cls: type[T], data: Any) -> T:
    """Build *cls* from a dict written by :func:`to_plain`; unknown keys are ignored."""
    if not isinstance(data, dict):
        raise TypeError(f"{cls.__name__}: expected an object, got {type(data).__name__}")
    nested = _NESTED.get(cls, {})
    texts = _ID_TEXT.get(cls, frozenset())
    kwargs: dict[str, Any] = {}
    for f in fields(cls):  # type: ignore[arg-type]
        if f.name not in data:
            continue
        value = data[f.name]
        sub = nested.get(f.name)
        if f.name in texts:
            if isinstance(value, list):  # a tuple of ids
                value = tuple(_parse_id(v) for v in value if isinstance(v, str))
            else:
                value = _parse_id(value) if isinstance(value, str) else None
        elif sub is not None and value is not None:
            if isinstance(value, list):
                value = tuple(from_plain(sub, v) for v in value)
            else:
                value = from_plain(sub, value)
        elif isinstance(value, list):
            value = tuple(value)
        kwargs[f.name] = value
    return cls(**kwargs)


def _id_text(cid: Any) -> Any:
    if cid is None:
        return None
    if isinstance(cid, tuple):
        return [_id_text(c) for c in cid]
    # An id that names no compile (an AOT compile's kernel) is stored as the empty text.
    return str(cid) if cid.known else ""


def _parse_id(text: str) -> Any:
    return CompileId.parse(text)
