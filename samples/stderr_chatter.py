"""A script that writes to stderr itself, before, between and after compiled calls.

    inspectc run -q samples/stderr_chatter.py

`inspectc run -q` must leave its stderr exactly as `python samples/stderr_chatter.py` writes it
(tests/test_quiet.py compares them byte for byte): the profiler windows capture opens between
these calls add nothing.
"""

import os
import sys
import warnings

import torch


@torch.compile
def step(x):
    return torch.sin(x) * 2 + 1


def main() -> None:
    print("stderr: before the first compile", file=sys.stderr)
    torch.manual_seed(0)
    x = torch.randn(8)
    for i in range(6):
        x = step(x)
        print(f"stderr: after call {i}", file=sys.stderr, flush=True)
        os.write(2, f"fd2: raw write after call {i}\n".encode())
    warnings.warn("the script's own warning")
    print(f"result {x.sum().item():.4f}")
    print("stderr: the end", file=sys.stderr)


if __name__ == "__main__":
    main()
