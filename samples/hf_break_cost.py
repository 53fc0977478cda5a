"""A tiny GPT-2 (transformers, from a config) in a compiled decoding step with a real graph
break: the step hands its logits to an eager helper (``torch._dynamo.disable``: top-k sampling
with a Python loop over the batch, as decoding code often has), then goes on in the graph.

The helper times itself with time.perf_counter; the script prints its median, so what
``inspectc run`` measured for that break can be checked against it:

    inspectc run samples/hf_break_cost.py            # --device cuda on a GPU machine
"""

import argparse
import statistics
import time

import torch

took: list[float] = []


@torch._dynamo.disable
def sample_next(logits: torch.Tensor, k: int, rounds: int) -> torch.Tensor:
    """Top-k sampling per sequence, eagerly (a Python loop Dynamo is not asked to trace)."""
    start = time.perf_counter()
    picked = []
    for row in logits[:, -1, :]:
        for _ in range(rounds):  # repeated so the eager part is clearly measurable
            values, index = torch.topk(row.float(), k)
            choice = index[torch.multinomial(torch.softmax(values, dim=-1), 1)]
        picked.append(choice)
    out = torch.stack(picked)
    took.append(time.perf_counter() - start)
    return out


def main() -> None:
    from transformers import GPT2Config, GPT2LMHeadModel

    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=14)
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    torch.manual_seed(0)
    config = GPT2Config(n_layer=2, n_head=2, n_embd=64, vocab_size=512, n_positions=64)
    model = GPT2LMHeadModel(config).to(args.device).eval()

    def step(ids: torch.Tensor) -> torch.Tensor:
        logits = model(input_ids=ids).logits
        nxt = sample_next(logits, 8, args.rounds)  # graph break: a disabled, eager helper
        return torch.cat([ids, nxt], dim=1)[:, 1:].contiguous()  # compiled again after the break

    compiled = torch.compile(step)
    ids = torch.randint(0, config.vocab_size, (2, 16), device=args.device)
    with torch.no_grad():
        for _ in range(args.steps):
            ids = compiled(ids)
    if args.device.startswith("cuda"):
        torch.cuda.synchronize()
    print(f"sample_next() median {statistics.median(took[2:]) * 1000:.3f} ms over {len(took) - 2} calls")


if __name__ == "__main__":
    main()
