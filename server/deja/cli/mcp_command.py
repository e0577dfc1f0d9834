"""`deja mcp`: the MCP server Continue's agent talks to on stdio (the SDK loads only here)."""

from __future__ import annotations

import argparse
from collections.abc import Callable

NAME = "mcp"


def add_parser(command: Callable[..., argparse.ArgumentParser]) -> None:
    command(
        NAME, "serve Deja's read-only recall tools over MCP on stdio (for Continue)", json=False
    )


def run(args: argparse.Namespace) -> int:
    from deja.mcp.server import serve

    serve()
    return 0
