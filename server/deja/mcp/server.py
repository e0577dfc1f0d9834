"""The MCP server on stdio, built on the official SDK's low-level `Server`: it sends exactly the
tool definitions of `tools.TOOLS` (nothing added), each marked read-only. Imported only by
`deja mcp`, so no other command pays for the SDK."""

from __future__ import annotations

import os
from typing import Any

import anyio
import anyio.to_thread
import mcp.types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server

import deja

from .tools import TOOLS, Recall


def tool_list() -> list[types.Tool]:
    return [
        types.Tool(
            name=spec.name,
            description=spec.description,
            input_schema=spec.input_schema,
            annotations=types.ToolAnnotations(read_only_hint=True),
        )
        for spec in TOOLS
    ]


def build_server(recall: Recall) -> Server[Any]:
    # One answer at a time: answers share one SQLite connection.
    limiter = anyio.CapacityLimiter(1)
    tools = tool_list()

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        text, is_error = await anyio.to_thread.run_sync(
            recall.answer, params.name, params.arguments or {}, limiter=limiter
        )
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)], is_error=is_error
        )

    return Server(
        "deja",
        version=deja.__version__,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def _serve(recall: Recall) -> None:
    server = build_server(recall)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def serve() -> None:
    """Serve on stdin/stdout until the client closes them. The workspace scope is the directory
    the client started us in."""
    recall = Recall(os.getcwd())
    recall.start()
    try:
        anyio.run(_serve, recall)
    finally:
        recall.close()
