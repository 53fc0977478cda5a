"""A logging call in a compiled function (GB0291, as transformers' `logger.warning_once`), for
`inspectc suggest`: `ignore_logging_functions` removes the break. Unseeded on purpose: its output
changes run to run, which suggest must call noise, not a difference the remedy made."""

import logging

import torch

logger = logging.getLogger("suggest_logging")


def step(x: torch.Tensor) -> torch.Tensor:
    logger.warning("scaling %d values", x.numel())  # graph break: logging.Logger method
    return x * 2 + 1


if __name__ == "__main__":
    f = torch.compile(step, backend="eager")
    print(f"{f(torch.randn(8)).sum().item():.4f}")
