"""A small MLP (Linear, GELU, LayerNorm) trained for a few steps: forward and backward graphs.

inspectc run samples/mlp_train.py --steps 5
"""

import argparse

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.fc = nn.Linear(dim, dim * 2)
        self.act = nn.GELU()
        self.norm = nn.LayerNorm(dim * 2)
        self.proj = nn.Linear(dim * 2, dim)

    def forward(self, x):
        return x + self.proj(self.norm(self.act(self.fc(x))))


class MLP(nn.Module):
    def __init__(self, dim: int = 32, depth: int = 2) -> None:
        super().__init__()
        self.layers = nn.ModuleList(Block(dim) for _ in range(depth))
        self.head = nn.Linear(dim, 1)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return self.head(x)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--dim", type=int, default=32)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    torch.manual_seed(0)
    model = MLP(args.dim).to(args.device)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    compiled = torch.compile(model)
    x = torch.randn(16, args.dim, device=args.device)
    target = torch.randn(16, 1, device=args.device)
    for _ in range(args.steps):
        opt.zero_grad()
        loss = nn.functional.mse_loss(compiled(x), target)
        loss.backward()
        opt.step()
    print(f"loss after {args.steps} steps: {loss.item():.6f}")


if __name__ == "__main__":
    main()
