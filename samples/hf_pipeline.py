"""``pipeline("text-generation")`` on a compiled model, with a tokenizer built locally (no hub).

    inspectc run samples/hf_pipeline.py [--device cuda] [--new-tokens 3]

The tokenizer is a word-level ``tokenizers`` model trained on a few sentences and wrapped in
``PreTrainedTokenizerFast``; the model is a tiny GPT-NeoX from a config, compiled in place with
``model.compile()`` so the pipeline's ``generate()`` runs the compiled forward.
"""

import argparse

import torch

SENTENCES = [
    "the tutorial compiles a model with torch compile",
    "a graph break splits the model into two graphs",
    "the compiled model generates text one token at a time",
    "guards decide when a frame must be compiled again",
]


def build_tokenizer():  # noqa: ANN201 - a transformers tokenizer
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.WordLevel(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator(SENTENCES, trainers.WordLevelTrainer(special_tokens=["[PAD]", "[UNK]", "[EOS]"]))
    return PreTrainedTokenizerFast(
        tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]", eos_token="[EOS]"
    )


def main() -> None:
    from transformers import GPTNeoXConfig, GPTNeoXForCausalLM, pipeline

    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--new-tokens", type=int, default=3)
    parser.add_argument("--layers", type=int, default=1)
    args = parser.parse_args()
    torch.manual_seed(0)
    tokenizer = build_tokenizer()
    config = GPTNeoXConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        num_hidden_layers=args.layers,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=64,
        rotary_pct=0.25,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    model = GPTNeoXForCausalLM(config).to(args.device).eval()
    model.compile()
    generator = pipeline("text-generation", model=model, tokenizer=tokenizer, device=args.device)
    out = generator(
        "the compiled model",
        max_new_tokens=args.new_tokens,
        min_new_tokens=args.new_tokens,
        do_sample=False,
    )
    print(f"pipeline: {out[0]['generated_text']!r}")


if __name__ == "__main__":
    main()
