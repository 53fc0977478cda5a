"""A `.item()` graph break that `capture_scalar_outputs` removes (for `inspectc suggest`)."""

import torch


def scale(x: torch.Tensor) -> torch.Tensor:
    peak = x.abs().max().item()  # graph break: Tensor.item() without capture_scalar_outputs
    return x / peak


if __name__ == "__main__":
    torch.manual_seed(0)
    f = torch.compile(scale, backend="eager")
    for _ in range(2):
        out = f(torch.randn(16))
    print(f"{out.sum().item():.4f}")
