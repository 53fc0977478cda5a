"""Bisect a diverging graph, after the script ended: by stage, by subsystem, to the FX node.

1. Stage: the graph is compiled again with ``aot_eager`` (AOT Autograd alone),
   ``aot_eager_decomp_partition`` (plus Inductor's decompositions and the partitioner) and
   ``inductor``; the first that diverges names the stage.
2. Subsystem: ``torch._inductor.compiler_bisector.CompilerBisector.do_bisect`` (in process),
   which turns off decompositions, passes and lowerings one application at a time and names
   the one that makes the difference (e.g. ``decomposition`` #3: ``aten.mish.default``).
3. Node and kernel: the graph is compiled once more with every floating FX node made an
   output; the first node, in graph order, whose compiled value diverges from its eager
   value (same fp64 criterion) is where the numbers part. Its user line comes from the
   node's stack trace; the kernels that compute it come from the report's provenance map.

They run in the order 1, 3, 2 (the bisector's many compiles last) and share one time budget
per graph, checked before each compile; Inductor's caches are off meanwhile so every compile
is a real one. Progress goes to stderr.
"""

from __future__ import annotations

import contextlib
import copy
import re
import sys
import time
from collections.abc import Callable
from typing import Any

import torch

from inspectc.capture import accuracy_compare as cmp
from inspectc.capture.accuracy import AccuracyCapture, Graph
from inspectc.model.accuracy import (
    DIVERGES,
    OK,
    AccuracyRun,
    Bisection,
    GraphAccuracy,
    Location,
    OutputCheck,
    Stage,
)

STAGES = ("aot_eager", "aot_eager_decomp_partition", "inductor")


class OutOfTime(Exception):
    pass


class Bisector:
    def __init__(self, acc: AccuracyCapture, graph: Graph, progress: Callable[[str], None]) -> None:
        assert graph.eager is not None and graph.kept_inputs is not None
        self.acc = acc
        self.graph = graph
        self.gm: torch.fx.GraphModule = graph.eager
        self.args: list[Any] = graph.kept_inputs
        self.progress = progress
        self.deadline = time.monotonic() + acc.settings.budget_s
        self.rng = cmp.RngState()
        self._fp64: cmp.Results | None = None
        self._eager: cmp.Results | None = None

    def _check_time(self) -> None:
        if time.monotonic() > self.deadline:
            raise OutOfTime()

    def _backend(self, name: str) -> Callable[..., Any]:
        if name == "inductor":
            return self.acc.compile_fx
        from torch._dynamo.backends.registry import lookup_backend

        return lookup_backend(name)

    def _references(self) -> tuple[cmp.Results, cmp.Results | None]:
        if self._eager is None:
            grads = self.graph.kept_grads
            self._eager = cmp.run(self.gm, self.args, self.rng, grads=grads)
            try:
                self._fp64 = cmp.run(
                    cmp.fp64_module(self.gm), self.args, self.rng, dtype=torch.float64, grads=grads
                )
            except Exception:  # noqa: BLE001 - compared with eager only, as the capture did
                self._fp64 = None
        return self._eager, self._fp64

    def diverges_with(self, backend: str) -> tuple[bool, list[OutputCheck]]:
        """Compile a fresh copy of the graph with *backend*, run it, compare."""
        self._check_time()
        eager, fp64 = self._references()
        gm = copy.deepcopy(self.gm)
        with _fresh_compiles(self.graph.patches):
            compiled = self._backend(backend)(gm, cmp.clone_inputs(self.args))
            res = cmp.run(compiled, self.args, self.rng, grads=self.graph.kept_grads)
        fwd, bwd = cmp.compare(eager, res, fp64, self.acc.settings.tol, self.graph.input_names)
        return cmp.diverges(fwd) or cmp.diverges(bwd), fwd + bwd

    # -- 1: stages -----------------------------------------------------------------------
    def stages(self) -> list[Stage]:
        out: list[Stage] = []
        found = False
        for name in STAGES:
            if found:
                out.append(Stage(backend=name, verdict="skipped", note="an earlier stage diverges"))
                continue
            start = time.perf_counter()
            try:
                bad, _ = self.diverges_with(name)
                out.append(Stage(backend=name, verdict=DIVERGES if bad else OK, seconds=_s(start)))
                found = bad
            except OutOfTime:
                out.append(Stage(backend=name, verdict="skipped", note="time budget spent"))
            except Exception as exc:  # noqa: BLE001 - a backend that fails is a finding, not a crash
                out.append(Stage(backend=name, verdict="error", seconds=_s(start), note=_short(exc)))
            self.progress(f"graph {self.graph.compile_id}: stage {name}: {out[-1].verdict}")
        return out

    # -- 2: CompilerBisector -------------------------------------------------------------
    def compiler_bisector(self) -> Bisection:
        try:
            from torch._inductor.compiler_bisector import CompilerBisector
        except ImportError:
            return Bisection(note="this torch has no torch._inductor.compiler_bisector")
        start = time.perf_counter()

        def good() -> bool:
            backend = CompilerBisector.get_backend() or "inductor"
            self.progress(f"graph {self.graph.compile_id}: bisector tries {backend}")
            try:
                bad, _ = self.diverges_with(backend)
            except OutOfTime:
                raise
            except Exception:  # noqa: BLE001 - a compile that fails counts as bad, as the bisector's CLI does
                return False
            return not bad

        try:
            with contextlib.redirect_stdout(sys.stderr):  # its prints are progress, not the script's output
                result = CompilerBisector.do_bisect(good)
        except OutOfTime:
            return Bisection(seconds=_s(start), note="time budget spent before the bisector finished")
        except Exception as exc:  # noqa: BLE001 - the bisector's own failure is recorded
            return Bisection(seconds=_s(start), note=f"CompilerBisector failed: {_short(exc)}")
        if result is None:
            return Bisection(seconds=_s(start), note="CompilerBisector found every backend correct")
        return Bisection(
            backend=result.backend,
            subsystem=result.subsystem,
            bisect_number=result.bisect_number,
            debug_info=None if result.debug_info is None else _op_names(str(result.debug_info))[:500],
            seconds=_s(start),
        )

    # -- 3: the first diverging node -------------------------------------------------------
    def locate(self) -> Location | None:
        self._check_time()
        gm = copy.deepcopy(self.gm)
        nodes = _value_nodes(gm)
        if not nodes:
            return None
        out = gm.graph.output_node()
        old = out.args[0]
        first: list[Any] = list(old) if isinstance(old, (list, tuple)) else [old]
        out.args = (tuple(first + nodes),)
        gm.recompile()
        args = cmp.clone_inputs(self.args)
        for a in args:  # values, not gradients: the forward only
            if isinstance(a, torch.Tensor):
                a.requires_grad_(False)
        with _fresh_compiles(self.graph.patches):
            compiled = self.acc.compile_fx(copy.deepcopy(gm), cmp.clone_inputs(args))
            res = cmp.run(compiled, args, self.rng)
        eager = cmp.run(gm, args, self.rng)
        try:
            fp64: cmp.Results | None = cmp.run(cmp.fp64_module(gm), args, self.rng, dtype=torch.float64)
        except Exception:  # noqa: BLE001
            fp64 = None
        skip = len(first)
        for i, node in enumerate(nodes):
            k = skip + i
            ref = fp64.outputs[k] if fp64 is not None else None
            check = cmp.compare_one(node.name, eager.outputs[k], res.outputs[k], ref, self.acc.settings.tol)
            if check.verdict == DIVERGES:
                filename, line, code = _user_line(node)
                return Location(
                    node=node.name,
                    target=_target(node),
                    filename=filename,
                    line=line,
                    code=code,
                    max_rel_error=check.max_rel_error,
                    eager_rel_error=check.eager_rel_error,
                    nodes_compared=i + 1,
                )
        return Location(
            node="",
            target="",
            nodes_compared=len(nodes),
            note="no single node diverges when every node is an output (the fault needs the fusion)",
        )


def _value_nodes(gm: torch.fx.GraphModule) -> list[torch.fx.Node]:
    """Floating tensor nodes that compute something (no placeholders, no views of inputs)."""
    out = []
    for node in gm.graph.nodes:
        if node.op not in ("call_function", "call_method", "call_module"):
            continue
        value = node.meta.get("example_value")
        if isinstance(value, torch.Tensor) and value.is_floating_point():
            out.append(node)
    return out


def _target(node: torch.fx.Node) -> str:
    t = node.target
    if isinstance(t, str):
        return t
    module = getattr(t, "__module__", None) or ""
    name = getattr(t, "__qualname__", None) or getattr(t, "__name__", None) or str(t)
    return f"{module}.{name}" if module and not module.startswith("torch._ops") else str(name)


def _user_line(node: torch.fx.Node) -> tuple[str | None, int | None, str | None]:
    """The innermost frame of the node's stack trace: the user's line that made it."""
    trace = node.meta.get("stack_trace") or ""
    lines = [x for x in str(trace).splitlines() if x.strip()]
    for i in range(len(lines) - 1, -1, -1):
        text = lines[i].strip()
        if text.startswith('File "'):
            filename = text[6:].split('"', 1)[0]
            try:
                line = int(text.split(", line ", 1)[1].split(",", 1)[0])
            except (IndexError, ValueError):
                line = None
            code = lines[i + 1].strip() if i + 1 < len(lines) else None
            return filename, line, code
    return None, None, None


@contextlib.contextmanager
def _fresh_compiles(patches: dict[str, Any]):  # noqa: ANN202 - a context manager
    import torch._inductor.config as inductor_config

    with inductor_config.patch({"force_disable_caches": True, **patches}):
        yield


def _s(start: float) -> float:
    return round(time.perf_counter() - start, 3)


def _short(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}"


def finish(acc: AccuracyCapture, started: float) -> AccuracyRun:
    """Every graph's results; diverging graphs bisected (stages, node, bisector) in turn."""
    from dataclasses import replace

    s = acc.settings
    graphs: list[GraphAccuracy] = []
    called = {g.compile_id for g in acc.graphs if g.calls and g.compile_id.known}
    for graph in acc.graphs:
        if not graph.calls and graph.error is None and graph.compile_id in called:
            continue  # Dynamo compiled this id again and ran only the later graph: one row
        results = graph.results()
        if graph.diverged and graph.kept_inputs is not None and graph.eager is not None:
            bis = Bisector(acc, graph, acc.progress)
            acc.progress(f"graph {graph.compile_id} diverges: bisecting (budget {s.budget_s:.0f} s)")
            stages = bis.stages() if s.stages else []
            first = next((st.backend for st in stages if st.verdict == DIVERGES), None)
            location = None
            if s.locate and any(r.graph == "forward" and r.verdict == DIVERGES for r in results):
                try:
                    location = bis.locate()
                except OutOfTime:
                    location = Location(node="", target="", note="time budget spent")
                except Exception as exc:  # noqa: BLE001 - recorded, the other results stay
                    location = Location(node="", target="", note=f"could not locate: {_short(exc)}")
            bisection = bis.compiler_bisector() if s.bisector else None  # the costliest: last
            results = [
                replace(r, first_stage=first, stages=tuple(stages), bisection=bisection, location=location)
                if r.verdict == DIVERGES
                else r
                for r in results
            ]
            graph.kept_inputs = None  # bounded: released as soon as its bisection is done
            graph.eager = None
        graphs.extend(results)
    return AccuracyRun(
        settings={
            "atol": s.tol.atol,
            "rtol": s.tol.rtol,
            "tol": s.tol.tol,
            "calls": s.calls,
            "budget_s": s.budget_s,
            "keep_bytes": s.keep_bytes,
        },
        graphs=tuple(graphs),
        errors=tuple(acc.errors),
        kept_bytes=acc.kept_peak,
        kept_bound_bytes=s.keep_bytes,
        seconds=round(time.perf_counter() - started, 3),
    )


_OP_REPR = re.compile(r"<OpOverload\(op='([\w.]+)', overload='(\w+)'\)>")


def _op_names(text: str) -> str:
    """An op as users write it: ``aten.mish.default``, not its repr ``<OpOverload(op=...)>``
    (the bisector's debug info is a list whose str shows its ops' reprs)."""
    return _OP_REPR.sub(r"\1.\2", text)
