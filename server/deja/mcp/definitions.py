"""The MCP tools' definitions: what `tools/list` sends. Kept apart from the answers (`tools.py`)
and from the SDK, so `deja mcp` can answer `initialize` and `tools/list` before either loads
(`front.py`)."""

from __future__ import annotations

from typing import Any, NamedTuple


class ToolSpec(NamedTuple):
    name: str
    description: str
    input_schema: dict[str, Any]


TOOLS = (
    ToolSpec(
        "deja_search",
        "Search past Continue sessions (requests, replies, commands, edits) for earlier work: "
        "did we solve this before, what was decided, which command fixed an error.",
        {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": 'words, "a phrase", prefix*, -not'},
                "scope": {"type": "string", "enum": ["workspace", "all", "team"]},
                "since": {"type": "string", "description": "30m, 12h, 7d, 2w or 2026-11-01"},
                "limit": {"type": "integer", "minimum": 1, "maximum": 20},
            },
            "required": ["query"],
        },
    ),
    ToolSpec(
        "deja_file_history",
        "Past edits to a file in Continue sessions: when, the request behind each, what changed.",
        {
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "limit": {"type": "integer", "minimum": 1, "maximum": 20},
            },
            "required": ["path"],
        },
    ),
    ToolSpec(
        "deja_restore",
        "Context of a past session, including turns Continue's compaction removed. session: an "
        'id from deja_search or "last"; topic: show the turns about it in full.',
        {
            "type": "object",
            "properties": {"session": {"type": "string"}, "topic": {"type": "string"}},
        },
    ),
    ToolSpec(
        "deja_fix",
        "What fixed this error in past sessions.",
        {"type": "object", "properties": {"error": {"type": "string"}}, "required": ["error"]},
    ),
    ToolSpec(
        "deja_files",
        "Files past sessions on a topic touched.",
        {"type": "object", "properties": {"topic": {"type": "string"}}, "required": ["topic"]},
    ),
)


def tool_dicts() -> list[dict[str, Any]]:
    """`tools/list`'s tools as the SDK sends them: each marked read-only, nothing added."""
    return [
        {
            "annotations": {"readOnlyHint": True},
            "description": spec.description,
            "inputSchema": spec.input_schema,
            "name": spec.name,
        }
        for spec in TOOLS
    ]
