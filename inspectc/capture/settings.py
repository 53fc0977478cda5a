"""What a capture sets on torch and what it reads back: the user's ``--config`` (applied when it
starts) and capture's own switches on Inductor (at torch's first trace record: a compile or an export starts), all undone
when it stops, so capture's never reach the run's record; the devices, and the ``RunOptions``
the run used (each torch.compile call, the registered backends, every option not at its
default). A missing touch point is recorded.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from inspectc.capture import torch_api, torch_config
from inspectc.capture.torch_api import Missing, Restore
from inspectc.model import ConfigValue, RunOptions

Record = Callable[[str], None]


def configure(*, config: dict[str, Any], options: RunOptions, record: Record) -> list[Restore]:
    """What is set when capture starts: the user's ``--config``, then ``--fresh`` and
    ``--kernel-harness``; what undoes each."""
    wanted: list[tuple[str, Callable[[], Restore | Missing]]] = []
    for key, value in config.items():
        wanted.append((f"--config {key}", _setter(key, value)))
    if options.fresh:
        wanted.append(("fresh compiles", torch_api.disable_inductor_caches))
    if options.kernel_harness:
        wanted.append(("kernel harness", torch_api.enable_benchmark_kernel))
    return _apply(wanted, record)


def compile_switches(options: RunOptions, record: Record) -> list[Restore]:
    """What capture asks of Inductor, set at torch's first trace record, a compile or an export starting (by then
    ``torch.compile`` imported Inductor: a program that compiles nothing never loads it, one
    that does pays no more); what undoes each."""
    wanted: list[tuple[str, Callable[[], Restore | Missing]]] = []
    if options.provenance:
        # Fusion groups: Inductor emits kernel <-> FX node mappings per compiled graph.
        wanted.append(("fusion groups", lambda: torch_api.enable_provenance_tracking(1)))
    if options.timings or (options.provenance and not torch_api.provenance_in_cache_key()):
        # Named C++ kernel ranges, which CPU kernel timings read: each C++ kernel's g++ compile
        # takes ~13% longer, so only when timed. Where the FX graph cache key leaves the
        # provenance level out (torch <= 2.11) it also keeps capture's cache entries apart
        # from plain runs', which have no provenance.
        wanted.append(("cpp kernel names", torch_api.enable_cpp_kernel_profile))
    return _apply(wanted, record)


def _apply(wanted: list[tuple[str, Callable[[], Restore | Missing]]], record: Record) -> list[Restore]:
    undo: list[Restore] = []
    for what, apply in wanted:
        restore = apply()
        if isinstance(restore, Missing):
            record(f"{what} not recorded: {restore.why}")
        else:
            undo.append(restore)
    return undo


def _setter(key: str, value: Any) -> Callable[[], Restore | Missing]:
    """``dynamo.X`` = value, or ``dynamo.X+=`` adds value to a set/list option."""
    return lambda: torch_config.set_config(key.removesuffix("+="), value, add=key.endswith("+="))


def undo(restores: list[Restore], record_error: Callable[[str, BaseException], None]) -> None:
    """Undo in reverse order, every one even when another fails; empties *restores*."""
    for restore in reversed(restores):
        try:
            restore()
        except Exception as exc:  # noqa: BLE001 - recorded; the other settings are still restored
            record_error("restoring torch config", exc)
    restores.clear()


def devices(record: Record) -> tuple[str, ...]:
    found = torch_api.devices()
    if isinstance(found, Missing):
        record(f"device names not recorded: {found.why}")
        return ()
    return found


def options_used(
    config: dict[str, Any], record: Record, fullgraph: dict[int, bool] | None = None
) -> dict[str, Any]:
    """RunOptions fields: the run's torch.compile calls, the registered backends, and the
    config (read after :func:`undo`, so capture's own switches are not in it)."""
    out: dict[str, Any] = {"config": config_values(config, record)}
    used = torch_config.compile_backends(fullgraph)
    if used is not None:
        out["compile_backends"] = used
    registered = torch_config.registered_backends()
    if isinstance(registered, Missing):
        record(f"registered backends not recorded: {registered.why}")
    elif registered is not None:
        out["registered_backends"] = registered
    return out


def config_values(config: dict[str, Any], record: Record) -> tuple[ConfigValue, ...]:
    """The ``--config`` settings, then what was not at its default when the run ended."""
    given = tuple(
        ConfigValue(
            key=k.removesuffix("+="), value=f"+={v}" if k.endswith("+=") else repr(v), origin="--config"
        )
        for k, v in config.items()
    )
    found = torch_config.non_default_config()  # after our own settings were put back
    if isinstance(found, Missing):
        record(f"non-default config not recorded: {found.why}")
        return given
    return given + tuple(ConfigValue(key=k, value=v, origin="run") for k, v in found)
