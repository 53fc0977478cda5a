"""Known remedies for graph breaks and recompiles: what `inspectc suggest` tries. No torch.

A remedy is either a *config* change (no code edit: ``inspectc suggest`` re-runs the script
with it and reports what changed) or a *code* change (shown with the resume function the
break created, never applied). Remedies come from three places, in this order:

1. the config lines Dynamo's own hints name (``Set `torch._dynamo.config.X = True```),
2. a small table of graph-break types and ids whose fix is a known config,
3. recompile reasons: a size that changes between calls (mark the source dynamic), and a
   recompile limit that was hit (raise it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from inspectc.analysis.costs import intended
from inspectc.analysis.views import break_groups
from inspectc.model import CONFIG_MODULES, CompileId, Failure, Frame, Run

_HINT_CONFIG = re.compile(r"torch\._dynamo\.config\.(\w+)\s*=\s*(True|False|\d+)")
_LOGGING_HINT = re.compile(r"builtin `(\w+)`.*|reorderable_logging_functions")
_BUILTIN_CALL = re.compile(r"builtin `(\w+)`")
_ARG_CLASSES = re.compile(r"builtin \w+ \[([^\]]*)\]")
_ARG_TYPES = re.compile(r"with argument types \[([^\]]*)\]")
_CONSTANT_VARIABLES = ("ConstantVariable", "StringFormatVariable")
_CONSTANT_TYPES = ("str", "int", "float", "bool", "NoneType")
_LOGGER_METHOD = re.compile(r"method: <\w*Logger [^>]*>\.(\w+)")
_TRANSFORMERS_LOGGING = ("warning_once", "info_once", "warning_advice")
_LOGGING_WHY = "Dynamo's hint (logging call: the compiled code leaves it out)"
_SIZE_MISMATCH = re.compile(r"tensor '([^']+)' (?:size|stride) mismatch at index (\d+)")
_LIMIT_HIT = re.compile(  # torch <= 2.12 names the option and its value; 2.13 "recompile limit exceeded"
    r"(recompile_limit|cache_size_limit) \((\d+)\)|hit config\.(recompile_limit|cache_size_limit)"
    r"|[Rr]ecompile limit exceeded|Limit type: (recompile_limit|cache_size_limit)"
)

# Graph-break types (Dynamo's gb_type text) whose remedy is a config switch.
_BY_TYPE: tuple[tuple[str, str, str], ...] = (
    ("Tensor.item()", "dynamo.capture_scalar_outputs", "True"),
    ("capture_scalar_outputs", "dynamo.capture_scalar_outputs", "True"),
    ("dynamic shape operator", "dynamo.capture_dynamic_output_shape_ops", "True"),
    ("capture_dynamic_output_shape_ops", "dynamo.capture_dynamic_output_shape_ops", "True"),
)
# A break torch places on purpose (analysis/costs.intended): nothing in torch's code to remove.
INTENDED_FIX = (
    "torch breaks here on purpose: compile the whole step with it (model and optimizer), or leave it"
)
# Breaks whose fix is a code change: (text in type or reason, what to do).
_CODE_FIXES: tuple[tuple[str, str], ...] = (
    ("Data-dependent branching", "make the branch a torch.cond(pred, true_fn, false_fn, operands)"),
    ("generic_jump", "make the branch a torch.cond(pred, true_fn, false_fn, operands)"),
    ("graph_break()", "remove the torch._dynamo.graph_break() call"),
    ("Attempted to call function marked as skipped", "wrap the call in a custom op or allow_in_graph"),
    ("`print`", "move the print out of the compiled function"),  # builtin (operator) `print`
    (
        "disable()`d function",  # torch.compiler.disable / torch._dynamo.disable: eager on purpose
        "the call runs eagerly (torch.compiler.disable): move it out of the compiled function, or let Dynamo trace it",
    ),
    ("open", "read the file outside the compiled function"),
    ("tolist()", "keep the values in a tensor, or call .tolist() outside the compiled function"),
)


@dataclass(frozen=True, slots=True)
class ConfigChange:
    """One ``--config`` setting: ``dynamo.capture_scalar_outputs=True``."""

    key: str  # namespace.attribute
    value: str  # a Python literal, or ``+=NAME`` for adding a builtin to a set

    @property
    def option(self) -> str:
        return f"{self.key}{self.value}" if self.value.startswith("+=") else f"{self.key}={self.value}"

    @property
    def python(self) -> str:
        """The exact line a user adds to their script."""
        namespace, _, attr = self.key.partition(".")
        module = CONFIG_MODULES.get(namespace, namespace)
        if self.value.startswith("+="):
            return f"{module}.{attr}.add({self.value[2:]})"
        return f"{module}.{attr} = {self.value}"


@dataclass(slots=True)
class Remedy:
    """A fix for some breaks or recompiles: a config change to try, or a code change to make."""

    why: str
    change: ConfigChange | None = None  # None: a code change (see ``code``)
    code: str | None = None
    targets: list[str] = field(default_factory=list)  # "break FILE:LINE" / "recompile 0/1"
    gb_ids: list[str] = field(default_factory=list)

    @property
    def key(self) -> str:
        return self.change.option if self.change else f"code: {self.code}"


def remedies(frames: list[Frame]) -> list[Remedy]:
    """Every remedy the report's breaks and recompiles point to, config changes first."""
    found: dict[str, Remedy] = {}
    breaks = [(f"break {g.user_location}", g.example) for g in break_groups(frames)]
    breaks += [  # a break fullgraph=True (or export) made fatal: the same remedies apply
        (f"failure {_where(f.failure)}", f.failure.graph_break)
        for f in frames
        if f.failure is not None and f.failure.graph_break is not None
    ]
    for where, gb in breaks:
        texts = [gb.gb_type or "", gb.reason, *gb.hints]
        for change, why in _break_configs([*texts, gb.debug_context or ""]):
            _add(found, Remedy(why=why, change=change), where, gb.gb_id)
        on_purpose = intended(gb)
        code = INTENDED_FIX if on_purpose else _code_fix(texts)
        if code:
            _add(found, Remedy(why=on_purpose or f"{gb.gb_type or gb.reason}", code=code), where, gb.gb_id)
    for change, why, where in _recompile_configs(frames):
        _add(found, Remedy(why=why, change=change), where, None)
    return sorted(found.values(), key=lambda r: (r.change is None, r.key))


def _where(failure: Failure) -> str:
    """Where a fatal break happened: its own location, else the failed frame's."""
    gb = failure.graph_break
    filename, line = (gb.filename, gb.line) if gb and gb.filename else (failure.filename, failure.line)
    if filename is None:
        return "?"
    return f"{filename}:{line}" if line is not None else filename


def _add(found: dict[str, Remedy], remedy: Remedy, target: str, gb_id: str | None) -> None:
    kept = found.setdefault(remedy.key, remedy)
    if target not in kept.targets:
        kept.targets.append(target)
    if gb_id and gb_id not in kept.gb_ids:
        kept.gb_ids.append(gb_id)


def _break_configs(texts: Iterable[str]) -> list[tuple[ConfigChange, str]]:
    out: list[tuple[ConfigChange, str]] = []
    joined = "\n".join(texts)
    for attr, value in _HINT_CONFIG.findall(joined):
        out.append((ConfigChange(f"dynamo.{attr}", value), "Dynamo's hint"))
    for needle, key, value in _BY_TYPE:
        if needle in joined:
            out.append((ConfigChange(key, value), f"known remedy for {needle!r}"))
    if "reorderable_logging_functions" in joined and _constant_arguments(joined):
        name = next(iter(_BUILTIN_CALL.findall(joined)), "print")
        out.append(
            (
                ConfigChange("dynamo.reorderable_logging_functions", f"+={name}"),
                "Dynamo's hint (logging call)",
            )
        )
    if "ignore_logging_functions" in joined:
        out.append(
            (ConfigChange("dynamo.ignore_logging_functions", f"+={_logging_target(joined)}"), _LOGGING_WHY)
        )
    unique: dict[ConfigChange, str] = {}
    for change, why in out:
        unique.setdefault(change, why)
    return list(unique.items())


def _constant_arguments(text: str) -> bool:
    """Whether the logging call's arguments are all constants: only those Dynamo reorders here.

    The debug context lists the argument variables (``builtin print [<class '...ConstantVariable'>]``);
    a tensor's ``.shape`` (SizeVariable) or any other object makes Dynamo refuse to reorder it
    ("can't actually be reordered"), so the remedy would not help. Older torch without the context:
    the explanation's Python type names (``with argument types ['str', 'Size']``)."""
    classes = _ARG_CLASSES.search(text)
    if classes is not None:
        names = re.findall(r"\.(\w+)'>", classes.group(1))
        return all(name in _CONSTANT_VARIABLES for name in names)
    types = _ARG_TYPES.search(text)
    if types is not None:
        return all(name in _CONSTANT_TYPES for name in re.findall(r"'(\w+)'", types.group(1)))
    return False


def _logging_target(text: str) -> str:
    """The logging function to ignore, from the break's debug context (``<Logger x>.warning``).

    transformers' ``warning_once``/``info_once``/``warning_advice`` are its own functions set on
    ``logging.Logger`` when ``transformers.utils.logging`` is imported; naming them by that module
    makes the name importable before the script runs."""
    found = _LOGGER_METHOD.search(text)
    method = found.group(1) if found else "warning"
    if method in _TRANSFORMERS_LOGGING:
        return f"transformers.utils.logging.{method}"
    return f"logging.Logger.{method}"


def _code_fix(texts: list[str]) -> str | None:
    head = "\n".join(texts[:2])
    for needle, fix in _CODE_FIXES:
        if needle in head:
            return fix
    return None


def _recompile_configs(frames: list[Frame]) -> list[tuple[ConfigChange, str, str]]:
    out: list[tuple[ConfigChange, str, str]] = []
    sources: dict[str, list[CompileId]] = {}
    limit_hit: list[CompileId] = []
    for frame in frames:
        for rec in frame.recompiles:
            # every cache entry's failed guard: when the newest entry was compiled under another
            # grad mode ("GLOBAL_STATE changed"), an older one's size mismatch is the call's
            texts = "\n".join(f.text for f in rec.failed_guards)
            for source, _index in _SIZE_MISMATCH.findall(texts):
                ids = sources.setdefault(_source_expr(source), [])
                cid = frame.compile_id.without_rank()  # the same compile on every rank counts once
                if cid not in ids:  # one recompile can list a guard per cache entry
                    ids.append(cid)
            if _LIMIT_HIT.search(rec.text):
                limit_hit.append(frame.compile_id)
        if frame.failure and frame.failure.reason and _LIMIT_HIT.search(frame.failure.reason):
            limit_hit.append(frame.compile_id)
    for source, ids in sources.items():
        where = f"recompile {ids[0]}" + (f" (+{len(ids) - 1})" if len(ids) > 1 else "")
        out.append(
            (ConfigChange("compiler.dynamic_sources", repr(source)), f"size of {source} changes", where)
        )
    if limit_hit:
        out.append(
            (ConfigChange("dynamo.recompile_limit", "64"), "recompile limit hit", f"frame {limit_hit[0]}")
        )
    return out


def _source_expr(name: str) -> str:
    """Recompile reasons name a local ``x`` or ``args[0]``; dynamic_sources wants Dynamo's
    ``L['x']``, ``L['args'][0]`` (matched from the start: ``args[0]`` never matches)."""
    if name.startswith(("L[", "G[")):
        return name
    base, bracket, rest = name.partition("[")
    if not base.isidentifier():
        return name if bracket else f"L['{name}']"
    return f"L['{base}']{bracket}{rest}"


def as_plain(frames: list[Frame]) -> list[dict[str, object]]:
    """The JSON export's ``suggestions``: one object per remedy, config changes first."""
    return [
        {
            "kind": "config" if r.change else "code",
            "why": r.why,
            "config": r.change.option if r.change else None,
            "python": r.change.python if r.change else None,
            "code_change": r.code,
            "targets": list(r.targets),
            "gb_ids": list(r.gb_ids),
        }
        for r in remedies(frames)
    ]


def can_suggest(run: Run) -> bool:
    """Whether ``inspectc suggest`` can re-run what made this report (an ``inspectc run`` of a
    script or module; a notebook's ``inspectc.capture()`` has no command to re-run)."""
    return run.mode in ("script", "module")


def by_break(frames: list[Frame]) -> dict[tuple[str | None, int | None], list[Remedy]]:
    """The remedies for each graph break's (filename, line): the TUI shows them beside it."""
    found = remedies(frames)
    out: dict[tuple[str | None, int | None], list[Remedy]] = {}
    for group in break_groups(frames):
        target = f"break {group.location}"
        out[(group.filename, group.line)] = [r for r in found if target in r.targets]
    return out
