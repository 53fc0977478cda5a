"""torch.compile's options as private torch holds them, one small function each (the other
touch points are in :mod:`inspectc.capture.torch_api`, with the same rules): the config
modules (``--config`` settings, what the run left non-default) and the backends each
``torch.compile`` call asked for (mode, dynamic, fullgraph). No torch is imported here.
"""

from __future__ import annotations

import importlib
import sys
import warnings
from types import FrameType
from typing import Any

from inspectc.capture.torch_api import Missing, Restore
from inspectc.model import CONFIG_MODULES, CompileBackend

# -- user config (``inspectc run --config``) and what the run left non-default ----------------


def set_config(key: str, value: Any, *, add: bool = False) -> Restore | Missing:
    """Set ``dynamo.NAME`` / ``inductor.SECTION.NAME`` / ``compiler.NAME`` to *value*.

    With *add*, *value* names a builtin (or ``module.attr``) added to the set or list the
    option holds (``dynamo.reorderable_logging_functions+=print``). The returned function
    puts the old value back.
    """
    namespace, _, dotted = key.partition(".")
    module_name = CONFIG_MODULES.get(namespace)
    if module_name is None or not dotted:
        return Missing(f"{key}: not a dynamo., inductor. or compiler. option")
    try:
        target: Any = importlib.import_module(module_name)
    except ImportError as exc:
        return Missing(f"cannot import {module_name} ({exc})")
    *sections, name = dotted.split(".")
    for section in sections:
        target = getattr(target, section, None)
        if target is None:
            return Missing(f"this torch has no {module_name}.{dotted}")
    if not hasattr(target, name):
        return Missing(f"this torch has no {module_name}.{dotted}")
    old = getattr(target, name)
    if add:
        import builtins

        found = getattr(builtins, str(value), None)
        if found is None and "." in str(value):
            found = _dotted(str(value))
        if found is None:
            return Missing(f"{key}+={value}: no builtin or importable name {value!r}")
        if isinstance(old, set):
            new: Any = {*old, found}
        elif isinstance(old, (list, tuple)):
            new = type(old)([*old, found])
        else:
            return Missing(f"{key}: holds a {type(old).__name__}, not a set or list to add to")
    else:
        new = value
    try:
        setattr(target, name, new)
    except (TypeError, ValueError, AssertionError) as exc:  # the config module checks types
        return Missing(f"{key}={value!r} refused by torch ({exc})")
    return lambda: setattr(target, name, old)


def _dotted(name: str) -> Any:
    """The object a dotted name names: a module's attribute, or a class's (``logging.Logger.warning``)."""
    parts = name.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            found: Any = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            found = getattr(found, attr, None)
            if found is None:
                return None
        return found
    return None


def check_config(config: dict[str, Any]) -> str | None:
    """Why one of ``--config``'s settings cannot be made on this torch (tried, then undone)."""
    for key, value in config.items():
        done = set_config(key.removesuffix("+="), value, add=key.endswith("+="))
        if isinstance(done, Missing):
            return f"--config {key.removesuffix('+=')}: {done.why}"
        done()
    return None


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - an odd __eq__: then it is not the same
        return False


def non_default_config() -> list[tuple[str, str]] | Missing:
    """Every Dynamo, Inductor and torch.compiler option not at its default: (key, repr).

    Only the config modules the run loaded: one it never imported held nothing it used (and
    importing ``torch._dynamo.config`` loads all of Dynamo, seconds, after the program ended).
    """
    out: list[tuple[str, str]] = []
    for namespace, module_name in CONFIG_MODULES.items():
        module: Any = sys.modules.get(module_name)
        if module is None:
            continue
        try:
            entries = module._config
            is_default = module._is_default
        except AttributeError as exc:
            return Missing(f"{module_name} lists no options ({exc})")
        for name in sorted(entries):
            if getattr(entries[name], "deprecated", False) or getattr(
                entries[name], "deprecation_message", None
            ):
                continue  # deprecated: reading it warns, and it does nothing
            try:
                if is_default(name):  # first: most options are, and reading one can copy its default
                    continue
                with warnings.catch_warnings():  # never a line on the user's stderr
                    warnings.simplefilter("ignore")
                    value = getattr(module, name)
                # _is_default is False once an option was set, even back to its default
                if _same(value, getattr(entries[name], "default", None)):
                    continue
            except (AttributeError, KeyError, TypeError):  # an alias or a removed entry
                continue
            text = repr(value)
            out.append((f"{namespace}.{name}", text if len(text) <= 300 else text[:297] + "..."))
    return out


# -- backends -----------------------------------------------------------------------------------
def note_fullgraph(seen: dict[int, bool], scanned: set[int]) -> None:
    """While a compile starts its ``OptimizeContext`` is alive: read ``fullgraph`` into *seen*.

    The compiling call's own context is on the stack (the ``self`` of Dynamo's wrapper in
    ``eval_frame.py``): read there, at every compile, for the cost of a stack walk. Where it is
    not (``torch._dynamo.optimize`` used as a context manager), the live objects are scanned,
    once per new backend (a compiled function freed before the run ends would otherwise be lost).
    """
    eval_frame = sys.modules.get("torch._dynamo.eval_frame")
    cached = getattr(eval_frame, "cached_backends", None)
    if not isinstance(cached, dict):
        return
    context_type = getattr(eval_frame, "OptimizeContext", None)
    found = _fullgraph_on_stack(context_type, getattr(eval_frame, "__file__", None))
    if not found:
        if scanned.issuperset(cached):
            return
        scanned.update(cached)
        found = _fullgraph_by_backend(context_type)
    for key, flag in found.items():
        seen[key] = seen.get(key, False) or flag


def compile_backends(seen: dict[int, bool] | None = None) -> tuple[CompileBackend, ...] | None:
    """The ``torch.compile`` calls of the run: backend, its options, mode, dynamic, fullgraph.
    None when nothing compiled.

    Each call leaves an ``OptimizeContext`` (``fullgraph``, its callback wrapping the backend
    in ``_torchdynamo_orig_backend``); ``torch._dynamo.eval_frame.cached_backends`` holds every
    backend (Inductor's ``_TorchCompileInductorWrapper`` carries ``compiler_name``, ``config``
    and ``dynamic``). The contexts are found among live objects at the end, and in *seen*
    (:func:`note_fullgraph` at each new backend's first compile).
    """
    eval_frame = sys.modules.get("torch._dynamo.eval_frame")
    cached = getattr(eval_frame, "cached_backends", None)
    if not isinstance(cached, dict):
        return None
    fullgraph = dict(seen or {})
    if any(b is not None and id(b) not in fullgraph for b in cached.values()):
        # a backend never seen compiling: its context can only be found among live objects
        for key, flag in _fullgraph_by_backend(getattr(eval_frame, "OptimizeContext", None)).items():
            fullgraph[key] = fullgraph.get(key, False) or flag
    with warnings.catch_warnings():  # reading a backend's config warns of deprecated keys
        warnings.simplefilter("ignore")
        return _backends(list(cached.values()), fullgraph)


def _backends(backends: list[object], fullgraph: dict[int, bool]) -> tuple[CompileBackend, ...]:
    used: list[CompileBackend] = []
    for backend in backends:
        if backend is None:
            continue
        name = getattr(backend, "compiler_name", None) or getattr(backend, "__name__", None)
        config = getattr(backend, "config", None) or getattr(backend, "kwargs", None)
        options = {str(k): _plain(v) for k, v in config.items()} if isinstance(config, dict) else {}
        dynamic = getattr(backend, "dynamic", None)
        entry = CompileBackend(
            name=str(name or type(backend).__name__),
            options=options,
            dynamic=None if dynamic is None else bool(dynamic),
            mode=_inductor_mode(options) if name == "inductor" else None,
            fullgraph=fullgraph.get(id(backend)),
        )
        if entry not in used:
            used.append(entry)
    return tuple(used)


def _fullgraph_by_backend(context_type: object) -> dict[int, bool]:
    """id(backend) -> fullgraph, from the live ``OptimizeContext`` objects (a scan of every
    object the garbage collector tracks: ~0.1-0.3 s in a process that compiled)."""
    import gc

    if not isinstance(context_type, type):
        return {}
    found: dict[int, bool] = {}
    for obj in gc.get_objects():
        if type(obj) is context_type:  # type(): a weak proxy's isinstance() may raise
            _note_context(obj, found)
    return found


def _fullgraph_on_stack(context_type: object, eval_frame_file: str | None) -> dict[int, bool]:
    """id(backend) -> fullgraph of the innermost ``OptimizeContext`` whose wrapper
    (``compile_wrapper``, a closure over the context as ``self``) is on this thread's stack."""
    if not isinstance(context_type, type) or not eval_frame_file:
        return {}
    found: dict[int, bool] = {}
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename == eval_frame_file:
            context = frame.f_locals.get("self")
            if type(context) is context_type:
                _note_context(context, found)
                break
        frame = frame.f_back
    return found


def _note_context(context: object, found: dict[int, bool]) -> None:
    backend = getattr(context, "callback", None)
    for _ in range(8):  # CatchErrorsWrapper -> ConvertFrame(Assert) -> the backend
        inner = getattr(backend, "_torchdynamo_orig_backend", None)
        if inner is None:
            break
        backend = inner
    flag = getattr(context, "fullgraph", None)
    if backend is not None and isinstance(flag, bool):
        found[id(backend)] = found.get(id(backend), False) or flag


def _inductor_mode(options: dict[str, Any]) -> str | None:
    """The mode whose options Inductor applied (the largest that fits), "default" for none."""
    inductor = sys.modules.get("torch._inductor")
    list_mode_options = getattr(inductor, "list_mode_options", None)
    if list_mode_options is None:
        return None
    modes = list_mode_options()
    fits = [m for m, opts in modes.items() if all(options.get(k) == v for k, v in opts.items())]
    return max(fits, key=lambda m: len(modes[m]), default=None)


def registered_backends() -> tuple[str, ...] | Missing | None:
    """``torch._dynamo.list_backends()``: None when Dynamo was never imported."""
    dynamo = sys.modules.get("torch._dynamo")
    if dynamo is None:
        return None
    list_backends = getattr(dynamo, "list_backends", None)
    if list_backends is None:
        return Missing("this torch has no torch._dynamo.list_backends")
    try:
        return tuple(str(b) for b in list_backends())
    except (ImportError, RuntimeError) as exc:  # a registered backend's entry point failed to load
        return Missing(f"torch._dynamo.list_backends() failed: {type(exc).__name__}: {exc}")


def _plain(value: Any) -> Any:
    return value if isinstance(value, (bool, int, float, str, type(None))) else repr(value)
