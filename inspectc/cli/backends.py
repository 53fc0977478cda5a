"""``inspectc backends``: the ``torch.compile`` backends this Python can use.

Prints ``torch._dynamo.list_backends()`` (with ``--all``, also the debugging and testing
backends that list hides by default: ``aot_eager``, ``eager``...). The one reader-side
command that imports torch, by nature: through :func:`inspectc.capture.torch_api.list_backends`,
only inside the command.
"""

from __future__ import annotations

import argparse
import json

from inspectc.capture.torch_api import list_backends
from inspectc.cli import tty


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = subparsers.add_parser("backends", help="list torch.compile backends (imports torch)")
    p.add_argument("--all", action="store_true", help="include debugging and testing backends")
    p.add_argument("--json", action="store_true", help="a JSON object instead of text")
    p.set_defaults(func=cmd_backends)


def cmd_backends(args: argparse.Namespace) -> int:
    version, names = list_backends(args.all)
    if args.json:
        tty.out(json.dumps({"torch_version": version, "all": bool(args.all), "backends": names}))
        return 0
    which = "all torch.compile backends" if args.all else "torch.compile backends"
    tty.out(f"{which} (torch {version}):")
    for name in names:
        tty.out(f"  {name}")
    if not args.all:
        tty.out("(--all adds the debugging and testing ones: aot_eager, eager, ...)")
    return 0
