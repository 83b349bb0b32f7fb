"""`tsjit graph`: the IR graphs of an archive's methods, as text, Graphviz DOT or SVG."""
from __future__ import annotations

import argparse

from . import methods
from .files import archive_only, write_text

HELP = "print the graphs of methods (top module by default) as text, DOT or SVG"
EXAMPLE = "tsjit graph model.pt --module layer1.0 --inlined --format svg -o graph.svg"


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The command's arguments."""
    p.add_argument("archive", help="a TorchScript archive")
    methods.add_arguments(p)
    p.add_argument("--format", choices=("text", "dot", "svg"), default="text",
                   help="text (default), dot (Graphviz) or svg (needs Graphviz's dot program)")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")


def run(args: argparse.Namespace) -> int:
    """Load the archive and print (or write) the selected methods' graphs."""
    from .dot import to_dot, to_svg
    archive_only(args.archive, "graph")
    chosen = [(s.title, methods.graph_of(s, args.inlined)) for s in methods.select(args.archive, args)]
    if args.format == "text":
        text = "".join(f"# {title}\n{g}\n" for title, g in chosen)
    else:
        text = to_dot(chosen)
        if args.format == "svg":
            text = to_svg(text)
    if args.output:
        write_text(args.output, text)
    else:
        print(text, end="")
    return 0
