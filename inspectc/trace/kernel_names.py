"""One naming rule joining a measured op to its kernel in the output code. No torch.

The profiler names an extern or fallback op by its operator (``aten::addmm``,
``aten::_scaled_dot_product_cudnn_attention``, ``mkldnn::_linear_pointwise``); the output code
calls it as ``extern_kernels.addmm(...)``, ``torch.ops.aten.convolution_backward.default(...)``
or ``aten.mm.default(...)``, and the output-code splitter numbers repeated call sites
(``extern_kernels.addmm:2``). :func:`op_key` maps every one of these spellings to the
operator (``namespace::name``, no overload, no call-site number); the n-th measured launch of
an operator within one graph call is the n-th call site of that operator in the code.
"""

from __future__ import annotations

import re

_SITE = re.compile(r":\d{1,18}$")


def op_key(name: str) -> str | None:
    """The operator a kernel name calls (``aten::mm``), None for a generated kernel."""
    name = _SITE.sub("", name)
    if "::" in name:
        return name
    if name.startswith("extern_kernels."):
        return "aten::" + name[len("extern_kernels.") :]
    parts = name.split(".")
    if name.startswith("torch.ops.") and len(parts) >= 4:
        return f"{parts[2]}::{parts[3]}"
    if name.startswith("aten.") and len(parts) >= 2:
        return f"aten::{parts[1]}"
    return None


def site_number(name: str) -> int:
    """0-based call-site number of an extern kernel name (``extern_kernels.addmm:3`` -> 2)."""
    found = _SITE.search(name)
    return int(found.group()[1:]) - 1 if found else 0
