"""The MCP tools' definitions: what `tools/list` sends. Kept apart from the answers (`tools.py`)
and from the SDK, so `deja mcp` can answer `initialize` and `tools/list` before either loads
(`front.py`).

Each tool's `inputSchema` is generated from its request type (`deja.operations`)."""

from __future__ import annotations

from typing import Any, NamedTuple

from deja.operations import (
    FileHistoryRequest,
    FilesRequest,
    FixRequest,
    RestoreRequest,
    SearchRequest,
    json_schema,
)


class ToolSpec(NamedTuple):
    name: str
    description: str
    input_schema: dict[str, Any]


# What each tool reads of its request: the schema and the converter (`tools.py`) both use these.
FIELDS: dict[str, tuple[type, tuple[str, ...]]] = {
    "deja_search": (SearchRequest, ("query", "scope", "since", "limit")),
    "deja_file_history": (FileHistoryRequest, ("path", "limit")),
    "deja_restore": (RestoreRequest, ("session", "topic")),
    "deja_fix": (FixRequest, ("error",)),
    "deja_files": (FilesRequest, ("topic",)),
}
DESCRIPTIONS = {
    "deja_search": "Search past Continue sessions (requests, replies, commands, edits): did we "
    "solve this before, what was decided, what fixed an error.",
    "deja_file_history": "Past edits to a file in Continue sessions: when, why, what changed.",
    "deja_restore": "A past session's context, with turns Continue's compaction removed. "
    'session: an id from deja_search or "last"; topic: its turns on it in full.',
    "deja_fix": "What fixed this error in past sessions.",
    "deja_files": "Files past sessions on a topic touched.",
}
# The schemas are generated from the request types, so what a tool is said to take is what it
# takes.
TOOLS = tuple(
    ToolSpec(name, DESCRIPTIONS[name], json_schema(kind, fields))
    for name, (kind, fields) in FIELDS.items()
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
