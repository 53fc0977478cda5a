"""A frame that hits the recompile limit: from then on its new inputs run eagerly, silently.

`dynamic=False` specialises `energy` on every length; with `recompile_limit = 4` Dynamo refuses
the fifth compile and, from then on, runs only the four graphs it has: every other length runs
eagerly, every time, and torch says so once. The function counts its own eager calls
(`torch.compiler.is_compiling()` is False only when it runs eagerly), so what `inspectc run`
counted can be checked against it:

    inspectc run samples/recompile_limit.py
"""

import torch

eager_calls = 0


def energy(x: torch.Tensor) -> torch.Tensor:
    global eager_calls
    if not torch.compiler.is_compiling():
        eager_calls += 1
    return (x * x).sum()


def main() -> None:
    torch._dynamo.config.recompile_limit = 4
    f = torch.compile(energy, backend="eager", dynamic=False)
    total = 0.0
    for _ in range(3):
        for n in range(2, 12):  # 10 lengths: 4 compiled, 6 run eagerly once the limit is hit
            total += float(f(torch.arange(n, dtype=torch.float32)))
    print(f"{total:.1f}")
    print(f"eager calls: {eager_calls}")


if __name__ == "__main__":
    main()
