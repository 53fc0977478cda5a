"""``inspectc graph``: Graphviz pictures of a report (fusion view of a frame, break view of a run)."""

from __future__ import annotations

import argparse
import sys

from inspectc.errors import UsageError
from inspectc.readers.text import printable

DEFAULT_MAX_NODES = 400


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = subparsers.add_parser(
        "graph",
        help="draw a frame's fusion graph or the run's graph breaks (Graphviz)",
        description=(
            "Fusion view of one frame (--frame CID): the post-grad FX graph with each generated"
            " kernel's fused nodes in one cluster, coloured by its share of the frame's time."
            " Break view (--breaks, the default without --frame): compiled frames in execution"
            " order, graph breaks and recompiles as edges. The format follows -o's extension"
            " (.svg .png .pdf need Graphviz's dot; .dot does not); without -o, DOT goes to stdout."
        ),
    )
    p.add_argument("report")
    view = p.add_mutually_exclusive_group()
    view.add_argument("--frame", metavar="CID", help="fusion view of this compile id, e.g. 0/1")
    view.add_argument("--breaks", action="store_true", help="break view of the whole run (default)")
    p.add_argument("-o", "--output", metavar="PATH", help="picture to write: .svg .png .pdf or .dot")
    p.add_argument("--backward", action="store_true", help="the frame's backward graph and kernels")
    p.add_argument("--rank", type=int, help="rank of the frame, in a distributed run")
    p.add_argument(
        "--max-nodes",
        type=int,
        default=DEFAULT_MAX_NODES,
        metavar="N",
        help=f"collapse bigger graphs by module path, then by kernel (default {DEFAULT_MAX_NODES}; 0: no limit)",
    )
    p.add_argument("--collapse", type=int, metavar="DEPTH", help="one box per module path of DEPTH parts")
    p.add_argument("--module", metavar="PATH", help="only the nodes of one module, e.g. layers.3.attn")
    p.set_defaults(func=cmd_graph)


def cmd_graph(args: argparse.Namespace) -> int:
    from inspectc.readers.graph import breaks_dot, fusion_dot, render
    from inspectc.report.open import open_report

    if args.max_nodes < 0:
        raise UsageError("--max-nodes must be 0 (no limit) or more")
    if args.collapse is not None and args.collapse < 1:
        raise UsageError("--collapse wants a depth of 1 or more")
    if args.frame is None:
        fusion_only = [o for o, v in (("--backward", args.backward), ("--module", args.module)) if v]
        if args.collapse is not None:
            fusion_only.append("--collapse")
        if fusion_only:
            raise UsageError(f"{', '.join(fusion_only)}: only for the fusion view, add --frame CID")
    with open_report(args.report) as report:
        if args.frame is None:
            text = breaks_dot(report)
        else:
            text = fusion_dot(
                report,
                args.frame,
                rank=args.rank,
                max_nodes=args.max_nodes or None,
                module=args.module,
                collapse=args.collapse,
                backward=args.backward,
            )
    if not args.output or args.output == "-":
        sys.stdout.write(printable(text, keep="\n\t"))  # DOT on a terminal: no escapes, no bidi
        return 0
    path = render(text, args.output)
    print(f"wrote {path}", file=sys.stderr)
    return 0
