"""`deja mcp`: the MCP server Continue's agent talks to on stdio (the SDK loads only here)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse


def serve_now() -> int:
    """`deja mcp` as `cn` runs it: the handshake answered before anything heavy loads."""
    from deja.mcp.front import serve

    serve()
    return 0


def run(args: argparse.Namespace) -> int:
    return serve_now()
