"""`deja mcp`: the MCP server Continue's agent talks to on stdio (the SDK loads only here)."""

from __future__ import annotations

import argparse

from ..common import AddCommand


def add_parser(command: AddCommand) -> None:
    command(
        "mcp", "serve Deja's read-only recall tools over MCP on stdio (for Continue)", json=False
    )


def run(args: argparse.Namespace) -> int:
    from deja.mcp.server import serve

    serve()
    return 0
