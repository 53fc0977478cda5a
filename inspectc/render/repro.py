"""``inspectc repro``: a standalone script that runs one kernel of a report alone. No torch here.

The script needs torch (and Triton for a Triton kernel), never inspectc, the user's model or
data. It embeds the kernel's source and one recorded launch (capture's first launch of the
kernel; else the call read from the output code), rebuilds the inputs (seeded random floats
of the recorded shape, dtype and stride; integer tensors zeros, so indices stay in range),
launches the kernel once to check it runs, then times it:

- Triton: CUPTI device time under ``torch.profiler`` (the method capture's in-run times use),
  median of 100 launches, in the state ``--method`` names; by default (:data:`DEFAULT_METHOD`)
  the bracket: L2 warm (inputs just touched) to L2 cold (L2 flushed before each launch, or
  fresh copies of its tensors), and whether the in-run median lies inside; ``do_bench`` as an
  option;
- C++: the kernel built by Inductor's own ``CppPythonBindingsCodeCache`` from the recorded
  source, timed by a timer loop and, like capture, by its record-function range under
  ``torch.profiler``.

It prints the figures beside the in-run median the report holds; ``--json`` prints one line.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from inspectc.analysis.text import ELLIPSIS, printable
from inspectc.errors import ReproError
from inspectc.model import CompileId, Kernel, to_plain
from inspectc.model.decode.kernel_meta import cpp_arg_types, kernel_device
from inspectc.model.kernel_detail import KernelDetail, Launch
from inspectc.model.launch_args import LaunchArgsError, launch_from_code, recently_touched
from inspectc.model.times import KernelTime
from inspectc.render.repro_template import TEMPLATE
from inspectc.store.reader import Report

# How the script times a Triton kernel unless told otherwise (``--method``): the bracket, L2 warm
# to L2 cold. One isolated launch cannot have the run's L2 state (what the kernels before it left
# there decides it: benchmarks/repro_resnet18_h200.md), so the script says the range instead.
DEFAULT_METHOD = "bracket"


@dataclass(frozen=True, slots=True, kw_only=True)
class ReproSpec:
    name: str
    language: str
    source: str  # Triton: the kernel module's Python; C++: the kernel's C++ source
    arg_types: tuple[str, ...] = ()  # C++ only
    launch: Launch
    config: dict[str, object] | None = None
    in_run_median_us: float | None = None
    in_run_n: int | None = None
    device: str = "cpu"
    hot: tuple[bool, ...] | None = None  # per launch argument: L2-hot when the run launched it


def find_kernel(report: Report, name: str) -> Kernel:
    """A kernel by name, ``name@compile_id`` or report id; one clear line when ambiguous."""
    wanted, _, cid_text = name.partition("@")
    cid = CompileId.parse(cid_text) if cid_text else None  # the command line's text, parsed here
    found = [
        k
        for k in report.kernels
        if (k.name == wanted or str(k.id) == wanted) and (cid is None or k.compile_id.same_compile(cid))
    ]
    if not found and ELLIPSIS in wanted:  # a name as `kernels` prints it, cut in the middle
        head, _, tail = wanted.partition(ELLIPSIS)
        found = [
            k
            for k in report.kernels
            if k.name.startswith(head) and k.name.endswith(tail) and len(k.name) >= len(head + tail)
            if cid is None or k.compile_id.same_compile(cid)
        ]
        names = sorted({k.name for k in found})
        if len(names) > 1:
            raise ReproError(f"{name!r} matches {len(names)} kernels: name one of {', '.join(names[:6])}")
    if not found:
        raise ReproError(f"no kernel named {name!r} in this report (inspectc kernels R lists them)")
    timed = [k for k in found if k.time is not None] or found
    sources = {report.kernel_source(k) for k in timed}
    if len(sources) > 1:
        where = ", ".join(f"{k.name}@{k.compile_id}" for k in timed[:6])
        raise ReproError(
            f"{len(timed)} kernels are named {wanted!r} with different code: name one of {where}"
        )
    return timed[0]


def spec_for(report: Report, kernel: Kernel) -> ReproSpec:
    if kernel.language not in ("triton", "cpp"):
        raise ReproError(
            f"{kernel.name} is a {kernel.language} kernel: only Triton and C++ kernels are reproduced"
        )
    detail = report.kernel_detail(kernel) if kernel.language == "triton" else None
    device = kernel_device(kernel.meta, kernel.language)
    code = report.graph(kernel.compile_id, kernel.graph_kind) or ""  # read once: launch and hot args
    launch = _launch(code, kernel, detail, device)
    source = _inner_source(report.kernel_source(kernel), kernel)
    if detail is not None and detail.python_source:
        source = detail.python_source
    time = kernel.time
    hot = None
    if kernel.language == "triton":
        touched = recently_touched(code, kernel.name)
        hot = tuple(touched) if touched is not None and len(touched) == len(launch.args) else None
    return ReproSpec(
        name=kernel.name,
        language=kernel.language,
        source=source,
        arg_types=tuple(cpp_arg_types(kernel.meta)),
        launch=launch,
        config=detail.config if detail is not None and detail.config else None,
        in_run_median_us=_per_launch(time),
        in_run_n=time.calls if time else None,
        device=device,
        hot=hot,
    )


def _per_launch(time: KernelTime | None) -> float | None:
    """The in-run median of one launch (a kernel launched n times a call: the call's / n)."""
    if time is None:
        return None
    typical = time.median_us if time.median_us is not None else time.mean_us
    return typical / time.launches if time.launches and time.launches > 1 else typical


def _launch(code: str, kernel: Kernel, detail: KernelDetail | None, device: str) -> Launch:
    if detail is not None and detail.launches:
        return detail.launches[0]
    try:
        return launch_from_code(code, kernel.meta, device)
    except LaunchArgsError as exc:
        raise ReproError(
            f"{kernel.name}: no recorded launch, and the output code's call cannot be read: {exc}"
        ) from None


def _inner_source(span: str, kernel: Kernel) -> str:
    """The kernel's code inside ``async_compile.triton('name', '''...''')`` or ``cpp_pybinding``."""
    for quote in ("r'''", "'''"):
        start = span.find(quote)
        if start >= 0:
            body_start = start + len(quote)
            end = span.find("'''", body_start)
            if end > 0:
                return span[body_start:end].lstrip("\n")
    raise ReproError(f"{kernel.name}: its source could not be cut from the output code")


def render_script(spec: ReproSpec, *, report_name: str, compile_id: CompileId) -> str:
    data = json.dumps(
        {
            "name": spec.name,
            "language": spec.language,
            "cpp_arg_types": list(spec.arg_types),
            "args": to_plain(spec.launch.args),
            "launch_source": spec.launch.source,
            "config": spec.config,
            "in_run_median_us": spec.in_run_median_us,
            "in_run_n": spec.in_run_n,
            "default_device": spec.device,
            "hot": list(spec.hot) if spec.hot is not None else None,
        },
        indent=1,
    )
    head = (
        f'"""Standalone repro of {_inert(spec.name)} ({spec.language}), frame {_inert(str(compile_id))}'
        f" of {_inert(report_name)}.\n\n"
        "Written by `inspectc repro`; needs torch"
        + (" and triton" if spec.language == "triton" else " and a C++ compiler")
        + ", nothing else.\n"
        f"Inputs: the launch recorded {'at run time' if spec.launch.source == 'runtime' else 'in the output code'}"
        " (seeded random floats, integer tensors zeros).\n"
        'Usage: python THIS.py [--json] [--reps N] [--once]\n"""\n'
    )
    fills = {"@SPEC@": data, "@DEFAULT@": DEFAULT_METHOD, "@SOURCE@": repr(spec.source)}
    # one pass: a filled-in value (report text) is never searched for another placeholder
    return head + _PLACEHOLDER.sub(lambda m: fills[m.group()], TEMPLATE)


_PLACEHOLDER = re.compile("@SPEC@|@DEFAULT@|@SOURCE@")
_NOT_INERT = re.compile(r'["\\%]')


def _inert(text: str) -> str:
    """Report text (a kernel name, a file name) as plain words of the script's docstring: one
    line, no control character, quote, backslash or ``%`` (argparse formats ``%(prog)s``), so
    it can neither end the docstring nor make an escape, and the script runs the same."""
    return _NOT_INERT.sub("?", printable(text))
