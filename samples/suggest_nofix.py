"""A graph break with no config remedy (an explicit graph_break()): `suggest` says so."""

import torch


def two_halves(x: torch.Tensor) -> torch.Tensor:
    y = x.sin()
    torch._dynamo.graph_break()
    return y.cos()


if __name__ == "__main__":
    f = torch.compile(two_halves, backend="eager")
    print(f"{f(torch.ones(4)).sum().item():.4f}")
