"""`deja serve`: the sidecar language server (pygls is imported only when it runs)."""

from __future__ import annotations

import argparse


def run(args: argparse.Namespace) -> int:
    from deja.lsp.server import serve

    serve(args.tcp)
    return 0
