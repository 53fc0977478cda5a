"""Splitting a command line that runs a script: inspectc's own options, then the script's.

``inspectc run [OPTIONS] script.py ARGS`` and ``inspectc accuracy [OPTIONS] script.py ARGS``
(and ``-m module``) read their own options up to the first word that is not one; everything
from there on belongs to the user's program, even words that look like inspectc's options.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from inspectc.errors import UsageError
from inspectc.model import CompileId


def compile_id_arg(text: str) -> CompileId:
    """A ``--frame`` value ("0/1", "[0/1]", "!2/0/1", "0/0#2"): the one place the CLI parses an id."""
    cid = CompileId.parse(text.strip().strip("[]"))
    if cid == CompileId():
        raise UsageError(f"--frame: not a compile id: {text!r} (e.g. 0/1, !1/0/0, 0/0#2)")  # one line
    return cid


def split_own(
    argv: Sequence[str], *, command: str, value_options: Collection[str], flags: Collection[str]
) -> tuple[list[str], list[str]]:
    """(the command's own options, the script or ``-m`` module and its arguments)."""
    own: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            return own, list(argv[i + 1 :])
        if arg in value_options:
            own.extend(argv[i : i + 2])
            i += 2
            if arg == "-m":
                return own, list(argv[i:])
            continue
        if arg in flags or (arg.startswith("--") and arg.split("=", 1)[0] in value_options):
            own.append(arg)
        elif arg.startswith("-") and arg != "-":
            raise UsageError(f"inspectc {command}: unknown option {arg} (options go before the script)")
        else:
            return own, list(argv[i:])
        i += 1
    return own, []
