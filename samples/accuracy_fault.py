"""A small model for ``inspectc accuracy``: Linear, mish, a long sum, optional dropout and training.

inspectc accuracy samples/accuracy_fault.py --fault             # a wrong aten.mish decomposition
inspectc accuracy samples/accuracy_fault.py --fault lowering    # a wrong aten.tanh lowering

``--fault`` registers, before compiling, an Inductor decomposition of ``aten.mish`` that is
wrong only where x > 1 (it drops the tanh there), so eager is right and compiled is not.
``--fault lowering`` instead replaces Inductor's lowering of ``aten.tanh`` (which the mish
decomposition uses) by one that is wrong only where x > 1 (it returns x / (1 + x) there).
Without it the compiled model is correct: compiled and eager differ only by float
reassociation (the long sum) and, with ``--train``, share dropout masks.
"""

import argparse

import torch
from torch import nn


def plant_wrong_tanh_lowering() -> None:
    from torch._inductor import lowering

    aten = torch.ops.aten
    right = lowering.lowerings[aten.tanh.default]
    where, gt, div, add = (
        lowering.lowerings[op] for op in (aten.where.self, aten.gt.Scalar, aten.div.Tensor, aten.add.Scalar)
    )

    def wrong_tanh(x):  # noqa: ANN001, ANN202 - Inductor IR in, IR out
        return where(gt(x, 1), div(x, add(x, 1)), right(x))

    lowering.lowerings[aten.tanh.default] = wrong_tanh
    torch._inductor.config.force_disable_caches = True  # not in cache keys either


def plant_wrong_mish() -> None:
    from torch._inductor.decomposition import decompositions

    aten = torch.ops.aten

    def wrong_mish(x: torch.Tensor) -> torch.Tensor:
        right = x * torch.tanh(torch.nn.functional.softplus(x))
        return torch.where(x > 1, x * torch.nn.functional.softplus(x), right)

    decompositions[aten.mish.default] = wrong_mish
    # A decomposition registered at run time is not part of Inductor's cache keys: without
    # this, a cached correct graph would hide the fault (and a cached faulty one appear later).
    torch._inductor.config.force_disable_caches = True


class Net(nn.Module):
    def __init__(self, dim: int, dropout: float) -> None:
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.drop = nn.Dropout(dropout)
        self.head = nn.Linear(dim, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = nn.functional.mish(self.fc(x))
        h = self.drop(h)
        total = h.sum(dim=-1, keepdim=True)  # a long reduction: reassociated by Inductor
        return self.head(h) + total / h.shape[-1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--fault",
        nargs="?",
        const="decomposition",
        choices=("decomposition", "lowering"),
        help="plant a wrong aten.mish decomposition (default) or a wrong aten.tanh lowering",
    )
    parser.add_argument("--train", type=int, default=0, metavar="STEPS", help="train STEPS steps")
    parser.add_argument("--dropout", type=float, default=0.0)
    parser.add_argument("--unseeded", action="store_true", help="no torch.manual_seed")
    parser.add_argument("--dim", type=int, default=512)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    if args.fault == "decomposition":
        plant_wrong_mish()
    elif args.fault == "lowering":
        plant_wrong_tanh_lowering()
    if not args.unseeded:
        torch.manual_seed(0)
    model = Net(args.dim, args.dropout).to(args.device)
    compiled = torch.compile(model)
    x = torch.randn(8, args.dim, device=args.device) * 2
    if not args.train:
        with torch.no_grad():
            print(f"output sum {compiled(x).sum().item():.4f}")
        return
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    target = torch.randn(8, 4, device=args.device)
    for _ in range(args.train):
        opt.zero_grad()
        loss = nn.functional.mse_loss(compiled(x), target)
        loss.backward()
        opt.step()
    print(f"loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
