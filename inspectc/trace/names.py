"""Frames named as the user knows them: the callable they wrote and the line that called it.

Dynamo names a frame after the code object it compiled, which in real models is often a
wrapper: transformers' ``wrapper`` (``utils/generic.py``), ``wrapped_func`` (``deprecation.py``),
torch's ``inner`` (``_dynamo/external_utils.py``), the wrapped call of ``torch.compile`` itself.
From the frame's stack (``dynamo_start``) and its guards this finds:

- the user-visible callable: ``GPT2LMHeadModel.forward`` (the class of ``self`` from its
  type guard, the method a module call runs) or the function itself when it is not a wrapper;
- the call site: the last line of the stack outside libraries (the user's ``model(x)``).

The wrapper stays the frame's ``function``; these are optional fields beside it. No torch.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from inspectc.model import Guard, StackFrame
from inspectc.model.library import in_library

# (function, path ending) of wrappers Dynamo compiles in place of the user's callable.
WRAPPERS: tuple[tuple[str, str], ...] = (
    ("wrapper", "transformers/utils/generic.py"),
    ("wrapped_func", "transformers/utils/deprecation.py"),
    ("inner", "torch/_dynamo/external_utils.py"),
)
_SELF_TYPE = re.compile(r"type=<class '(?:[\w.]*\.)?(?P<cls>\w+)'>")
# A module call runs forward through these (``model.compile()`` compiles ``_call_impl`` in
# place, so its frames are entered from ``_wrapped_call_impl`` alone).
_MODULE_CALLS = ("_call_impl", "_wrapped_call_impl")
_MODULE_FILE = "torch/nn/modules/module.py"
_NAME_EQUALS = re.compile(r"__name__ == '(?P<name>[A-Za-z_]\w*)'")
# args[0] of these types is no ``self``: a plain function was wrapped
_CALLABLE_TYPES = {"function", "method", "builtin_function_or_method", "partial"}  # fn not a module
_BUILTIN_TYPES = {"tuple", "list", "dict", "int", "float", "str", "bool", "NoneType", "Tensor", "Parameter"}


def is_wrapper(function: str | None, filename: str | None) -> bool:
    path = (filename or "").replace("\\", "/")
    return any(function == name and path.endswith(end) for name, end in WRAPPERS)


def call_site(stack: Sequence[StackFrame]) -> StackFrame | None:
    """The user's line that called into the compiled frame (the stack's last one is the frame)."""
    for entry in reversed(stack[:-1]):
        if entry.filename and not in_library(entry.filename) and not entry.filename.startswith("<"):
            return entry
    return None


# torch.export's strict trace wraps the user's module (ModuleToTrace._export_root)
EXPORT_ROOT = "L['self']._modules['_export_root']"


def callable_name(
    function: str | None,
    filename: str | None,
    stack: Sequence[StackFrame],
    guards: Sequence[Guard],
    *,
    exported: bool = False,
) -> str | None:
    """``Class.method`` or ``function`` as the user wrote it; None when it is the frame's own name
    already (nothing to add) or cannot be told. An *exported* trace's self is torch's wrapper:
    the user's module is its ``_export_root``."""
    cls = _self_class(guards, EXPORT_ROOT if exported else "L['self']")
    method = function
    if is_wrapper(function, filename):
        # the wrapped callable's own name, when Dynamo guarded on it (a decorator's ``func``)
        method = _wrapped_name(guards)
        if cls is None and method is not None:  # a method wrapped as ``func(*args)``: self is args[0]
            cls = _self_class(guards, "L['args'][0]")
        if method is None and cls is None:  # torch.compile(module) of nn.Sequential, DDP, FSDP:
            cls = _self_class(guards, "L['fn']")  # external_utils' inner(*args) calls fn, the module
            cls = None if cls in _CALLABLE_TYPES or function != "inner" else cls
            method = "forward" if cls is not None else None
        if method is None and cls is not None and (_module_call(stack) or _decorates_forward(filename)):
            method = "forward"
        if method is None:
            return None
    if not method or method.startswith("torch_dynamo_resume_in_"):
        return None
    name = f"{cls}.{method}" if cls else method
    return name if name != function else None


def _module_call(stack: Sequence[StackFrame]) -> bool:
    return any(
        s.function in _MODULE_CALLS and (s.filename or "").replace("\\", "/").endswith(_MODULE_FILE)
        for s in stack[-4:]
    )


def _decorates_forward(filename: str | None) -> bool:
    """transformers' ``utils/generic.py`` wrappers (``can_return_tuple``, ``check_model_inputs``)
    decorate models' ``forward``: generate() calls it without a module call in between."""
    return (filename or "").replace("\\", "/").endswith(WRAPPERS[0][1])


def _wrapped_name(guards: Sequence[Guard]) -> str | None:
    for guard in guards:
        if guard.source == "L['func'].__name__" and guard.kind == "EQUALS_MATCH":
            found = _NAME_EQUALS.search(guard.code or "")
            if found:
                return found.group("name")
    return None


def _self_class(guards: Sequence[Guard], source: str = "L['self']") -> str | None:
    for guard in guards:
        if guard.source == source and guard.kind == "TYPE_MATCH":
            found = _SELF_TYPE.search(guard.code or "")
            if found and found.group("cls") not in _BUILTIN_TYPES:
                return found.group("cls")
    return None
