"""A tiny GPT-2 from Hugging Face transformers, built from a config (no weights downloaded).

    inspectc run samples/gpt2_tiny.py --steps 2

Real third-party model code: attention, layer norms, GELU, embeddings.
"""

import argparse

import torch


def main() -> None:
    from transformers import GPT2Config, GPT2LMHeadModel

    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("--seq", type=int, default=16)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    torch.manual_seed(0)
    config = GPT2Config(n_layer=2, n_head=2, n_embd=64, vocab_size=128, n_positions=64)
    model = GPT2LMHeadModel(config).to(args.device).eval()
    compiled = torch.compile(model)
    ids = torch.randint(0, config.vocab_size, (2, args.seq), device=args.device)
    with torch.no_grad():
        for _ in range(args.steps):
            logits = compiled(input_ids=ids).logits
    print(f"gpt2 tiny logits {tuple(logits.shape)}")


if __name__ == "__main__":
    main()
