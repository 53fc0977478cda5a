"""Import each ``inspectc repro`` script given and launch its kernel twice (``--once``), in one
process: one torch import for all, so ``ncu`` profiles many kernels in one run.

    ncu ... python benchmarks/run_once.py k1.py k2.py ...
"""

from __future__ import annotations

import importlib.util
import sys


def main() -> int:
    for i, path in enumerate(sys.argv[1:]):
        spec = importlib.util.spec_from_file_location(f"repro_once_{i}", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        module.measure(once=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
