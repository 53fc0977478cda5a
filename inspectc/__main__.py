"""``python -m inspectc`` (also what ``torchrun -m inspectc run ...`` starts)."""

from inspectc.cli.main import entry

entry()
