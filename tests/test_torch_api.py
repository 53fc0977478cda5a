"""Every touch point of inspectc.capture.torch_api against the installed torch (CPU, no mocks).

One tiny compile (module-scoped, caches off so Inductor really runs) is observed on the
``torch.__trace`` logger with provenance and C++ kernel profiling on and a guard-complete
hook installed; the tests read what torch did.
"""

from __future__ import annotations

import logging
import platform
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

torch = pytest.importorskip("torch")

from inspectc.capture import torch_api, torch_config  # noqa: E402
from inspectc.capture.torch_api import Missing  # noqa: E402

pytestmark = pytest.mark.capture


@dataclass
class Observed:
    events: dict[str, str] = field(default_factory=dict)
    compile_ids: list[dict[str, int]] = field(default_factory=list)
    hook_calls: list[bool] = field(default_factory=list)
    previous_hook: Any = "unset"
    hook_restored: Any = "unset"
    interned: list[tuple[str, int]] | Missing = field(default_factory=list)
    backends: Any = None
    registered: Any = None
    flags_during: tuple[Any, ...] = ()
    flags_before: tuple[Any, ...] = ()
    flags_after: tuple[Any, ...] = ()


class _Listener(logging.Handler):
    def __init__(self, seen: Observed) -> None:
        super().__init__(logging.DEBUG)
        self.seen = seen

    def emit(self, record: logging.LogRecord) -> None:
        metadata = getattr(record, "metadata", {}) or {}
        artifact = metadata.get("artifact")
        name = artifact.get("name") if isinstance(artifact, dict) else next(iter(metadata), None)
        self.seen.events[str(name)] = str(getattr(record, "payload", "") or "")
        if "dynamo_output_graph" in metadata:
            self.seen.compile_ids.append(torch_api.current_compile_id())  # emitted inside the compile


def _flags() -> tuple[Any, ...]:
    config = torch._inductor.config
    return (
        config.force_disable_caches,
        config.trace.provenance_tracking_level,
        config.cpp.enable_kernel_profile,
    )


@pytest.fixture(scope="module")
def observed() -> Iterator[Observed]:
    seen = Observed()
    seen.flags_before = _flags()
    restores = [
        torch_api.disable_inductor_caches(),
        torch_api.enable_provenance_tracking(1),
        torch_api.enable_cpp_kernel_profile(),
    ]
    assert not any(isinstance(r, Missing) for r in restores), restores
    seen.flags_during = _flags()
    trace_log = logging.getLogger(torch_api.TRACE_LOGGER)
    old_level = trace_log.level
    trace_log.setLevel(logging.DEBUG)
    listener = _Listener(seen)
    trace_log.addHandler(listener)

    def hook(cache_hit: bool) -> bool:
        seen.hook_calls.append(cache_hit)
        return cache_hit

    seen.previous_hook = torch_api.swap_guard_complete_hook(hook)
    try:
        torch._dynamo.reset()
        fn = torch.compile(lambda x: (x.sin() + 1).cos())
        fn(torch.ones(8))
        fn(torch.ones(8))
        seen.interned = torch_api.interned_strings()
        seen.backends = torch_config.compile_backends()
        seen.registered = torch_config.registered_backends()
    finally:
        seen.hook_restored = torch_api.swap_guard_complete_hook(None)
        trace_log.removeHandler(listener)
        trace_log.setLevel(old_level)
        for restore in reversed(restores):
            assert not isinstance(restore, Missing)
            restore()
        seen.flags_after = _flags()
    yield seen


def test_trace_logger_is_torchs_structured_trace_logger() -> None:
    from torch._logging._internal import trace_log

    assert trace_log.name == torch_api.TRACE_LOGGER


def test_versions() -> None:
    assert torch_api.torch_version() == torch.__version__
    assert torch_api.cuda_version() == torch.version.cuda  # None on this CPU build
    assert torch_api.untested_version() is None  # 2.13 is inside TESTED


def test_inductor_flags_are_set_and_restored(observed: Observed) -> None:
    assert observed.flags_during == (True, 1, True)
    assert observed.flags_after == observed.flags_before


def test_provenance_tracking_makes_inductor_emit_node_mappings(observed: Observed) -> None:
    mappings = observed.events.get("inductor_provenance_tracking_node_mappings")
    assert mappings and "cppCodeToPost" in mappings


def test_cpp_kernel_profile_names_kernels_in_the_output_code(observed: Observed) -> None:
    code = observed.events.get("inductor_output_code", "")
    # graph_N: Inductor numbers graphs per process, so N depends on what compiled before
    assert re.search(r'record_graph_(\d+)_cpp_fused_add_cos_sin_0_\("graph_\1_cpp_fused_add_cos_sin_0"', code)


def test_disabled_caches_compile_afresh(observed: Observed) -> None:
    assert "inductor_output_code" in observed.events  # Inductor compiled...
    assert not [name for name in observed.events if name.startswith("fx_graph_cache_")]  # ...uncached


def test_interned_strings_after_a_compile(observed: Observed) -> None:
    assert not isinstance(observed.interned, Missing)
    assert any(text.endswith("test_torch_api.py") for text, _ in observed.interned)


def test_current_compile_id_inside_and_outside_a_compile(observed: Observed) -> None:
    assert observed.compile_ids == [{"frame_id": 0, "frame_compile_id": 0}]
    assert torch_api.current_compile_id() == {}


def test_guard_complete_hook_sees_every_compiled_frame_entry(observed: Observed) -> None:
    assert observed.previous_hook is None
    assert callable(observed.hook_restored)  # swapping it out returned our hook
    assert observed.hook_calls and observed.hook_calls[-1] is True  # the second call hit the cache


def test_compile_backends_name_inductor(observed: Observed) -> None:
    assert observed.backends is not None
    assert [b.name for b in observed.backends] == ["inductor"]
    assert observed.backends[0].dynamic is None


def test_registered_backends(observed: Observed) -> None:
    assert isinstance(observed.registered, tuple) and "inductor" in observed.registered


def test_nothing_compiled_gives_no_backends() -> None:
    probe = (
        "import sys\n"
        "from inspectc.capture import torch_config\n"
        "import torch\n"
        "print(torch_config.compile_backends(), torch_config.registered_backends(), 'torch._dynamo' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["None", "None", "False"]


def test_autotune_feedback_saver_added_and_removed() -> None:
    import torch._inductor.select_algorithm as select_algorithm

    def saver(*args: Any) -> None:
        pass

    remove = torch_api.add_autotune_feedback(saver)
    assert remove is not None
    savers = select_algorithm.get_algorithm_selector_cache().feedback_saver_fns
    assert saver in savers
    remove()
    assert saver not in savers


def test_autotune_hook_waits_for_inductor_to_import_select_algorithm() -> None:
    probe = (
        "from inspectc.capture import torch_api\n"
        "import torch\n"
        "print(torch_api.add_autotune_feedback(print))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "None"


def test_dist_rank(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RANK", "1")
    monkeypatch.setenv("WORLD_SIZE", "4")
    assert torch_api.dist_rank() == (1, 4)
    monkeypatch.setenv("RANK", "x")
    assert torch_api.dist_rank() == (None, None)
    monkeypatch.delenv("RANK")
    monkeypatch.delenv("WORLD_SIZE")
    assert torch_api.dist_rank() == (None, None)


def test_devices_on_cpu() -> None:
    assert not torch.cuda.is_initialized()
    assert torch_api.devices() == (f"cpu: {platform.processor() or platform.machine()}",)


def test_profiler_window_and_raw_kineto_events() -> None:
    assert torch_api.profiler_running() is False
    prof = torch_api.start_profiler()
    assert torch_api.profiler_running() is True
    torch.ones(16).sin()
    results = torch_api.stop_profiler(prof)
    assert torch_api.profiler_running() is False
    assert not isinstance(results, Missing)
    events = results.events()
    assert any(e.name() == "aten::sin" for e in events)
    assert {torch_api.kineto_activity(e) for e in events} <= {
        "cpu_op",
        "user_annotation",
        "cpu_instant_event",
    }


def test_importing_torch_api_loads_no_torch() -> None:
    probe = "import sys, inspectc.capture.torch_api, inspectc.capture.timing; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
