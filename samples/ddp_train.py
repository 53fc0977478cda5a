"""A DDP-wrapped compiled MLP trained for some steps on CPU (gloo): run it under torchrun.

    torchrun --nproc-per-node 2 -m inspectc run samples/ddp_train.py
    inspectc merge ddp_train.rank0.inspectc ddp_train.rank1.inspectc -o ddp.inspectc

Dynamo's DDPOptimizer splits the compiled graph at DDP's gradient-bucket boundaries (1 MB buckets
for a ~3 MB model make several buckets; DDPOptimizer wants them >= DDP's 1 MB first bucket), so each rank compiles several submodules: these
are DDP splits, not graph breaks. ``--skew`` gives the last rank a different batch size on
its second step, so it recompiles and the others do not: the kind of per-rank difference that
makes collectives hang in real jobs.
"""

import argparse
import gc
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP


class Block(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.fc = nn.Linear(dim, dim * 2)
        self.act = nn.GELU()
        self.proj = nn.Linear(dim * 2, dim)

    def forward(self, x):
        return x + self.proj(self.act(self.fc(x)))


class MLP(nn.Module):
    def __init__(self, dim: int, depth: int) -> None:
        super().__init__()
        self.layers = nn.Sequential(*(Block(dim) for _ in range(depth)))
        self.head = nn.Linear(dim, 1)

    def forward(self, x):
        return self.head(self.layers(x))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=16)
    parser.add_argument("--dim", type=int, default=256)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--bucket-cap-mb", type=float, default=1.0)
    parser.add_argument("--skew", action="store_true", help="last rank: other batch size at step 2")
    args = parser.parse_args()

    if "RANK" not in os.environ:  # plain `python ddp_train.py`: a world of one
        os.environ.update(RANK="0", WORLD_SIZE="1", MASTER_ADDR="127.0.0.1", MASTER_PORT="29533")
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(0)
    model = DDP(MLP(args.dim, args.depth), bucket_cap_mb=args.bucket_cap_mb)
    compiled = torch.compile(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loss = torch.zeros(())
    for step in range(args.steps):
        batch = 8
        if args.skew and rank == world - 1 and step == 1:
            batch = 5
        gen = torch.Generator().manual_seed(rank * 100 + step)
        x = torch.randn(batch, args.dim, generator=gen)
        target = torch.randn(batch, 1, generator=gen)
        opt.zero_grad()
        loss = nn.functional.mse_loss(compiled(x), target)
        loss.backward()
        opt.step()
    print(f"rank {rank}/{world}: loss after {args.steps} steps: {loss.item():.6f}")
    # Free DDP (its Reducer holds the process group) while the group is alive, after every
    # rank is done: freeing it last, inside ~ProcessGroupGloo with the GIL held, can hang.
    dist.barrier()
    del compiled, model, opt, loss
    gc.collect()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
