"""Why a Triton kernel's registers differ between ``ir``, cuobjdump and Nsight Compute (issue 45).

Helpers of ``benchmarks/gpu_resources.py``, one per witness of which binary ran:

- :func:`probe_repro`: in the process ncu profiles, the repro script's own launcher (config,
  ``n_regs``, ``cache_hash``) and what the driver says of its function
  (``cuFuncGetAttribute(NUM_REGS)``, ``cuOccupancyMaxActiveBlocksPerMultiprocessor``);
- :func:`variants`: every cubin of that kernel name in Triton's cache (each config autotuning
  compiled, each graph's kernel of the same name), with cuobjdump's REG;
- :func:`tuner_for`: what ``benchmarks/gpu_models.py`` read from the run's own autotuners at its
  end (``GPU_MODELS_TUNERS``), not through inspectc;
- :func:`verdict`: the registers of one kernel, agreed or why not;
- ``python benchmarks/gpu_regs.py --counts REPORT``: what capture recorded of each Triton kernel
  (launch records, launches counted, IR stages), to check that the launch hooks still record on
  a GPU run.

ncu's ``launch__registers_per_thread`` is the allocation: a kernel that uses fewer than 16
registers is allocated 16 (NVIDIA's forum: ptxas 10, ncu 16), so 8 / 8 / 16 is an agreement
on the kernel and a difference of the tool, which :func:`verdict` names.
"""

from __future__ import annotations

import ctypes
import glob
import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

from inspectc.model.kernel_detail import KernelDetail
from inspectc.store.reader import Report

_CUOBJDUMP = re.compile(r"REG:(\d+)\s+STACK:(\d+)\s+SHARED:(\d+)\s+LOCAL:(\d+)")
NCU_FLOOR = 16  # registers ncu reports for a kernel that uses fewer
CALL_FLOOR = 32  # ... and for a kernel that calls a function (__assertfail, vprintf) and uses fewer
_SASS_CALL = re.compile(r"\bCALL\.[A-Z.]+")
_PTX_CALL = re.compile(r"^\s*call(?:\.uni)?\s+(?:\([^)]*\),\s*)?([\w$]+)", re.MULTILINE)
CU_FUNC_ATTRIBUTE_NUM_REGS = 4


def _config(cfg: Any) -> dict[str, Any]:
    kwargs = getattr(cfg, "kwargs", {}) or {}
    return {
        "kwargs": {k: v for k, v in kwargs.items() if isinstance(v, int | float | bool | str)},
        "num_warps": getattr(cfg, "num_warps", None),
        "num_stages": getattr(cfg, "num_stages", None),
    }


def _driver(function: int, threads: int, shared: int) -> dict[str, int]:
    """The driver's register count and resident blocks per SM for one loaded function."""
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return {}
    out: dict[str, int] = {}
    value = ctypes.c_int()
    handle = ctypes.c_void_p(function)
    if cuda.cuFuncGetAttribute(ctypes.byref(value), CU_FUNC_ATTRIBUTE_NUM_REGS, handle) == 0:
        out["driver_regs"] = value.value
    blocks = ctypes.c_int()
    done = cuda.cuOccupancyMaxActiveBlocksPerMultiprocessor(
        ctypes.byref(blocks), handle, ctypes.c_int(threads), ctypes.c_size_t(shared)
    )
    if done == 0:
        out["driver_blocks_per_sm"] = blocks.value
    return out


def probe_repro(tuner: Any) -> dict[str, Any]:
    """What the repro's autotuner launched: its launcher and, by the driver, its function."""
    launchers = getattr(tuner, "launchers", None) or []
    if not launchers:
        return {"launchers": 0}
    launcher = launchers[0]
    cfg = getattr(launcher, "config", None)
    out: dict[str, Any] = {
        "launchers": len(launchers),
        "compile_results": len(getattr(tuner, "compile_results", None) or ()),
        "config": _config(cfg),
        "n_regs": getattr(launcher, "n_regs", None),
        "cache_hash": getattr(launcher, "cache_hash", None),
        "static": bool(getattr(launcher, "_is_static", False)),
    }
    for result in getattr(tuner, "compile_results", None) or ():
        kernel = getattr(result, "kernel", None)
        try:
            function = getattr(kernel, "function", None)
        except Exception:  # noqa: BLE001 - a binary not loaded in this process
            function = None
        if (
            isinstance(function, int)
            and function
            and _config(getattr(result, "config", None)) == out["config"]
        ):
            warps = getattr(cfg, "num_warps", None) or 4
            out.update(_driver(function, warps * 32, int(getattr(launcher, "shared", 0) or 0)))
            break
    return out


def cuobjdump(cubin: Path) -> dict[str, int] | None:
    tool = shutil.which("cuobjdump")
    if tool is None:
        try:
            import triton

            found = Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "cuobjdump"
            tool = str(found) if found.exists() else None
        except ImportError:
            tool = None
    if tool is None or not cubin.is_file():
        return None
    done = subprocess.run(
        [tool, "--dump-resource-usage", str(cubin)], capture_output=True, text=True, check=False
    )  # noqa: S603
    m = _CUOBJDUMP.search(done.stdout)
    if m is None:
        return None
    out = dict(zip(("REG", "STACK", "SHARED", "LOCAL"), map(int, m.groups()), strict=True))
    sass = subprocess.run([tool, "-sass", str(cubin)], capture_output=True, text=True, check=False)  # noqa: S603
    if sass.returncode == 0:  # the calls in the machine code (CALL.ABS.NOINC to __assertfail, ...)
        out["CALL"] = len(_SASS_CALL.findall(sass.stdout))
    return out


def ptx_calls(ptx: str | None) -> list[str] | None:
    """The functions the kernel's PTX calls (``call.uni (retval0), __assertfail, ...``)."""
    return None if ptx is None else sorted(set(_PTX_CALL.findall(ptx)))


def launch_floor(reg: int, calls: bool) -> int:
    """The registers ncu reports for a kernel that uses *reg*: at least 16, 32 with a call."""
    return max(reg, NCU_FLOOR, CALL_FLOOR if calls else 0)


def cubin_path(detail: KernelDetail) -> Path | None:
    if not detail.cache_hash:
        return None
    for root in (os.environ.get("TRITON_CACHE_DIR"), os.path.expanduser("~/.triton/cache")):
        if root and (Path(root) / detail.cache_hash / f"{detail.name}.cubin").is_file():
            return Path(root) / detail.cache_hash / f"{detail.name}.cubin"
    return None


def probes(scripts: list[str], text: str) -> dict[str, dict]:
    """Script -> its repro's launcher and the driver's figures (the REPRO lines on stderr)."""
    stderr = text.split("\n#stderr\n", 1)[1] if "\n#stderr\n" in text else ""
    out = {}
    for m in re.finditer(r"^REPRO (\d+) (.*)$", stderr, re.MULTILINE):
        try:
            out[scripts[int(m.group(1))]] = json.loads(m.group(2))
        except (ValueError, IndexError):
            continue
    return out


def raw_details(report: Report) -> list[dict]:
    """The detail events as recorded (fields KernelDetail leaves out: the launchers seen at the
    first launch and at the config check, the config read at the first launch)."""
    out = []
    for (seq,) in report.rows("SELECT seq FROM events WHERE name = 'inspectc_kernel_detail'"):
        try:
            data = json.loads(report.event_payload(int(seq)) or "null")
        except ValueError:
            continue
        if isinstance(data, dict):
            data.pop("stages", None)
            data.pop("python_source", None)
            out.append(data)
    return out


def variants(name: str, cuobjdump: Any) -> list[dict[str, Any]]:
    """Every cubin named *name* in Triton's cache: its hash, cuobjdump's REG, the compile options."""
    root = os.environ.get("TRITON_CACHE_DIR") or os.path.expanduser("~/.triton/cache")
    out = []
    for cubin in sorted(glob.glob(os.path.join(glob.escape(root), "*", f"{glob.escape(name)}.cubin"))):
        path = Path(cubin)
        meta: dict[str, Any] = {}
        try:
            meta = json.loads(path.with_suffix(".json").read_text())
        except (OSError, ValueError):
            pass
        found = cuobjdump(path) or {}
        out.append({
            "hash": path.parent.name,
            "REG": found.get("REG"),
            "num_warps": meta.get("num_warps"),
            "num_stages": meta.get("num_stages"),
            "maxnreg": meta.get("maxnreg"),
            "mtime": round(path.stat().st_mtime, 1),
        })  # fmt: skip
    return out


def tuner_for(tuners: list[dict[str, Any]], name: str, python_file: str | None) -> dict[str, Any] | None:
    """The run's own autotuner of this kernel: same name, and same file where one is recorded."""
    same = [t for t in tuners if t.get("name") == name]
    same = [
        t for t in same if t.get("launchers")
    ] or same  # a copy that never launched (seen: one per kernel)
    if python_file:
        exact = [t for t in same if t.get("filename") == python_file]
        same = exact or same
    return same[0] if len(same) == 1 else ({"ambiguous": len(same)} if same else None)


def verdict(
    ir: int | None, reg: int | None, ncu: float | None, repro_regs: int | None, calls: bool = False
) -> str:
    """One kernel's registers: agree, or which witness differs and why. *calls*: the kernel's
    machine code calls a function (cuobjdump's SASS has a CALL)."""
    if ir is None or reg is None or ncu is None:
        return "not measured"
    n = int(ncu)
    if ir == reg == n:
        return "agree"
    if ir == reg and n == launch_floor(reg, calls):
        if calls and n == CALL_FLOOR:
            return (
                f"agree: ncu reports the launch's allocation, {CALL_FLOOR} for a kernel that calls a function"
            )
        return f"agree: ncu reports the allocation, {NCU_FLOOR} for a kernel that uses fewer"
    if ir != reg:
        return "ir differs from the cubin of its own cache_hash"
    if repro_regs is not None and repro_regs == n:
        return "the repro launched another binary (its registers = ncu's)"
    return "ncu differs from the cubin"


def agrees(text: str) -> bool:
    return text.startswith("agree")


def regs_verdict(r: dict) -> str:
    c, n = r.get("cuobjdump") or {}, r.get("ncu") or {}
    return verdict(
        r.get("regs"),
        c.get("REG"),
        n.get("launch__registers_per_thread"),
        (r.get("repro") or {}).get("n_regs"),
        bool(c["CALL"]) if c.get("CALL") is not None else bool(r.get("ptx_calls")),  # SASS, else the PTX
    )


def launch_config(r: dict) -> str:
    cfg = r.get("config") or {}
    sizes = ",".join(f"{k}={v}" for k, v in (cfg.get("kwargs") or {}).items())
    return f"{_i(r.get('warps'))}, {_i(r.get('num_stages'))}, {sizes or '-'}; {_i(r.get('candidates'))}"


def differences(rows: list[dict]) -> str:
    """Each kernel whose registers are not all equal: the binaries each figure is of."""
    lines = ["## Registers that are not equal in all three, and why", ""]
    for r in rows:
        why = regs_verdict(r)
        if why in ("agree", "not measured"):
            continue
        rep, tuner = r.get("repro") or {}, r.get("run_tuner") or {}
        ran = (tuner.get("launchers") or [{}])[0] if isinstance(tuner, dict) else {}
        seen = ", ".join(
            f"{v['hash'][:10]} REG {_i(v.get('REG'))} w{_i(v.get('num_warps'))}"
            for v in r.get("variants") or []
        )
        calls = f"calls {', '.join(r.get('ptx_calls') or []) or 'nothing'} (SASS CALLs {_i((r.get('cuobjdump') or {}).get('CALL'))})"
        lines += [
            f"- `{r['name']}` ({r['frame']}): {why}; {calls}. ir {_i(r.get('regs'))} (cache_hash {str(r.get('cache_hash'))[:10]},"
            f" config {launch_config(r)}); repro launched {_i(rep.get('n_regs'))} (cache_hash {str(rep.get('cache_hash'))[:10]},"
            f" driver {_i(rep.get('driver_regs'))} registers, {_i(rep.get('driver_blocks_per_sm'))} blocks/SM; ir's {_i(r.get('blocks_per_sm'))});"
            f" the run's autotuner ended on {_i(ran.get('n_regs'))} (cache_hash {str(ran.get('cache_hash'))[:10]});"
            f" cubins of the name: {seen or 'none found'}",
        ]
    return "\n".join(lines if len(lines) > 2 else lines + ["none"])


def _i(v: object) -> str:
    return "-" if v is None else str(int(v)) if isinstance(v, int | float) else str(v)


def counts(path: str) -> str:
    """Triton kernels of the report, their details, launch records and stages, as counts."""
    report = Report(path)
    triton = [k for k in report.kernels if k.language == "triton"]
    details = report.kernel_details()
    stages: dict[str, int] = {}
    for d in details:
        for stage in d.stages:
            stages[stage] = stages.get(stage, 0) + 1
    joined = sum(report.kernel_detail(k) is not None for k in triton)
    return (
        f"triton kernels {len(triton)}, with a detail {joined}; details {len(details)},"
        f" with launch records {sum(bool(d.launches) for d in details)},"
        f" launch records {sum(len(d.launches) for d in details)},"
        f" launches counted {sum(x.count for d in details for x in d.launches)},"
        f" with a config {sum(bool(d.config) for d in details)}, with n_regs {sum(d.n_regs is not None for d in details)};"
        f" stages {dict(sorted(stages.items()))}"
    )


if __name__ == "__main__":
    import sys

    if len(sys.argv) == 3 and sys.argv[1] == "--counts":
        print(counts(sys.argv[2]))
    else:
        sys.exit("usage: gpu_regs.py --counts REPORT")
