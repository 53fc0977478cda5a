"""What a kernel's ``meta`` says, as ``trace/payloads/output_code.py`` put it there when the
report was built: a C++ kernel's argument types, the device a kernel ran on. Stdlib only."""

from __future__ import annotations

from typing import Any


def cpp_arg_types(meta: dict[str, Any]) -> list[str]:
    """A C++ kernel's argument types as the builder put them in ``Kernel.meta``."""
    return [str(t) for t in meta.get("arg_types") or ()]


def kernel_device(meta: dict[str, Any], language: str) -> str:
    """The device a kernel ran on (``Kernel.meta``), else what its language implies."""
    return str(meta.get("device") or ("cuda" if language == "triton" else "cpu"))
