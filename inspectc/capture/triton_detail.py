"""Triton kernels' compiled stages, compile metadata and launches; C++ kernels' build (capture).

Inductor launches every Triton kernel through ``CachingAutotuner.run``; after its first run
the autotuner holds one launcher with the chosen config and Triton's binary metadata
(``n_regs``, ``n_spills``, ``shared``, ``cache_hash``). :class:`KernelDetails` wraps that
method while capture runs (restored at stop) and, per autotuner:

- at the first launch: the config, the metadata, and the stages Triton wrote to its cache
  (``<TRITON_CACHE_DIR>/<cache_hash>/<name>.{ttir,ttgir,llir,ptx,cubin}``), read once;
  nothing is compiled again and nothing that runs changes;
- at every launch (cheap: shapes and strides of the tensor arguments): a launch whose
  signature differs from those seen is recorded, up to ``LAUNCH_CAP`` per kernel.

Each cubin is disassembled (``nvdisasm -g -c``, else ``cuobjdump -sass``, where on PATH) in the
background as soon as it is read: :class:`Disassembler` (``sass.py``), four daemon threads that each run one
subprocess at a time and end when idle, so the user's loop never waits on it. At stop capture
waits only for what is still running, until ``SASS_WAIT_S``; a kernel whose disassembly missed
that is marked "SASS not recorded: disassembly did not finish in N s" and its process killed.
It writes one ``inspectc_kernel_detail`` event per kernel, and an ``inspectc_cpu_build`` event
(vector ISA, compile command) where Inductor built C++ kernels.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import sys
from collections.abc import Callable
from typing import Any

from inspectc.capture.sass import Disassembler, Job
from inspectc.model.irmap import kernel_file
from inspectc.model.kernel_detail import (
    CPU_BUILD_EVENT,
    DETAIL_EVENT,
    IR_CAP_CHARS,
    LAUNCH_CAP,
)

STAGE_SUFFIXES = ("ttir", "ttgir", "llir", "ptx")
# At stop, for what still runs. 1 s: on an H200 the 92 resnet18 cubins took 7.8 s when the
# process stopped right after its first training step (their first launches come at the end of
# compile, so the background had nothing to overlap): waiting for all would be ~19% of compile.
SASS_WAIT_S = float(os.environ.get("INSPECTC_SASS_WAIT_S", "1") or 1)
CHECK_CALLS = 4096  # launches per kernel whose signature is compared; then every 64th
CONFIG_CHECKS = 3  # launches per kernel at which the running launcher's config is compared


class _Entry:
    __slots__ = ("detail", "signatures", "calls", "cubin", "dropped", "sass")

    def __init__(self, detail: dict[str, Any]) -> None:
        self.detail = detail
        self.signatures: dict[tuple[Any, ...], dict[str, Any]] = {}
        self.calls = 0
        self.cubin: bytes | None = None
        self.dropped = 0
        self.sass: Job | None = None  # its cubin's disassembly, started when the cubin was read


class KernelDetails:
    def __init__(self, record_error: Callable[[str], None]) -> None:
        self._record = record_error
        self._entries: dict[int, _Entry] = {}
        self._keep: list[Any] = []  # the autotuners themselves: ids stay unique while we run
        self._cls: Any = None
        self._orig: Any = None
        self._sass_off = os.environ.get("INSPECTC_SASS", "1") == "0"
        tools = (
            [] if self._sass_off else [t for t in (shutil.which("nvdisasm"), shutil.which("cuobjdump")) if t]
        )
        self._sass = Disassembler(tools) if tools else None
        self.sass_wait_s: float | None = None  # what stop waited for disassembly (benchmarks read it)

    def start(self) -> bool:
        try:
            from torch._inductor.runtime.triton_heuristics import CachingAutotuner
        except Exception as exc:  # noqa: BLE001 - no triton here: nothing to record
            self._record(f"Triton kernel stages not recorded: {type(exc).__name__}: {exc}")
            return False
        orig = CachingAutotuner.run
        details = self

        def run(self: Any, *args: Any, **kwargs: Any) -> Any:
            result = orig(self, *args, **kwargs)
            try:
                details._seen(self, args)
            except Exception as exc:  # noqa: BLE001 - recorded; the launch went through
                details._record(f"Triton kernel detail: {type(exc).__name__}: {exc}")
            return result

        run.__wrapped__ = orig  # type: ignore[attr-defined]
        self._cls, self._orig = CachingAutotuner, orig
        CachingAutotuner.run = run  # type: ignore[method-assign]
        return True

    def stop(self) -> None:
        if self._cls is not None:
            self._cls.run = self._orig
            self._cls = None

    # -- per launch ------------------------------------------------------------------------
    def _seen(self, tuner: Any, args: tuple[Any, ...]) -> None:
        entry = self._entries.get(id(tuner))
        if entry is None:
            entry = self._first(tuner)
            self._entries[id(tuner)] = entry
            self._keep.append(tuner)
        entry.calls += 1
        if 1 < entry.calls <= CONFIG_CHECKS:
            self._recheck(tuner, entry)
        if entry.calls > CHECK_CALLS and entry.calls % 64:
            return
        sig = tuple(
            (tuple(a.shape), a.stride(), a.dtype) if hasattr(a, "stride") else a
            for a in args
            if not callable(a)
        )
        seen = entry.signatures.get(sig)
        if seen is not None:
            seen["count"] += 1
            return
        if len(entry.signatures) >= LAUNCH_CAP:
            entry.dropped += 1
            return
        names = list(entry.detail.get("signature_names") or [])
        entry.signatures[sig] = {
            "args": [_arg(a, names[i] if i < len(names) else None) for i, a in enumerate(args)],
            "count": 1,
        }

    def _recheck(self, tuner: Any, entry: _Entry) -> None:
        """The launcher that runs now, if it is not the one read at the first launch (seen on
        torch 2.11: the first launch's ``launchers[0]`` was not the config the later launches
        ran with): its config, metadata and stages replace the first ones, which stay noted."""
        launchers = getattr(tuner, "launchers", None) or []
        if entry.calls == CONFIG_CHECKS:
            entry.detail["launchers_at_check"] = [_config(getattr(x, "config", None)) for x in launchers]
        if len(launchers) != 1 or _config(getattr(launchers[0], "config", None)) == entry.detail.get(
            "config"
        ):
            return
        launcher = launchers[0]
        first = {k: entry.detail.get(k) for k in ("config", "n_regs", "cache_hash")}
        fresh = self._read(tuner, launcher)
        fresh.detail["config_at_first_launch"] = first
        fresh.signatures, fresh.calls, fresh.dropped = entry.signatures, entry.calls, entry.dropped
        entry.detail, entry.cubin, entry.sass = fresh.detail, fresh.cubin, fresh.sass

    def _first(self, tuner: Any) -> _Entry:
        launchers = getattr(tuner, "launchers", None) or []
        entry = self._read(tuner, launchers[0] if launchers else None)
        entry.detail["launchers_at_first_launch"] = [_config(getattr(x, "config", None)) for x in launchers]
        return entry

    def _read(self, tuner: Any, launcher: Any) -> _Entry:
        cfg = getattr(launcher, "config", None)
        meta = getattr(tuner, "triton_meta", {}) or {}
        inductor_meta = getattr(tuner, "inductor_meta", {}) or {}
        fn = getattr(tuner, "fn", None)
        name = inductor_meta.get("kernel_name") or getattr(fn, "__name__", "?")
        pyfile = getattr(tuner, "filename", None) or _code_file(fn)  # None once pickled from a worker
        detail: dict[str, Any] = {
            "name": name,
            "language": "triton",
            "python_file": pyfile,
            "python_source": _read_text(pyfile),
            "config": _config(cfg),
            "candidates": len(getattr(tuner, "configs", ()) or ()) or None,
            "num_warps": getattr(cfg, "num_warps", None),
            "num_stages": getattr(cfg, "num_stages", None),
            "n_regs": _int(getattr(launcher, "n_regs", None)),
            "n_spills": _int(getattr(launcher, "n_spills", None)),
            "shared": _int(getattr(launcher, "shared", None)),
            "cache_hash": getattr(launcher, "cache_hash", None),
            "grid_type": inductor_meta.get("grid_type"),
            "device": _device(getattr(tuner, "device_props", None) or meta.get("device")),
            # what run() is passed: every parameter but the config's block sizes (a numel
            # Inductor specialised is a constexpr and still passed)
            "signature_names": [
                k for k in (meta.get("signature") or {}) if k not in _config(cfg).get("kwargs", {})
            ],
        }
        entry = _Entry(detail)
        stages, truncated, missing, cubin = _stages(launcher, detail["cache_hash"], str(name))
        detail.update(stages=stages, truncated=truncated, missing=missing)
        if not detail["python_source"] and stages:  # the file the stages' locations name
            located = kernel_file(stages.get("ttir") or next(iter(stages.values())))
            detail.update(python_file=located, python_source=_read_text(located))
        entry.cubin = cubin
        if cubin is not None and self._sass is not None:
            entry.sass = self._sass.submit(cubin)  # in the background, from now
        return entry

    # -- at stop -----------------------------------------------------------------------------
    def events(self) -> list[tuple[dict[str, Any], str]]:
        """One (metadata, payload) per kernel, SASS added where a disassembler is on PATH."""
        if self._sass is not None:  # wait only for what still runs, until SASS_WAIT_S
            jobs = [e.sass for e in self._entries.values() if e.sass is not None]
            self.sass_wait_s = self._sass.close(jobs, SASS_WAIT_S)
        out: list[tuple[dict[str, Any], str]] = []
        for entry in self._entries.values():
            detail = dict(entry.detail)
            detail.pop("signature_names", None)
            detail["launches"] = [
                {"args": s["args"], "count": s["count"], "source": "runtime"}
                for s in entry.signatures.values()
            ]
            detail["launches_dropped"] = entry.dropped
            missing = dict(detail.get("missing") or {})
            if entry.cubin is None:
                missing.setdefault("sass", "no cubin in Triton's cache")
            elif self._sass_off:
                missing["sass"] = "not disassembled (INSPECTC_SASS=0)"
            elif self._sass is None:
                missing["sass"] = "neither nvdisasm nor cuobjdump on PATH"
            elif entry.sass is None or not entry.sass.done.is_set():
                missing["sass"] = (
                    f"SASS not recorded: disassembly did not finish in {SASS_WAIT_S:g} s"
                    " (INSPECTC_SASS_WAIT_S=30 waits longer at the end of the run)"
                )
            else:
                text, why = entry.sass.result
                if text is not None:
                    _put(detail, "sass", text)
                else:
                    missing["sass"] = why
            detail["missing"] = missing
            out.append(({DETAIL_EVENT: {"name": detail["name"], "version": 1}}, json.dumps(detail)))
        return out


def _put(detail: dict[str, Any], stage: str, text: str) -> None:
    stages = detail.setdefault("stages", {})
    used = sum(len(t) for t in stages.values())
    left = max(IR_CAP_CHARS - used, 0)
    if len(text) > left:
        detail.setdefault("truncated", {})[stage] = len(text)
        text = text[:left]
    stages[stage] = text


def _stages(
    launcher: Any, cache_hash: str | None, name: str
) -> tuple[dict[str, str], dict[str, int], dict[str, str], bytes | None]:
    stages: dict[str, str] = {}
    truncated: dict[str, int] = {}
    missing: dict[str, str] = {}
    folder = _cache_folder(cache_hash)
    asm = getattr(getattr(launcher, "bin", None), "asm", None)
    used = 0
    for stage in STAGE_SUFFIXES:
        text: str | None = None
        if folder is not None:
            text = _read_text(os.path.join(folder, f"{name}.{stage}"))
        if text is None and asm is not None:
            try:
                value = asm.get(stage) if hasattr(asm, "get") else None
            except Exception:  # noqa: BLE001 - a lazily loaded stage that is not there
                value = None
            text = value if isinstance(value, str) else None
        if text is None:
            missing[stage] = "not in Triton's cache" if folder else "Triton's cache folder not found"
            continue
        left = max(IR_CAP_CHARS - used, 0)
        if len(text) > left:
            truncated[stage] = len(text)
            text = text[:left]
        stages[stage] = text
        used += len(text)
    cubin: bytes | None = None
    if folder is not None:
        try:
            with open(os.path.join(folder, f"{name}.cubin"), "rb") as fh:
                cubin = fh.read()
        except OSError:
            cubin = None
    return stages, truncated, missing, cubin


def _cache_folder(cache_hash: str | None) -> str | None:
    if not cache_hash:
        return None
    roots: list[str] = []
    if os.environ.get("TRITON_CACHE_DIR"):
        roots.append(os.environ["TRITON_CACHE_DIR"])
    try:
        from torch._inductor.runtime.cache_dir_utils import triton_cache_dir

        roots.append(triton_cache_dir(0))
    except Exception:  # noqa: BLE001,S110 - another torch: the other roots are tried
        pass
    try:
        from triton import knobs

        roots.append(str(knobs.cache.dir))
    except Exception:  # noqa: BLE001,S110 - older triton
        pass
    roots.append(os.path.join(os.path.expanduser("~"), ".triton", "cache"))
    for root in roots:
        path = os.path.join(root, cache_hash)
        if os.path.isdir(path):
            return path
    for root in roots:  # Inductor's per-device folders
        hits = glob.glob(os.path.join(root, "*", cache_hash)) + glob.glob(
            os.path.join(root, "..", "*", cache_hash)
        )
        if hits:
            return hits[0]
    return None


def _arg(value: Any, name: str | None) -> dict[str, Any]:
    if hasattr(value, "stride") and hasattr(value, "dtype"):
        return {
            "kind": "tensor",
            "name": name,
            "shape": list(value.shape),
            "stride": list(value.stride()),
            "dtype": str(value.dtype).removeprefix("torch."),
            "device": str(value.device),
            "offset": int(value.storage_offset()),
        }
    if value is None:
        return {"kind": "none", "name": name}
    if isinstance(value, bool | int | float):
        return {"kind": "scalar", "name": name, "value": value}
    return {"kind": "scalar", "name": name, "value": repr(value)}


def _config(cfg: Any) -> dict[str, Any]:
    if cfg is None:
        return {}
    kwargs = {
        k: v for k, v in (getattr(cfg, "kwargs", {}) or {}).items() if isinstance(v, int | float | bool | str)
    }
    return {
        "kwargs": kwargs,
        "num_warps": getattr(cfg, "num_warps", None),
        "num_stages": getattr(cfg, "num_stages", None),
    }


def _device(props: Any) -> dict[str, Any]:
    keys = (
        "type",
        "index",
        "multi_processor_count",
        "cc",
        "regs_per_multiprocessor",
        "max_threads_per_multi_processor",
        "warp_size",
    )
    return {k: getattr(props, k) for k in keys if isinstance(getattr(props, k, None), int | str)}


def _code_file(fn: Any) -> str | None:
    inner = getattr(fn, "fn", fn)
    code = getattr(inner, "__code__", None)
    return getattr(code, "co_filename", None)


def _read_text(path: str | None) -> str | None:
    if not path:
        return None
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read()
    except OSError:
        return None


def _int(value: Any) -> int | None:
    return int(value) if isinstance(value, int) and not isinstance(value, bool) else None


def cpu_build_event(record_error: Callable[[str], None]) -> tuple[dict[str, Any], str] | None:
    """The vector ISA and the compile command of C++ kernels, where Inductor's CPU codegen ran."""
    codecache = sys.modules.get("torch._inductor.codecache")
    if codecache is None:
        return None
    loaded = getattr(getattr(codecache, "CppPythonBindingsCodeCache", None), "cache", None)
    if not loaded:  # no C++ kernel was built or loaded in this process (a GPU run)
        return None
    try:
        from torch._inductor import cpu_vec_isa
        from torch._inductor.codecache import CppCodeCache
        from torch._inductor.cpp_builder import CppBuilder, CppTorchDeviceOptions

        isa = cpu_vec_isa.pick_vec_isa()
        options = CppTorchDeviceOptions(
            vec_isa=isa, device_type="cpu", **CppCodeCache.cpp_compile_command_flags
        )
        command = CppBuilder(name="kernel", sources="kernel.cpp", BuildOption=options).get_command_line()
        data = {
            "vec_isa": str(isa) if isa else "",
            "vec_width_bits": _int(getattr(isa, "_bit_width", None)),
            "command": command,
            "compiler": command.split(" ", 1)[0] if command else None,
        }
    except Exception as exc:  # noqa: BLE001 - recorded; the report is finished without it
        record_error(f"C++ kernel build (vector ISA, command) not recorded: {type(exc).__name__}: {exc}")
        return None
    return {CPU_BUILD_EVENT: {"version": 1}}, json.dumps(data)


def start_details(record_error: Callable[[str], None]) -> KernelDetails | None:
    """Triton kernels' stages, metadata and launches, collected from now on (only where Triton
    is installed; ``INSPECTC_KERNEL_DETAIL=0`` leaves them out, e.g. to time what recording them
    costs); None when there is nothing to collect."""
    import importlib.util

    if os.environ.get("INSPECTC_KERNEL_DETAIL", "1") == "0" or importlib.util.find_spec("triton") is None:
        return None
    details = KernelDetails(record_error)
    return details if details.start() else None


def finish_details(
    details: KernelDetails | None,
    record_error: Callable[[str], None],
    record_exception: Callable[[str, BaseException], None],
) -> list[tuple[dict[str, Any], str]]:
    """What *details* collected, and the C++ kernels' build, as events for the report."""
    events: list[tuple[dict[str, Any], str]] = []
    try:
        if details is not None:
            details.stop()
            events += details.events()
        cpu = cpu_build_event(record_error)
        if cpu is not None:
            events.append(cpu)
    except Exception as exc:  # noqa: BLE001 - recorded; the report is still finished
        record_exception("writing kernel details", exc)
    return events
