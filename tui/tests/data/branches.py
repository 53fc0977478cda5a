import torch


def f(x):
    y = x * 2
    if x.sum() > 0:
        y = y + 1
    else:
        y = y - 1
    return y.relu()


compiled = torch.compile(f)
compiled(torch.ones(8))
compiled(-torch.ones(8))
