"""Graph breaks of several kinds, and recompiles on shape and dtype.

    inspectc run samples/graph_breaks.py --size 64

Breaks: a print() call, a data-dependent branch on .item(), an explicit
torch._dynamo.graph_break(), and a call Dynamo cannot trace (a function from the
`random`-free C helper `zlib.crc32`). Recompiles: a new input shape and a new dtype.
"""

import argparse
import zlib

import torch


def with_print(x):
    x = torch.sin(x) + 1
    print("with_print: tracing past a print()")
    return torch.cos(x)


def data_dependent(x):
    y = x.relu()
    if y.sum().item() > 0:  # .item() breaks the graph; the branch depends on data
        return y * 2
    return y - 1


def explicit(x):
    a = x * 3
    torch._dynamo.graph_break()
    return a.tanh()


def unsupported(x):
    x = x + 1
    checksum = zlib.crc32(b"inspectc")  # a C function Dynamo cannot trace
    return x * (checksum % 7)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=64)
    args = parser.parse_args()
    torch.manual_seed(0)
    x = torch.randn(args.size)
    for fn in (with_print, data_dependent, explicit, unsupported):
        compiled = torch.compile(fn)
        for _ in range(3):  # the first call compiles; later calls are what timings measure
            compiled(x)
    shapes = torch.compile(data_dependent)
    shapes(torch.randn(args.size * 2))  # recompile: new shape
    shapes(torch.randn(args.size, dtype=torch.float64))  # recompile: new dtype
    print("done")


if __name__ == "__main__":
    main()
