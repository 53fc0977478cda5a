"""Small synthetic TORCH_TRACE logs in the record shapes older torch wrote (issue 27).

Run: ``python tests/data/make_old_logs.py`` (stdlib only; writes ``tests/data/logs/old/``).
The shapes follow what torch of 2024-2025 wrote, as tlparse's parser (src/types.rs,
src/parsers.rs) reads them; the numbers are made up but consistent, so that
``tests/rawcount.py`` can count them by hand.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent / "logs" / "old"
USER = "/home/u/model.py"
EVAL_FRAME = "/opt/torch/_dynamo/eval_frame.py"


class Log:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.t = 0
        self.strs: dict[str, int] = {}

    def rec(self, meta: dict[str, Any], payload: str | None = None, where: str = "torch/_dynamo/convert_frame.py:1") -> None:
        self.t += 1
        if payload is not None:
            meta = {**meta, "has_payload": hashlib.md5(payload.encode()).hexdigest()}
        self.lines.append(f"V0412 10:00:{self.t // 1000:02d}.{self.t:06d} 4242 {where}] {json.dumps(meta)}")
        if payload is not None:
            self.lines.extend("\t" + line for line in payload.split("\n"))

    def fn(self, path: str) -> int:
        if path not in self.strs:
            self.strs[path] = len(self.strs)
            self.rec({"str": [path, self.strs[path]]})
        return self.strs[path]

    def frame(self, line: int, name: str, path: str = USER) -> dict[str, Any]:
        return {"line": line, "name": name, "filename": self.fn(path)}

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(self.lines) + "\n")


def ids(frame: int, cid: int, attempt: int = 0) -> dict[str, int]:
    return {"frame_id": frame, "frame_compile_id": cid, "attempt": attempt}


def old_metrics() -> Log:
    """Late 2024: compilation_metrics whose ``*_time_s`` fields are null and whose times are
    only in ``dynamo_cumulative_compile_time_us`` and friends; two frames."""
    log = Log()
    for fid, (fn, line, us) in enumerate([("forward", 10, 157_000), ("helper", 30, 43_500)]):
        stack = [log.frame(5, "<module>"), log.frame(line, fn)]
        log.rec({"dynamo_start": {"stack": stack}, **ids(fid, 0)})
        log.rec(
            {
                "compilation_metrics": {
                    "compile_id": f"{fid}/0",
                    "frame_key": str(fid + 1),
                    "co_name": fn,
                    "co_filename": USER,
                    "co_firstlineno": line,
                    "cache_size": 0,
                    "accumulated_cache_size": 0,
                    "guard_count": 4,
                    "graph_op_count": 2,
                    "graph_node_count": 4,
                    "graph_input_count": 1,
                    "start_time": 1733000000.0 + fid,
                    "entire_frame_compile_time_s": None,
                    "backend_compile_time_s": None,
                    "inductor_compile_time_s": None,
                    "code_gen_time_s": None,
                    "fail_type": None,
                    "fail_reason": None,
                    "restart_reasons": [],
                    "dynamo_cumulative_compile_time_us": us,
                    "aot_autograd_cumulative_compile_time_us": us // 2,
                    "inductor_cumulative_compile_time_us": us // 3,
                    "inductor_code_gen_cumulative_compile_time_us": us // 10,
                    "has_guarded_code": True,
                },
                **ids(fid, 0),
            },
            where="torch/_dynamo/utils.py:1",
        )
    return log


_LAUNCHER = """template <typename in_ptr0_type_, typename out_ptr0_type_, typename kernels_type_>
static inline void call_{name}(
    const in_ptr0_type_& in_ptr0,
    const out_ptr0_type_& out_ptr0,
    int64_t xnumel,
    cudaStream_t stream_,
    kernels_type_& kernels_,
    const std::optional<std::string>& cubin_dir_ = std::nullopt
){{
    /*
    async_compile.triton('{name}', '''
    import triton
    import triton.language as tl

    @triton_heuristics.pointwise(
        size_hints={{'x': 256}},
        filename=__file__,
        triton_meta={{'signature': {{'in_ptr0': '*fp32', 'out_ptr0': '*fp32', 'xnumel': 'i32'}}}},
        inductor_meta={{'grid_type': 'Grid1D', 'kernel_name': '{name}'}},
        min_elem_per_thread=0
    )
    @triton.jit
    def {name}(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):
        xoffset = tl.program_id(0) * XBLOCK
        xindex = xoffset + tl.arange(0, XBLOCK)[:]
        xmask = xindex < xnumel
        tmp0 = tl.load(in_ptr0 + (xindex), xmask)
        tl.store(out_ptr0 + (xindex), tmp0 * 2.0, xmask)
    ''', device_str='cuda')
    */
    uint32_t grid_0 = ((xnumel + (128 - 1)) / (128));
    if (kernels_.{name} == nullptr) {{
        kernels_.{name} = loadKernel("/tmp/aoti/c{name}.cubin", "{name}", 0, cubin_dir_);
    }}
    void* kernel_args_[] = {{&in_ptr0, &out_ptr0, &xnumel}};
    launchKernel(kernels_.{name}, grid_0, 1, 1, 4, 0, kernel_args_, stream_);
}}
"""


def aoti_cuda() -> Log:
    """May 2025: ``aoti_compile_and_package`` on CUDA. Each Triton kernel's source sits in a
    ``/* async_compile.triton(...) */`` comment of ``inductor_aot_wrapper_code`` (C++), beside
    its ``loadKernel``/``launchKernel``; ``inductor_aot_kernel_code`` only points there. Three
    Triton kernels and one library call (``aoti_torch_cuda_mm_out``)."""
    log = Log()
    names = ["triton_poi_fused_relu_0", "triton_poi_fused_mul_1", "triton_poi_fused_gelu_2"]
    wrapper = "#include <torch/csrc/inductor/aoti_runtime/model.h>\n\n"
    wrapper += "\n".join(_LAUNCHER.format(name=n) for n in names)
    wrapper += "\nvoid AOTInductorModel::run_impl(AtenTensorHandle* input_handles) {\n"
    wrapper += "    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cuda_mm_out(buf0, arg0_1, arg1_1));\n"
    wrapper += "".join(f"    call_{n}(buf0, buf1, 200L, stream, kernels, this->cubin_dir_);\n" for n in names)
    wrapper += "}\n"
    stack = [log.frame(12, "main"), log.frame(150, "aoti_compile_and_package", "/opt/torch/_inductor/__init__.py")]
    dump = {"type": "cpp", "filename": "/tmp/aoti/model.wrapper.cpp"}
    log.rec({"graph_dump": {"name": "inductor_aot_wrapper_code", **dump}, "stack": stack}, wrapper)
    kernel = "// Triton kernels are embedded as comments in /tmp/aoti/model.wrapper.cpp\n"
    dump = {"type": "cpp", "filename": "/tmp/aoti/model.kernel.cpp"}
    log.rec({"graph_dump": {"name": "inductor_aot_kernel_code", **dump}, "stack": stack}, kernel)
    metrics = {"compile_id": None, "co_name": None, "start_time_us": 1747853582000000, "end_time_us": 1747853584500000}
    log.rec({"compilation_metrics": metrics, "stack": stack}, where="torch/_dynamo/utils.py:1")
    return log


def _metrics(log: Log, fid: int, co_name: str, line: int, reasons: list[str]) -> None:
    body = {
        "compile_id": f"{fid}/0",
        "frame_key": str(fid + 1),
        "co_name": co_name,
        "co_filename": USER,
        "co_firstlineno": line,
        "cache_size": 0,
        "accumulated_cache_size": 0,
        "guard_count": 3,
        "shape_env_guard_count": 0,
        "graph_op_count": 1,
        "graph_node_count": 3,
        "graph_input_count": 1,
        "start_time": 1712900000.0 + fid,
        "entire_frame_compile_time_s": 0.05,
        "backend_compile_time_s": 0.01,
        "inductor_compile_time_s": None,
        "code_gen_time_s": None,
        "fail_type": None,
        "fail_reason": None,
        "fail_user_frame_filename": None,
        "fail_user_frame_lineno": None,
        "non_compliant_ops": [],
        "compliant_custom_ops": [],
        "restart_reasons": reasons,
        "dynamo_time_before_restart_s": 0.01 if reasons else 0.0,
    }
    log.rec({"compilation_metrics": body, **ids(fid, 0)}, where="torch/_dynamo/utils.py:1")


def april_2024() -> Log:
    """April 2024 (torch 2.3): no ``dynamo_graph_break_reason`` artifact; a break is only a
    string in ``restart_reasons``; ``dynamo_start`` stacks end in torch's ``eval_frame.py``
    (``_fn``, line 410) or on the caller's line. ``forward`` (line 10) breaks at 12 and 15,
    ``helper`` (line 30, called from line 16) at 32: five frames, three breaks, found again
    in the resume functions' names."""
    log = Log()
    module = log.frame(40, "<module>")
    entry = log.frame(410, "_fn", EVAL_FRAME)
    frames = [
        ("forward", 10, [module, entry], ["Graph break due to unsupported builtin builtins.print."]),
        ("torch_dynamo_resume_in_forward_at_12", 12, [module, entry], ["call_function UserDefinedObjectVariable(sensor) [] {}"]),
        ("helper", 30, [module, entry, log.frame(16, "torch_dynamo_resume_in_forward_at_15")], ["Tensor.item"]),
        ("torch_dynamo_resume_in_helper_at_32", 32, [module, entry], []),
        ("torch_dynamo_resume_in_forward_at_15", 15, [module, entry], []),
    ]
    for fid, (name, line, stack, reasons) in enumerate(frames):
        log.rec({"dynamo_start": {"stack": stack}, **ids(fid, 0)})
        _metrics(log, fid, name, line, reasons)
    return log


def recompile_limit() -> Log:
    """The recompile limit hit (torch 2.5-2.13): ``0/0``..``0/1`` compile ``step``; ``0/2`` has
    no ``dynamo_start`` and no metrics, only its ``recompile_reasons`` artifact."""
    log = Log()
    for cid in (0, 1):
        log.rec({"dynamo_start": {"stack": [log.frame(40, "<module>"), log.frame(7, "step")]}, **ids(0, cid)})
        _metrics(log, 0, "step", 7, [])
        log.lines[-1] = log.lines[-1].replace('"compile_id": "0/0"', f'"compile_id": "0/{cid}"')
        log.lines[-1] = log.lines[-1].replace('"frame_compile_id": 0,', f'"frame_compile_id": {cid},')
    reasons = "size mismatch at index 0. expected 3, actual 4"
    log.rec({"artifact": {"name": "recompile_reasons", "encoding": "string"}, **ids(0, 2)}, reasons)
    return log


LOGS = {
    "old_metrics/trace.log": old_metrics,
    "aoti_cuda/trace.log": aoti_cuda,
    "april_2024/trace.log": april_2024,
    "recompile_limit/trace.log": recompile_limit,
}


def main() -> None:
    for name, make in LOGS.items():
        make().write(OUT / name)


if __name__ == "__main__":
    main()
