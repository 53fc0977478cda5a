"""The pointwise example from the PyTorch 2.0 tutorial: one fused kernel for sin(sin(x)).

inspectc run samples/sin_sin.py [--device cuda]
"""

import argparse

import torch


def fn(x):
    a = torch.sin(x)
    return torch.sin(a)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--size", type=int, default=10000)
    parser.add_argument("--calls", type=int, default=20)
    args = parser.parse_args()
    x = torch.randn(args.size, device=args.device)
    compiled = torch.compile(fn)
    for _ in range(args.calls):
        out = compiled(x)
    torch.testing.assert_close(out, fn(x))
    print(f"sin(sin(x)) on {args.device}: ok")


if __name__ == "__main__":
    main()
