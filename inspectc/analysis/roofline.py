"""% of limit per Triton kernel: one function for ``kernels``, share, the TUI, ``ir`` and the graph.

The method (named in every output): the DRAM bytes of the kernel's recorded launch (capture's
launch record: its input tensors, what Nsight Compute sees it read from DRAM, and, once the
launch's traffic passes the L2, the written bytes the L2 cannot hold: :func:`dram_bytes`) over
the isolated time per launch of ``inspectc bench`` (its module profile per launch, on CUDA with L2
flushed before each launch so the inputs come from DRAM, else its kernel harness), against the
device's DRAM peak (:data:`PEAKS`, dense rates stated per device; for a device not there, the
copy bandwidth ``inspectc bench`` measured). On an H200 this is within 10 points of ncu's
``dram__throughput`` for 20 of 20 kernels of resnet18 (batch 8) and a transformer block training
(round 7) and for 9 of the 10 longest of resnet18 training at batch 32 x 224, where outputs
outgrow the L2 (5 of 10 with inputs alone; benchmarks/gpu_r2_h200/README.md).

Fallback, named as such, for a kernel without a launch record (CPU captures, older reports,
kernels capture did not see launch): Inductor's byte estimate (``kernel_num_gb``, inputs and
outputs, written under ``--kernel-harness``) over the same time against the copy bandwidth; it
overstates ncu up to 3x for write-heavy kernels. No torch.
"""

from __future__ import annotations

from dataclasses import dataclass

from inspectc.model import Kernel
from inspectc.model.kernel_detail import MAX_COUNT, KernelDetail
from inspectc.store.bench import L2_FLUSHED, BenchResults

# --- DRAM share on Nsight Compute's basis --------------------------------------------------------
# ncu's dram__throughput.avg.pct_of_peak_sustained_elapsed is the DRAM bytes of the launch over its
# time against the DRAM peak (bytes per DRAM cycle x DRAM clock). Measured on an H200
# (benchmarks/ncu_h200.md): a Triton kernel's DRAM reads are the bytes of its input tensors and its
# writes stay in L2 while they fit (write-back, 0 DRAM bytes during the launch), so Inductor's byte
# count (inputs + outputs) over the copy bandwidth overstated ncu's figure 2-3x for write-heavy
# kernels. Past the L2, written lines are evicted during the launch: see :func:`dram_bytes`.


@dataclass(frozen=True, slots=True, kw_only=True)
class DevicePeaks:
    """A device's datasheet ceilings: DRAM bandwidth, L2 size, and dense (not sparse) rates."""

    dram_gbps: float
    l2_bytes: int
    tensor_tflops: dict[str, float]  # dense tensor-core rate per operand type
    fp32_tflops: float  # plain FP32 (no tensor cores)
    source: str


_HOPPER_DENSE = {"fp8": 1978.9, "bf16": 989.4, "fp16": 989.4, "tf32": 494.7}  # SXM, dense
PEAKS = {  # torch.cuda.get_device_name() -> ceilings; what `inspectc bench` records as the device
    "NVIDIA H200": DevicePeaks(
        dram_gbps=1504 * 3.193,  # 4802 GB/s: ncu's peak read on the device (datasheet 4.8 TB/s HBM3e)
        l2_bytes=50 << 20, tensor_tflops=_HOPPER_DENSE, fp32_tflops=66.9,
        source="H200 SXM: 4.8 TB/s HBM3e (ncu: 1504 B/cycle x 3.193 GHz); tensor rates dense, as H100 SXM",
    ),
    "NVIDIA H100 80GB HBM3": DevicePeaks(
        dram_gbps=3352.0, l2_bytes=50 << 20, tensor_tflops=_HOPPER_DENSE, fp32_tflops=66.9,
        source="H100 SXM: 3.35 TB/s HBM3; tensor rates dense (datasheet's sparse figures halved)",
    ),
    "NVIDIA H100 PCIe": DevicePeaks(
        dram_gbps=2039.0, l2_bytes=50 << 20, fp32_tflops=51.2,
        tensor_tflops={"fp8": 1513.0, "bf16": 756.5, "fp16": 756.5, "tf32": 378.0},
        source="H100 PCIe: 2.0 TB/s HBM2e; tensor rates dense (datasheet's sparse figures halved)",
    ),
}  # fmt: skip
DRAM_PEAK_GBPS = {name: p.dram_gbps for name, p in PEAKS.items()}
# Of the L2, what holds a launch's written lines before they are evicted to DRAM.
L2_HOLDS = 1.0
_ITEMSIZE = {"float64": 8, "int64": 8, "complex64": 8, "float32": 4, "int32": 4, "uint32": 4,
             "float16": 2, "bfloat16": 2, "int16": 2, "int8": 1, "uint8": 1, "bool": 1,
             "float8_e4m3fn": 1, "float8_e5m2": 1}  # fmt: skip


class LaunchBytes(int):
    """The input bytes of a recorded launch (the int every caller passes on to :func:`roofline`)
    with the bytes it writes (``writes``): one figure through ``kernels``, ``ir``, share, export
    and the TUI, none of which needs to know the DRAM model's terms."""

    writes: int

    def __new__(cls, reads: int, writes: int = 0) -> LaunchBytes:
        obj = super().__new__(cls, reads)
        obj.writes = writes
        return obj


def dram_bytes(reads: int, writes: int, l2_bytes: int | None) -> int:
    """The DRAM bytes of a launch: its inputs, once, and the part of its output the L2 cannot
    hold. The L2 keeps written lines until the launch's traffic (R + W) passes its size C; past
    it the oldest lines go, dirty ones in the share W / (R + W): W (R + W - C) / (R + W)."""
    total = reads + writes
    held = int(L2_HOLDS * l2_bytes) if l2_bytes else None
    if held is None or writes <= 0 or total <= held:
        return reads
    return reads + round(writes * (total - held) / total)


@dataclass(frozen=True, slots=True, kw_only=True)
class DramShare:
    read_bytes: int
    launch_us: float | None = None
    basis: str | None = None  # which time
    peak_gbps: float | None = None

    @property
    def fraction(self) -> float | None:
        if not self.launch_us or not self.peak_gbps:
            return None
        return self.read_bytes / (self.launch_us * 1e-6) / (self.peak_gbps * 1e9)


def _tensor_bytes(detail: KernelDetail | None, prefixes: tuple[str, ...]) -> int | None:
    if detail is None or not detail.launches:
        return None
    total, seen = 0, False
    for a in detail.launches[0].args:
        if a.kind != "tensor" or not (a.name or "").startswith(prefixes):
            continue
        seen = True
        numel = 1
        for n in a.shape or ():
            if n < 0 or numel > MAX_COUNT:
                return None
            numel *= n
        total += numel * _ITEMSIZE.get(a.dtype or "", 4)
    return total if seen and total < MAX_COUNT else None


def read_bytes(detail: KernelDetail | None) -> LaunchBytes | None:
    """Bytes of the input tensors (``in_ptr*``, ``in_out_ptr*``) of the kernel's first recorded
    launch, what it reads from memory once, carrying its written bytes (:func:`write_bytes`);
    None without a recorded launch, or where a recorded shape is no tensor's (a negative size,
    more bytes than 64 bits count)."""
    reads = _tensor_bytes(detail, ("in_ptr", "in_out_ptr"))
    return None if reads is None else LaunchBytes(reads, write_bytes(detail) or 0)


def write_bytes(detail: KernelDetail | None) -> int | None:
    """Bytes of the tensors the first recorded launch writes (``out_ptr*``, ``in_out_ptr*``)."""
    return _tensor_bytes(detail, ("out_ptr", "in_out_ptr"))


NOT_RECORDED = "not recorded"  # no launch record and no Inductor byte count (--kernel-harness)
NOT_MEASURED = "not measured"  # no isolated time or no limit (run inspectc bench on CUDA)

DRAM_MODEL = "DRAM model"  # input bytes of the recorded launch, ncu's basis
FALLBACK = "fallback"  # Inductor's bytes (inputs + outputs) vs the copy bandwidth: no launch record
METHODS = {
    DRAM_MODEL: "input bytes of the recorded launch, and the written bytes the L2 cannot hold,"
    " / isolated time per launch, against the DRAM peak (ncu's basis: outputs stay in L2 while they fit)",
    FALLBACK: "no launch record: Inductor's bytes (inputs + outputs) / isolated time per launch,"
    " against the measured copy bandwidth (overstates ncu up to 3x for write-heavy kernels)",
}
FALLBACK_MARK = "~"  # a % of limit on the fallback method


@dataclass(frozen=True, slots=True, kw_only=True)
class Roofline:
    gb: float | None = None  # per launch, by the method's bytes
    flop: float | None = None
    launch_us: float | None = None
    gbps: float | None = None
    limit_gbps: float | None = None
    limit: str | None = None  # what the limit is: "DRAM peak" or "copy bandwidth (...)"
    basis: str | None = None  # which measured time
    method: str = FALLBACK  # DRAM_MODEL or FALLBACK
    inductor_gb: float | None = None  # Inductor's estimate (inputs + outputs), a secondary figure
    written_gb: float | None = None  # DRAM model: of gb, the written bytes the L2 could not hold
    status: str = NOT_MEASURED  # "ok" or why there is no fraction

    @property
    def fraction(self) -> float | None:
        if self.gbps is None or not self.limit_gbps:
            return None
        return self.gbps / self.limit_gbps

    @property
    def tflops(self) -> float | None:
        if self.flop is None or not self.launch_us:
            return None
        return self.flop / (self.launch_us * 1e-6) / 1e12


def _number(value: object) -> float | None:
    """A recorded figure: a number from 0 up to 2**63 (not NaN, not infinite); None otherwise."""
    if isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value < MAX_COUNT:
        return float(value)
    return None


def kernel_bytes(kernel: Kernel) -> tuple[float | None, float | None]:
    """(GB, FLOPs) per launch from the kernel's ``inductor_meta``; None where not recorded."""
    meta = kernel.meta.get("inductor_meta")
    if not isinstance(meta, dict):
        return None, None
    return _number(meta.get("kernel_num_gb")), _number(meta.get("kernel_flop"))


_PROFILES = (
    (L2_FLUSHED, "isolated module call, L2 flushed before each launch / launches (profiler)"),
    ("module_profiler", "isolated module call / launches (profiler)"),
)


def isolated_launch_us(kernel: Kernel, bench: BenchResults) -> tuple[float | None, str | None]:
    """The isolated time per launch and where it comes from: the module profile (device time,
    launch overhead out) first, the kernel harness (do_bench, overhead in) where there is none."""
    found = bench.kernel(kernel.compile_id, kernel.graph_kind, kernel.name)
    for method, basis in _PROFILES:
        fig = found.get(method)
        if fig is not None and fig.launches:
            return fig.median_us / fig.launches, basis
    if "kernel_harness" in found:
        return found["kernel_harness"].median_us, "kernel harness (do_bench)"
    return None, None


def roofline(kernel: Kernel, bench: BenchResults, reads: int | None = None) -> Roofline | None:
    """The kernel's % of limit (see the module's docstring); None for kernels that are not Triton.

    *reads*: the input bytes of its recorded launch (:func:`read_bytes`, :func:`launch_reads`),
    with its written bytes where it is a :class:`LaunchBytes`; None takes the named fallback."""
    if kernel.language != "triton":
        return None
    inductor_gb, flop = kernel_bytes(kernel)
    launch_us, basis = isolated_launch_us(kernel, bench)
    run = bench.run
    copy = run.bandwidth_gbps if run else None
    copy_name = (
        f"copy bandwidth ({run.bandwidth_method})" if run and run.bandwidth_method else "copy bandwidth"
    )
    gb: float | None
    written_gb = None
    if reads is not None:
        peaks = PEAKS.get(run.device or "") if run else None
        writes = getattr(reads, "writes", 0)
        dram = dram_bytes(int(reads), writes, peaks.l2_bytes if peaks else None)
        method, gb, written_gb = DRAM_MODEL, dram / 1e9, (dram - int(reads)) / 1e9
        limit, limit_name = (
            (peaks.dram_gbps, "DRAM peak") if peaks else (copy, f"{copy_name}: DRAM peak not known")
        )
    else:
        method, gb, limit, limit_name = FALLBACK, inductor_gb, copy, copy_name
    if gb is None:
        return Roofline(flop=flop, method=method, status=NOT_RECORDED)
    common = dict(
        gb=gb, flop=flop, launch_us=launch_us, limit_gbps=limit, limit=limit_name, written_gb=written_gb
    )
    if not launch_us or not limit:
        return Roofline(**common, basis=basis, method=method, inductor_gb=inductor_gb)  # type: ignore[arg-type]
    return Roofline(
        **common,  # type: ignore[arg-type]
        gbps=gb / (launch_us * 1e-6),
        basis=basis,
        method=method,
        inductor_gb=inductor_gb,
        status="ok",
    )


def launch_reads(report: object, kernels: list[Kernel]) -> dict[int, int]:
    """Kernel id -> input bytes of its recorded launch, for the Triton kernels that have one.

    *report*: anything with ``kernel_detail(kernel)`` (a Report, the TUI's data)."""
    detail_of = getattr(report, "kernel_detail", None)
    out: dict[int, int] = {}  # LaunchBytes: ints that carry their written bytes
    if detail_of is None:
        return out
    for k in kernels:
        if k.language == "triton" and (n := read_bytes(detail_of(k))) is not None:
            out[k.id] = n
    return out
