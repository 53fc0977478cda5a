"""A small model captured on a GPU for the IR line-map fixture (tests/data/gpu/linemap.inspectc).

    INSPECTC_SASS_WAIT_S=30 inspectc run -q -o linemap.inspectc tests/data/gpu/linemap_model.py

Each op on its own line, so a kernel line maps to one user line. Do not edit: the recorded
report's user lines point into this file (tests/test_kernel_depth.py reads them back here).
"""

import torch


class Net(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = torch.nn.Linear(64, 256)
        self.norm = torch.nn.LayerNorm(256)
        self.fc2 = torch.nn.Linear(256, 64)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.fc1(x)
        h = torch.nn.functional.gelu(h)
        h = self.norm(h)
        h = torch.sigmoid(h) * h
        out = self.fc2(h)
        return out + torch.tanh(x)


def main() -> None:
    torch.manual_seed(0)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    net = Net().to(device).eval()
    compiled = torch.compile(net)
    x = torch.randn(512, 64, device=device)
    with torch.no_grad():
        for _ in range(3):
            out = compiled(x)
    print(f"linemap model: {tuple(out.shape)}")


if __name__ == "__main__":
    main()
