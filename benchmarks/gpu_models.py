"""The training steps of the kernel-depth round 2 (issue 45), one compiled frame each.

    inspectc run -q -o R.inspectc benchmarks/gpu_models.py --model resnet18 --device cuda
    inspectc run -q -o R.inspectc benchmarks/gpu_models.py --model gpt2 --device cuda

- ``resnet18``: timm's resnet18 built without weights (1000 classes), batch 32 at 224x224:
  most of its Triton kernels run over 10 µs a launch on an H100/H200;
- ``gpt2``: transformers' ``GPT2LMHeadModel`` from a config (4 layers, d=768, 12 heads,
  vocabulary 8192, no dropout, transformers' default attention), batch 16 x 512 tokens, loss on its own ids.

Each step: the compiled module's forward (``torch.compile(model)``: one frame, forward and
backward graphs), the loss, backward, then SGD (eager). Steps
past capture's timing window (the first 11 calls) make no difference to the report.

``GPU_MODELS_TUNERS=FILE``: at the end, every Inductor ``CachingAutotuner`` still alive, read
from the process itself (not through inspectc): its name, file, candidate configs and the
launcher(s) it ended with (config, ``n_regs``, ``cache_hash``), written to FILE as JSON; the
independent record of which compiled variant ran that ``benchmarks/gpu_resources.py --tuners``
compares with what ``ir`` shows.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import time
import warnings

import torch


def make(model: str, device: str) -> tuple[torch.nn.Module, object]:
    torch.manual_seed(0)
    if model == "resnet18":
        import timm

        net = timm.create_model("resnet18", pretrained=False).to(device)
        images = torch.randn(32, 3, 224, 224, device=device)
        labels = torch.randint(0, 1000, (32,), device=device)

        def loss(m: torch.nn.Module) -> torch.Tensor:  # the loss in eager: 32 x 1000
            return torch.nn.functional.cross_entropy(m(images), labels)

        return net, loss
    if model == "gpt2":
        from transformers import GPT2Config, GPT2LMHeadModel

        config = GPT2Config(
            n_layer=4, n_embd=768, n_head=12, vocab_size=8192, n_positions=512,
            resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0, bos_token_id=0, eos_token_id=0,
        )  # fmt: skip
        net = GPT2LMHeadModel(config).to(device)
        ids = torch.randint(0, config.vocab_size, (16, 512), device=device)

        def loss(m: torch.nn.Module) -> torch.Tensor:
            return m(input_ids=ids, labels=ids).loss

        return net, loss
    raise SystemExit(f"unknown model {model!r}: resnet18 or gpt2")


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--model", default="resnet18", choices=("resnet18", "gpt2"))
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--steps", type=int, default=14)
    opts = p.parse_args()
    net, loss_of = make(opts.model, opts.device)
    net.train()
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    compiled = torch.compile(net)
    start = time.perf_counter()
    loss = torch.zeros(())
    for _ in range(opts.steps):
        loss = loss_of(compiled)  # type: ignore[operator]
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    if opts.device.startswith("cuda"):
        torch.cuda.synchronize()
    print(f"{opts.model}: {opts.steps} steps, loss {loss.item():.3f}, {time.perf_counter() - start:.1f} s")
    if os.environ.get("GPU_MODELS_TUNERS"):
        tuners = dump_tuners()
        with open(os.environ["GPU_MODELS_TUNERS"], "w") as fh:
            json.dump(tuners, fh, indent=1)
        print(f"{len(tuners)} autotuners written to {os.environ['GPU_MODELS_TUNERS']}")


def _config(cfg: object) -> dict:
    kwargs = getattr(cfg, "kwargs", {}) or {}
    return {
        "kwargs": {k: v for k, v in kwargs.items() if isinstance(v, int | float | bool | str)},
        "num_warps": getattr(cfg, "num_warps", None),
        "num_stages": getattr(cfg, "num_stages", None),
    }


def dump_tuners() -> list[dict]:
    """Every CachingAutotuner alive in this process and the launchers it holds now."""
    from torch._inductor.runtime.triton_heuristics import CachingAutotuner

    out = []
    with warnings.catch_warnings():  # isinstance on torch.distributed's deprecated reduce_op warns
        warnings.simplefilter("ignore")
        tuners = [obj for obj in gc.get_objects() if isinstance(obj, CachingAutotuner)]
    for obj in tuners:
        meta = getattr(obj, "inductor_meta", {}) or {}
        out.append({
            "name": meta.get("kernel_name") or getattr(getattr(obj, "fn", None), "__name__", "?"),
            "filename": getattr(obj, "filename", None),
            "configs": [_config(c) for c in (getattr(obj, "configs", None) or ())],
            "compile_results": len(getattr(obj, "compile_results", None) or ()),
            "launchers": [
                {
                    "config": _config(getattr(x, "config", None)),
                    "n_regs": getattr(x, "n_regs", None),
                    "n_spills": getattr(x, "n_spills", None),
                    "shared": getattr(x, "shared", None),
                    "cache_hash": getattr(x, "cache_hash", None),
                    "static": bool(getattr(x, "_is_static", False)),
                }
                for x in getattr(obj, "launchers", None) or ()
            ],
        })  # fmt: skip
    return out


if __name__ == "__main__":
    main()
