"""``python -m inspectc`` (also what ``torchrun -m inspectc run ...`` starts)."""

from inspectc.cli import entry

entry()
