"""``inspectc accuracy``'s capture side: check every Inductor graph against eager and fp64.

While active, Inductor's entry point (``torch._inductor.compile_fx.compile_fx``, what
``torch.compile``'s default backend calls) is wrapped: each Dynamo graph is compiled by
Inductor as usual, and the callable handed back to Dynamo runs, on its first ``calls`` calls,
the graph three ways on copies of the same inputs (compiled, eager, fp64 eager; RNG state
set alike before each) before doing the user's call unchanged. Gradients of the graph's
inputs are compared too when the call needs them (compiled backward against eager autograd).
Graphs with random ops are compiled with ``fallback_random`` so compiled code draws from
torch's RNG and the masks can match; graphs that mutate their inputs run on copies.

A diverging graph keeps a pristine copy of its FX graph and of the inputs of the call that
diverged (at most ``keep_bytes`` in all: over that, bisection is skipped and says why), for
:mod:`inspectc.capture.accuracy_bisect` once the script has ended.
"""

from __future__ import annotations

import copy
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch

from inspectc.capture import accuracy_compare as cmp
from inspectc.model import CompileId
from inspectc.model.accuracy import DIVERGES, ERROR, NOT_COMPARED, OK, GraphAccuracy, OutputCheck

RANDOM_TARGETS = {
    "dropout",
    "dropout1d",
    "dropout2d",
    "dropout3d",
    "alpha_dropout",
    "feature_alpha_dropout",
    "native_dropout",
    "rand",
    "randn",
    "randint",
    "rand_like",
    "randn_like",
    "randint_like",
    "randperm",
    "bernoulli",
    "bernoulli_",
    "multinomial",
    "normal",
    "normal_",
    "uniform_",
    "exponential_",
    "rrelu",
}
UNREPLAYABLE = {"randperm", "multinomial"}  # fallback_random does not promise the same draws


@dataclass(frozen=True, slots=True)
class Settings:
    tol: cmp.Tolerance = cmp.Tolerance()
    calls: int = 1  # calls checked per graph
    keep_bytes: int = 256 << 20  # inputs held for bisection, all graphs together
    budget_s: float = 300.0  # bisection time per diverging graph
    stages: bool = True
    bisector: bool = True
    locate: bool = True


@dataclass(slots=True)
class Graph:
    """One compiled graph: its results so far and, when it diverged, what bisection needs."""

    compile_id: CompileId  # "?" (not known) where Dynamo gave none
    eager: torch.fx.GraphModule | None
    input_names: list[str]
    random_ops: list[str]
    patches: dict[str, Any]
    calls: int = 0
    forward: list[OutputCheck] = field(default_factory=list)
    backward: list[OutputCheck] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    error: str | None = None
    seconds: float = 0.0
    kept_inputs: list[Any] | None = None
    kept_grads: bool = False
    kept_bytes: int = 0

    @property
    def diverged(self) -> bool:
        return cmp.diverges(self.forward) or cmp.diverges(self.backward)

    def results(self) -> list[GraphAccuracy]:
        out = []
        if self.error is not None:
            out.append(self._result("forward", ERROR, [*self.reasons, self.error], self.forward))
        elif self.calls == 0:
            out.append(self._result("forward", NOT_COMPARED, [*self.reasons, "never called"], []))
        else:
            out.append(self._result("forward", _verdict(self.forward), self.reasons, self.forward))
            if self.backward:
                out.append(self._result("backward", _verdict(self.backward), self.reasons, self.backward))
        return out

    def _result(
        self, graph: str, verdict: str, reasons: list[str], checks: list[OutputCheck]
    ) -> GraphAccuracy:
        return GraphAccuracy(
            compile_id=self.compile_id,
            graph=graph,
            verdict=verdict,
            reasons=tuple(reasons),
            outputs=tuple(checks),
            calls_checked=self.calls,
            seconds=round(self.seconds, 3),
        )


def _verdict(checks: list[OutputCheck]) -> str:
    if cmp.diverges(checks):
        return DIVERGES
    if checks and all(c.verdict == NOT_COMPARED for c in checks):
        return NOT_COMPARED
    return OK


def random_ops(gm: torch.fx.GraphModule) -> list[str]:
    """Names of the random ops *gm* calls (dropout, rand, bernoulli...)."""
    found = []
    for node in gm.graph.nodes:
        if node.op in ("call_function", "call_method"):
            name = getattr(node.target, "__name__", str(node.target)).split(".")[-1]
            if name in RANDOM_TARGETS:
                found.append(name)
    return sorted(set(found))


def mutated_inputs(gm: torch.fx.GraphModule) -> list[str]:
    """Graph inputs an in-place op writes to (BatchNorm's running stats, ``x.add_(1)``...)."""
    found = []
    for node in gm.graph.nodes:
        if node.op not in ("call_function", "call_method"):
            continue
        name = getattr(node.target, "__name__", str(node.target)).split(".")[-1]
        first = node.args[0] if node.args else None
        in_place = (name.endswith("_") and not name.endswith("__")) or name == "copy_"
        if in_place and isinstance(first, torch.fx.Node) and first.op == "placeholder":
            found.append(str(first.target))
    return sorted(set(found))


def placeholder_names(gm: torch.fx.GraphModule) -> list[str]:
    return [str(n.target) for n in gm.graph.nodes if n.op == "placeholder"]


def pristine_copy(gm: torch.fx.GraphModule) -> torch.fx.GraphModule | None:
    """A copy Inductor's passes cannot touch (a fault in a pre-grad pass must not reach eager)."""
    try:
        return copy.deepcopy(gm)
    except Exception:  # noqa: BLE001 - some graphs hold objects that do not copy: say so
        return None


class AccuracyCapture:
    """Wraps Inductor's entry point while active; :attr:`graphs` holds what it found."""

    def __init__(self, settings: Settings, progress: Callable[[str], None] | None = None) -> None:
        self.settings = settings
        self.graphs: list[Graph] = []
        self.errors: list[str] = []
        self.kept_bytes = 0
        self.kept_peak = 0
        self.progress = progress or (lambda text: print(f"inspectc: accuracy: {text}", file=sys.stderr))
        self._local = threading.local()
        self._original: Callable[..., Any] | None = None

    # -- install ---------------------------------------------------------------------
    def start(self) -> None:
        import torch._inductor.compile_fx as compile_fx_module

        self._original = compile_fx_module.compile_fx
        compile_fx_module.compile_fx = self._compile  # type: ignore[assignment]

    def stop(self) -> None:
        import torch._inductor.compile_fx as compile_fx_module

        if self._original is not None:
            compile_fx_module.compile_fx = self._original  # type: ignore[assignment]

    @property
    def compile_fx(self) -> Callable[..., Any]:
        """Inductor's own entry point (for bisection: never the wrapper)."""
        if self._original is None:
            import torch._inductor.compile_fx as compile_fx_module

            return compile_fx_module.compile_fx
        return self._original

    def inside(self) -> bool:
        return bool(getattr(self._local, "inside", False))

    def _compile(self, model: Any, example_inputs: Any, *args: Any, **kwargs: Any) -> Any:
        assert self._original is not None
        if self.inside() or not isinstance(model, torch.fx.GraphModule):
            return self._original(model, example_inputs, *args, **kwargs)
        self._local.inside = True
        try:
            graph = self._new_graph(model)
            if graph.patches:
                kwargs["config_patches"] = {**(kwargs.get("config_patches") or {}), **graph.patches}
            compiled = self._original(model, example_inputs, *args, **kwargs)
        finally:
            self._local.inside = False
        return self._wrap(compiled, graph)

    def _new_graph(self, gm: torch.fx.GraphModule) -> Graph:
        from torch._guards import CompileContext

        cid = CompileContext.current_compile_id()
        rnd = random_ops(gm)
        graph = Graph(
            compile_id=CompileId.parse(str(cid)) if cid is not None else CompileId(),
            eager=pristine_copy(gm),
            input_names=placeholder_names(gm),
            random_ops=rnd,
            patches={"fallback_random": True} if rnd else {},
        )
        if rnd:
            graph.reasons.append(
                f"random ops ({', '.join(rnd)}) replayed through torch's RNG (fallback_random)"
            )
        bad = sorted(set(rnd) & UNREPLAYABLE)
        if bad:
            graph.reasons.append(f"random ops whose draws cannot be replayed: {', '.join(bad)}")
        mutated = mutated_inputs(gm)
        if mutated:
            graph.reasons.append(
                f"mutates its inputs ({', '.join(mutated[:4])}): compared on copies, mutations not"
            )
        if graph.eager is None:
            graph.reasons.append("the FX graph could not be copied: compared against itself after Inductor")
            graph.eager = gm
        self.graphs.append(graph)
        return graph

    def _wrap(self, compiled: Callable[..., Any], graph: Graph) -> Callable[..., Any]:
        def check_then_call(*args: Any) -> Any:  # Dynamo calls a backend's result so
            if graph.calls < self.settings.calls and not self.inside():
                self._check(compiled, graph, list(args))
            return compiled(*args)

        for name, value in getattr(compiled, "__dict__", {}).items():
            if name.startswith(("__", "_torchdynamo")):  # not __wrapped__ (unwrap would skip the check)
                continue
            try:
                setattr(check_then_call, name, value)
            except (AttributeError, TypeError):
                pass
        return check_then_call

    # -- the check -------------------------------------------------------------------
    def _check(self, compiled: Callable[..., Any], graph: Graph, args: list[Any]) -> None:
        start = time.perf_counter()
        self._local.inside = True
        rng = cmp.RngState()
        try:
            unreplayable = any(r in UNREPLAYABLE for r in graph.random_ops)
            grads = torch.is_grad_enabled() and any(
                isinstance(a, torch.Tensor) and a.requires_grad for a in args
            )
            eager = graph.eager
            assert eager is not None
            res = cmp.run(compiled, args, rng, grads=grads)
            ref = cmp.run(eager, args, rng, grads=grads)
            fp64 = None
            try:
                fp64 = cmp.run(cmp.fp64_module(eager), args, rng, dtype=torch.float64, grads=grads)
            except Exception as exc:  # noqa: BLE001 - an op without float64: compare with eager only
                graph.reasons.append(f"no fp64 reference ({type(exc).__name__}: {str(exc)[:120]})")
            fwd, bwd = cmp.compare(ref, res, fp64, self.settings.tol, graph.input_names)
            if unreplayable:
                fwd = [_unreplayable(c) for c in fwd]
                bwd = [_unreplayable(c) for c in bwd]
            graph.forward, graph.backward = _worst(graph.forward, fwd), _worst(graph.backward, bwd)
            graph.calls += 1
            if graph.diverged and graph.kept_inputs is None:
                self._keep(graph, args, grads)
            what = "diverges" if graph.diverged else "ok"
            self.progress(f"graph {graph.compile_id}: {what} (call {graph.calls})")
        except Exception as exc:  # noqa: BLE001 - the user's call must still happen
            graph.error = f"{type(exc).__name__}: {str(exc)[:300]}"
            graph.calls = self.settings.calls  # do not try again on each call
            self.progress(f"graph {graph.compile_id}: could not be compared ({graph.error})")
        finally:
            rng.set()  # the user's call draws what it would have drawn without the check
            self._local.inside = False
            graph.seconds += time.perf_counter() - start
            if graph.calls >= self.settings.calls and graph.kept_inputs is None:
                graph.eager = None  # nothing more to compare: release the copy

    def _keep(self, graph: Graph, args: list[Any], grads: bool) -> None:
        size = sum(a.numel() * a.element_size() for a in args if isinstance(a, torch.Tensor))
        if self.kept_bytes + size > self.settings.keep_bytes:
            graph.reasons.append(
                f"inputs not kept for bisection: {size} bytes over the bound of {self.settings.keep_bytes}"
            )
            return
        graph.kept_inputs = cmp.clone_inputs(args)
        graph.kept_grads = grads
        graph.kept_bytes = size
        self.kept_bytes += size
        self.kept_peak = max(self.kept_peak, self.kept_bytes)


def _unreplayable(check: OutputCheck) -> OutputCheck:
    from dataclasses import replace

    if check.verdict != DIVERGES:
        return check
    return replace(check, verdict=NOT_COMPARED, reason="random draws that cannot be replayed")


def _worst(old: list[OutputCheck], new: list[OutputCheck]) -> list[OutputCheck]:
    """Per output, the check of the call that was farthest off (the first when none diverged)."""
    if not old:
        return new
    out = []
    for a, b in zip(old, new, strict=False):
        if a.verdict != DIVERGES and b.verdict == DIVERGES:
            out.append(b)
        elif (b.max_rel_error or 0) > (a.max_rel_error or 0) and a.verdict == b.verdict:
            out.append(b)
        else:
            out.append(a)
    return out
