"""Parse Dynamo's guard dump (the ``dynamo_cpp_guards_str`` payload) into guard entries.

Since torch 2.4 the payload is the C++ guard manager's tree::

    TREE_GUARD_MANAGER:
    +- RootGuardManager
    | +- GuardManager: source=L['x'], accessed_by=FrameLocalsGuardAccessor(...), type=...
    | | +- TENSOR_MATCH: check_tensor(L['x'], ...)  # x = torch.sin(x)  # exp/gb.py:3 in f
    +- LAMBDA_GUARD: ...   (relational guards hang off the root, at depth 0)
    Guard latency = 15.88 us

Leaves are the guards; manager nodes (``GuardManager``, ``DictGuardManager``, ``KeyManager:
GuardManager: ...``, ``KeyValueManager pair at index=0``) only give leaves their ``source``.
Older torch printed plain Python guard code, one check a line (``___check_type_id(L['x'],
94...)``); such lines are read as depth-0 entries with a kind guessed from the call.

Returns ``model.Guard`` entries (hint and function included). Stdlib only and tolerant: lines
that cannot be read are skipped, nothing raises.
"""

from __future__ import annotations

import json
import re

from inspectc.model import Guard

__all__ = ["count_guards", "guard_latency_us", "parse_guards"]


_TREE_LINE = re.compile(r"^((?:\| )*)\+- (.*)$", re.DOTALL)
_SOURCE = re.compile(r"\bsource=(.*?)(?:, accessed_by=|, type=|$)")
_LOCATION = re.compile(
    r"\s*# (?P<file>[^#]*?):(?P<line>\d{1,18}) in (?P<func>\S+)(?: \((?P<note>[^#]*)\))?\s*$"
)
_HINT = re.compile(r"\s*\(HINT: (?P<hint>.*)\)\s*$")
_COMMENT = re.compile(r"\s+#(?: |$)")
_HEADERS = ("TREE_GUARD_MANAGER:", "GUARDS:", "Guard latency =", "Guard eval latency =")
_KIND_OF_CALL = (
    ("___check_type_id(", "TYPE_MATCH"),
    ("___check_obj_id(", "ID_MATCH"),
    ("check_tensor(", "TENSOR_MATCH"),
    ("___check_tensors(", "TENSOR_MATCH"),
    ("___dict_contains(", "DICT_CONTAINS"),
    ("___check_global_state(", "GLOBAL_STATE"),
    ("___check_torch_function_mode_stack(", "TORCH_FUNCTION_MODE_STACK"),
    ("utils_device.CURRENT_DEVICE", "DEFAULT_DEVICE"),
    ("hasattr(", "HASATTR"),
    ("len(", "LENGTH_CHECK"),
)


def _logical_lines(text: str) -> list[str]:
    """The dump's lines, a tree line and the lines that continue it joined: torch 2.11/2.12
    print ``type=<repr(obj)>`` after a guard, and an optimizer's or a Parameter's repr spans
    lines (its tensor values). Before the tree, and in the older plain format, a line is one."""
    out: list[str] = []
    in_tree = False
    for raw in text.splitlines():
        line = raw.rstrip()
        if _TREE_LINE.match(line) is not None:
            in_tree = True
            out.append(line)
        elif in_tree and out and line.strip() and not line.lstrip().startswith(_HEADERS):
            out[-1] += "\n" + line
        else:
            in_tree = in_tree and not line.lstrip().startswith(_HEADERS)
            out.append(line)
    return out


def parse_guards(text: str) -> list[Guard]:
    """The leaf guards of a guard dump, in printed order."""
    entries: list[Guard] = []
    sources: list[str | None] = []  # the source of the manager open at each depth
    for line in _logical_lines(text):
        tree = _TREE_LINE.match(line)
        if tree is None:
            entry = _plain_guard(line)
            if entry is not None:
                entries.append(entry)
            continue
        depth, body = len(tree.group(1)) // 2, tree.group(2)
        del sources[depth:]
        if _is_manager(body):
            sources.extend([None] * (depth - len(sources)))
            found = _SOURCE.search(body)
            sources.append(found.group(1).strip() if found else None)
            continue
        source = next((s for s in reversed(sources[:depth]) if s is not None), None)
        entries.append(_leaf(body, depth, source))
    return entries


def parse_guard_list(payload: str | None) -> tuple[Guard, ...] | None:
    """Older torch's ``dynamo_guards``: a JSON list of ``{code, stack, user_stack}``; None when
    the payload is not such a list."""
    try:
        items = json.loads(payload or "")
    except ValueError:
        return None
    if not isinstance(items, list):
        return None
    found = []
    for item in items:
        code = item.get("code") if isinstance(item, dict) else None
        if isinstance(code, str) and code.strip():
            found.append(_plain_guard(code.strip()) or Guard(kind="CODE", source=None, code=code.strip()))
    return tuple(found)


def count_guards(text: str) -> int:
    """How many leaf guards the dump holds (what ``parse_guards`` would return)."""
    return len(parse_guards(text))


def guard_latency_us(text: str) -> float | None:
    """The "Guard latency = 15.88 us" torch appends to the dump, when present."""
    found = re.search(r"Guard(?: eval)? latency = ([0-9.]+) us", text)
    try:
        return float(found.group(1)) if found else None
    except ValueError:
        return None


def _is_manager(body: str) -> bool:
    head = body.split(":", 1)[0].split(" ", 1)[0]
    return head.endswith("Manager")


def _leaf(body: str, depth: int, source: str | None) -> Guard:
    kind, separator, rest = body.partition(": ")
    if not separator:
        kind, rest = body.strip(), ""
    return _entry(kind.strip() or "CODE", rest, depth, source)


def _plain_guard(line: str) -> Guard | None:
    """A line of the older Python guard format (or anything else that is not the tree)."""
    text = line.strip().removeprefix("- ").strip()
    if not text or text.startswith(_HEADERS):
        return None
    code = text.split("  #", 1)[0]
    kind = next((k for call, k in _KIND_OF_CALL if call in code), "CODE")
    return _entry(kind, text, 0, None)


def _entry(kind: str, rest: str, depth: int, source: str | None) -> Guard:
    hint = _HINT.search(rest)
    note = hint.group("hint") if hint else None
    if hint is not None:
        rest = rest[: hint.start()]
    location = _LOCATION.search(rest)
    if location is None:  # a comment without "file:line in fn" is torch's note, not user code
        code, comment = _split_comment(rest.removesuffix("# <unknown>"))
        return Guard(
            kind=kind,
            source=source,
            code=code,
            user_code=None,
            filename=None,
            line=None,
            depth=depth,
            hint=note or comment,
        )
    code, user_code = _split_comment(rest[: location.start()])
    return Guard(
        kind=kind,
        source=source,
        code=code,
        user_code=user_code,
        filename=location.group("file"),
        line=int(location.group("line")),
        depth=depth,
        function=location.group("func"),
        hint=note or location.group("note"),
    )


def _split_comment(text: str) -> tuple[str, str | None]:
    """The guard code and the user's line in "code  # user line" (the line may be empty)."""
    parts = _COMMENT.split(text, maxsplit=1)
    user_code = parts[1].strip() if len(parts) > 1 else ""
    return parts[0].strip(), user_code or None
