"""A tiny MLP trained for a few steps with its backward under compiled autograd.

The forward is compiled by torch.compile (compile id 0/0); each ``loss.backward()`` runs under
``compiled_autograd._enable``, which traces the backward into a graph of its own and compiles
it with Inductor (compile ids ``!0/1/0``: compiled-autograd id 0, Dynamo frame 1).

inspectc run samples/compiled_autograd.py --steps 3
"""

import argparse

import torch
from torch import nn
from torch._dynamo import compiled_autograd


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=3)
    args = parser.parse_args()
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    compiled = torch.compile(model)
    for _ in range(args.steps):
        loss = compiled(torch.randn(4, 8)).sum()
        with compiled_autograd._enable(torch.compile()):
            loss.backward()
        opt.step()
        opt.zero_grad()
    print(f"loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
