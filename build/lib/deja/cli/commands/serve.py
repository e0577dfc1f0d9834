"""`deja serve`: the sidecar language server (pygls is imported only when it runs)."""

from __future__ import annotations

import argparse

from ..common import AddCommand


def _port(value: str) -> int:
    port = int(value)
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError("a port is 1–65535")
    return port


def add_parser(command: AddCommand) -> None:
    sub = command("serve", "run the language server editors talk to (stdio by default)", json=False)
    sub.add_argument(
        "--tcp",
        type=_port,
        metavar="PORT",
        help="listen on 127.0.0.1:PORT instead of stdio (for debugging; never other addresses)",
    )


def run(args: argparse.Namespace) -> int:
    from deja.lsp.server import serve

    serve(args.tcp)
    return 0
