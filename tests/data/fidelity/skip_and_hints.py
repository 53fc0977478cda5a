import torch, torch.nn as nn

torch.manual_seed(0)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        return torch.relu(self.fc(x))


def skipped(x):
    x = x + 1
    with open("/dev/null") as fh:  # Dynamo cannot enter a file: the whole frame runs eagerly
        x = x * 2
    return x.sin()


torch.compile(MLP())(torch.randn(2, 8))
torch.compile(skipped)(torch.randn(4))
