"""Text shown in one line: whitespace flattened, a long text cut with its cut marked. Every
renderer (CLI, markdown, restore, digest, MCP) cuts this way."""

from __future__ import annotations


def one_line(text: str) -> str:
    """`text` with every run of whitespace (newlines too) one space, trimmed."""
    return " ".join(text.split())


def cut(text: str, limit: int) -> str:
    """`text` in one line of at most `limit` characters; a cut ends `…`."""
    flat = one_line(text)
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
