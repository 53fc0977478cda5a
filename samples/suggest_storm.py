"""A recompile storm: one function compiled for every new length (for `inspectc suggest`).

`dynamic=False` makes Dynamo specialise on every size, so each call with a new length
recompiles; marking `x` dynamic (`torch.compiler.config.dynamic_sources`) stops it.
"""

import torch


def energy(x: torch.Tensor) -> torch.Tensor:
    return (x * x).sum()


if __name__ == "__main__":
    f = torch.compile(energy, backend="eager", dynamic=False)
    total = 0.0
    for n in range(2, 8):
        total += float(f(torch.arange(n, dtype=torch.float32)))
    print(f"{total:.1f}")
