"""A causal LM ``generate()`` loop on a compiled model: a tiny GPT-NeoX (dolly-v2's architecture).

    inspectc run samples/hf_generate.py [--device cuda] [--new-tokens 6]

Built from a config (no weights, no hub). ``model.compile()`` compiles the module in place, so
``generate()`` calls the compiled forward at every step. The prompt step and the first decode
step see different shapes, so Dynamo recompiles; with the default ``dynamic=None`` that
recompile marks the changing sizes dynamic, and later steps (a longer KV cache each time) reuse
it. The report lists each recompile with the guard that failed.
"""

import argparse

import torch


def main() -> None:
    from transformers import GPTNeoXConfig, GPTNeoXForCausalLM

    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--new-tokens", type=int, default=6)
    parser.add_argument("--prompt-len", type=int, default=8)
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--layers", type=int, default=2)
    args = parser.parse_args()
    torch.manual_seed(0)
    config = GPTNeoXConfig(
        vocab_size=128,
        hidden_size=64,
        num_hidden_layers=args.layers,
        num_attention_heads=2,
        intermediate_size=128,
        max_position_embeddings=128,
        rotary_pct=0.25,
        use_parallel_residual=True,  # as in dolly-v2 (Pythia)
        eos_token_id=0,
        pad_token_id=0,
    )
    model = GPTNeoXForCausalLM(config).to(args.device).eval()
    model.compile()
    prompt = torch.randint(1, config.vocab_size, (args.batch, args.prompt_len), device=args.device)
    with torch.no_grad():
        out = model.generate(
            prompt,
            attention_mask=torch.ones_like(prompt),
            max_new_tokens=args.new_tokens,
            min_new_tokens=args.new_tokens,
            do_sample=False,
        )
    print(f"generated {out.shape[1] - args.prompt_len} tokens: {out[0, args.prompt_len :].tolist()}")


if __name__ == "__main__":
    main()
