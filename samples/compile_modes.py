"""The ``torch.compile`` options from the PyTorch 2.0 tutorials, one per ``--mode``.

  inspectc run samples/compile_modes.py --mode reduce-overhead [--device cuda]

reduce-overhead  CUDA graphs: the report says which frames were recorded as a CUDA graph and
                 why a frame was skipped (on CPU every frame is skipped: "cpu device").
max-autotune     GEMM autotuning: every choice benchmarked, its time, and the one picked.
                 On CPU the C++ GEMM template competes only for frozen weights, so this
                 mode turns on Inductor's ``freezing`` and runs under ``no_grad``.
dynamic          ``dynamic=True``: sizes become symbols (s0, s1...) with guards on them.
fullgraph        ``fullgraph=True`` on a function with a graph break: torch raises, the
                 script fails as Python makes it fail, and the report names the break.
aot_eager, eager other backends: graph breaks, recompiles and guards, but no kernels.
"""

import argparse

import torch
from torch import nn

MODES = ("reduce-overhead", "max-autotune", "dynamic", "fullgraph", "aot_eager", "eager")


class MLP(nn.Module):
    def __init__(self, width: int) -> None:
        super().__init__()
        self.fc1 = nn.Linear(width, width)
        self.fc2 = nn.Linear(width, width // 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(torch.relu(self.fc1(x))).sin()


def with_break(x: torch.Tensor) -> torch.Tensor:
    y = torch.cos(x) + 1
    print("with_break: a print() inside the compiled function")  # graph break
    return y * 2


def pad_rows(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    # Sizes enter the arithmetic, so shape guards relate x's and y's sizes.
    half = x.shape[0] // 2
    return (x * 2).sum(0) + y[:half].sum()


def run_reduce_overhead(device: str, width: int) -> None:
    model = MLP(width).to(device)
    compiled = torch.compile(model, mode="reduce-overhead")
    x = torch.randn(8, width, device=device)
    with torch.no_grad():
        for _ in range(5):  # warm-up call, then a recorded graph, then replays
            out = compiled(x).clone()  # a CUDA graph's output is overwritten by its next replay
        torch.testing.assert_close(out, model(x), rtol=1e-2, atol=1e-2)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for _ in range(3):  # a training step: forward and backward graphs
        compiled(x).sum().backward()
        opt.step()
        opt.zero_grad()


def run_max_autotune(device: str, width: int) -> None:
    import torch._inductor.config as inductor_config

    if device == "cpu":
        inductor_config.freezing = True  # the C++ GEMM template needs constant weights
    model = MLP(width).to(device).eval()
    compiled = torch.compile(model, mode="max-autotune")
    x = torch.randn(32, width, device=device)
    with torch.no_grad():
        for _ in range(3):
            out = compiled(x)
        torch.testing.assert_close(out, model(x), rtol=1e-2, atol=1e-2)


def run_dynamic(device: str, width: int) -> None:
    compiled = torch.compile(pad_rows, dynamic=True)
    for rows in (8, 10, 12):  # one compile serves every size
        x = torch.randn(rows, width, device=device)
        y = torch.randn(rows * 2, device=device)
        torch.testing.assert_close(compiled(x, y), pad_rows(x, y))


def run_fullgraph(device: str, width: int) -> None:
    compiled = torch.compile(with_break, fullgraph=True)
    compiled(torch.randn(width, device=device))  # raises: fullgraph forbids the break


def run_backend(device: str, width: int, backend: str) -> None:
    compiled = torch.compile(with_break, backend=backend)
    compiled(torch.randn(width, device=device))
    compiled(torch.randn(width * 2, device=device))  # new size: recompile
    model = torch.compile(MLP(width).to(device), backend=backend)
    model(torch.randn(4, width, device=device)).sum().backward()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", choices=MODES, required=True)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--width", type=int, default=64)
    args = parser.parse_args()
    torch.manual_seed(0)
    if args.mode == "reduce-overhead":
        run_reduce_overhead(args.device, args.width)
    elif args.mode == "max-autotune":
        run_max_autotune(args.device, args.width)
    elif args.mode == "dynamic":
        run_dynamic(args.device, args.width)
    elif args.mode == "fullgraph":
        run_fullgraph(args.device, args.width)
    else:
        run_backend(args.device, args.width, args.mode)
    print(f"compile_modes --mode {args.mode} on {args.device}: done")


if __name__ == "__main__":
    main()
