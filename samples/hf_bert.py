"""A tiny BERT (``BertModel`` from a config, no weights downloaded) forward under torch.compile.

    inspectc run samples/hf_bert.py [--device cuda] [--steps 2]

Embeddings, self-attention with a padding mask, layer norms and GELU: Inductor fuses the
pointwise work around the matmuls; the report lists the kernels per compiled frame.
"""

import argparse

import torch


def main() -> None:
    from transformers import BertConfig, BertModel

    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("--seq", type=int, default=16)
    parser.add_argument("--layers", type=int, default=2)
    args = parser.parse_args()
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=128,
        hidden_size=64,
        num_hidden_layers=args.layers,
        num_attention_heads=2,
        intermediate_size=128,
        max_position_embeddings=64,
    )
    model = BertModel(config).to(args.device).eval()
    compiled = torch.compile(model)
    ids = torch.randint(0, config.vocab_size, (2, args.seq), device=args.device)
    mask = torch.ones_like(ids)
    mask[1, args.seq // 2 :] = 0  # the second sequence is padded
    with torch.no_grad():
        for _ in range(args.steps):
            out = compiled(input_ids=ids, attention_mask=mask)
        expected = model(input_ids=ids, attention_mask=mask)
    torch.testing.assert_close(out.last_hidden_state, expected.last_hidden_state, rtol=1e-3, atol=1e-3)
    print(
        f"bert tiny: last_hidden_state {tuple(out.last_hidden_state.shape)}, pooler {tuple(out.pooler_output.shape)}"
    )


if __name__ == "__main__":
    main()
