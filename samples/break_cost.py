"""Two graph breaks with very different costs, for `inspectc run` and its "What to fix first".

`expensive` is a `torch._dynamo.disable`d function doing ~20 ms of eager work per call (it
times itself with time.perf_counter); the `print` is a cheap break. The script prints its own
median time of the expensive call, so what inspectc measured can be checked against it:

    inspectc run samples/break_cost.py            # --device cuda on a GPU machine
"""

import argparse
import statistics
import time

import torch

took: list[float] = []


@torch._dynamo.disable
def expensive(x: torch.Tensor, ms: float) -> torch.Tensor:
    """Eager work Dynamo may not trace: a busy loop of *ms* milliseconds (and a small op)."""
    start = time.perf_counter()
    while time.perf_counter() - start < ms / 1000.0:
        pass
    out = x * 2.0
    took.append(time.perf_counter() - start)
    return out


def step(x: torch.Tensor, ms: float) -> torch.Tensor:
    y = torch.relu(x @ x.T).sum(dim=1)
    y = expensive(y, ms)  # graph break: a disabled function
    print("step")  # graph break: print (cheap)
    return torch.tanh(y).mean()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ms", type=float, default=20.0)
    parser.add_argument("--steps", type=int, default=14)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--hide", action="store_true", help="CUDA: keep the GPU busy over the host's gap")
    args = parser.parse_args()
    compiled = torch.compile(step)
    x = torch.randn(64, 64, device=args.device)
    for _ in range(args.steps):
        if args.hide:  # the GPU gets longer work than the host's gap before each call: it is hidden
            torch.cuda._sleep(int(args.ms * 4e6))  # ~2 GHz: about twice the gap, on the GPU
        compiled(x, args.ms)
    if args.device.startswith("cuda"):
        torch.cuda.synchronize()
    kept = took[2:]  # after the compiling calls
    print(f"expensive() median {statistics.median(kept) * 1000:.3f} ms over {len(kept)} calls")


if __name__ == "__main__":
    main()
