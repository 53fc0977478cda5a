"""TIMM convnets under torch.compile: a forward pass and one training step (no pretrained weights).

    inspectc run samples/timm_resnet.py [--model resnet18 | resnext26ts] [--device cuda]

As in the PyTorch 2.0 tutorials' TIMM benchmarks, built with ``timm.create_model(name,
pretrained=False)``: an inference forward (eval, ``no_grad``), then a training step (forward,
backward, SGD). The second compile is a recompile on the grad-mode guard; the training
frame carries forward and backward graphs and their kernels. Needs ``timm`` (and so
``torchvision``).
"""

import argparse
import time

import torch


def main() -> None:
    import timm

    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="resnet18", help="any timm model name (resnet18, resnext26ts...)")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--size", type=int, default=96, help="image height and width")
    parser.add_argument("--steps", type=int, default=3, help="calls of each phase (the first compiles)")
    args = parser.parse_args()
    torch.manual_seed(0)
    model = timm.create_model(args.model, pretrained=False, num_classes=10).to(args.device)
    compiled = torch.compile(model)
    images = torch.randn(args.batch, 3, args.size, args.size, device=args.device)
    labels = torch.randint(0, 10, (args.batch,), device=args.device)

    model.eval()
    with torch.no_grad():
        start = time.perf_counter()
        for _ in range(args.steps):
            logits = compiled(images)
        _sync(args.device)
        print(f"{args.model} forward: {tuple(logits.shape)} in {time.perf_counter() - start:.1f}s")

    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    start = time.perf_counter()
    for _ in range(args.steps):
        loss = torch.nn.functional.cross_entropy(compiled(images), labels)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    _sync(args.device)
    print(f"{args.model} training: loss {loss.item():.3f} in {time.perf_counter() - start:.1f}s")


def _sync(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


if __name__ == "__main__":
    main()
