"""The MCP server on stdio, built on the official SDK's low-level `Server`: it sends exactly the
tool definitions of `tools.TOOLS` (nothing added), each marked read-only. Imported only by
`deja mcp` (`front.py`, once the handshake is answered), so no other command pays for the SDK.

Two things the SDK leaves unsaid are said here: a line it cannot read gets JSON-RPC's error
(the SDK drops it), and a request before `initialize` is refused with a message saying so
(the SDK's is a bare "Invalid request parameters")."""

from __future__ import annotations

from collections.abc import AsyncIterable
from typing import Any, Protocol

import anyio
import anyio.to_thread
import mcp.types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.server import Server, ServerRequestContext
from mcp.server.context import CallNext, HandlerResult
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

import deja

from .definitions import TOOLS
from .tools import Recall


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


# The SDK's answer to a request before `initialize` (kept as its code: clients may key on it).
NOT_INITIALIZED = types.ErrorData(
    code=types.INVALID_PARAMS, message="Invalid request parameters", data=""
)


class SayInitializeFirst:
    """Middleware: the SDK's refusal of a request before `initialize`, with a message."""

    async def __call__(self, ctx: ServerRequestContext[Any], call_next: CallNext) -> HandlerResult:
        try:
            return await call_next(ctx)
        except MCPError as error:
            early = ctx.request_id is not None and ctx.session.client_params is None
            if early and error.error == NOT_INITIALIZED:
                raise MCPError(
                    code=types.INVALID_PARAMS,
                    message=f"{ctx.method} came before initialize: send initialize first",
                ) from None
            raise


def unreadable_line_error(error: Exception) -> types.ErrorData | None:
    """JSON-RPC's error for a line the transport could not read; None for a blank line."""
    problems = error.errors() if isinstance(error, ValidationError) else []
    if problems and problems[0]["type"] == "json_invalid":
        line = problems[0].get("input")
        if isinstance(line, str) and not line.strip():
            return None
        return types.ErrorData(code=types.PARSE_ERROR, message="Parse error: the line is not JSON")
    return types.ErrorData(
        code=types.INVALID_REQUEST,
        message="Invalid Request: the line is not a JSON-RPC 2.0 message",
    )


class Sender(Protocol):
    """The SDK's write stream, as the relay uses it."""

    async def send(self, item: SessionMessage, /) -> None: ...

    async def aclose(self) -> None: ...


def read_line(line: bytes) -> SessionMessage | Exception:
    """One line as the stdio transport reads it."""
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(line, by_name=False))
    except Exception as error:
        return error


async def answer_unreadable_lines(
    incoming: AsyncIterable[SessionMessage | Exception],
    outgoing: Sender,
    relay: MemoryObjectSendStream[SessionMessage | Exception],
    early: list[bytes] | None = None,
) -> None:
    """Between the stdio transport and the server: the lines the front read (`early`) first,
    then the transport's; messages pass on; a line that could not be read (the transport hands
    over the exception) is answered with a null id, as JSON-RPC says."""

    async def lines() -> AsyncIterable[SessionMessage | Exception]:
        for line in early or ():
            yield read_line(line)
        async for item in incoming:
            yield item

    async with relay:
        async for item in lines():
            if not isinstance(item, Exception):
                await relay.send(item)
                continue
            error = unreadable_line_error(item)
            if error is not None:
                answer = types.JSONRPCError(jsonrpc="2.0", id=None, error=error)
                await outgoing.send(SessionMessage(answer))


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

    server: Server[Any] = Server(
        "deja",
        version=deja.__version__,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )
    server.middleware.append(SayInitializeFirst())
    return server


async def drop_answer_to(
    answers: MemoryObjectReceiveStream[SessionMessage], outgoing: Sender, answered: object
) -> None:
    """The server's messages to the transport, but for its answer to the `initialize` the
    front already answered (id `answered`; None: there is none). Closes the transport's end
    once the server has said everything."""
    try:
        async with answers:
            async for item in answers:
                message = item.message
                response_id = message.id if isinstance(message, types.JSONRPCResponse) else None
                if answered is not None and response_id == answered:
                    answered = None
                    continue
                await outgoing.send(item)
    finally:
        await outgoing.aclose()


async def _serve(recall: Recall, early: list[bytes], answered: object) -> None:
    server = build_server(recall)
    relay, relayed = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    out, answers = anyio.create_memory_object_stream[SessionMessage](0)
    async with stdio_server() as (read_stream, write_stream), anyio.create_task_group() as writer:
        writer.start_soon(drop_answer_to, answers, write_stream, answered)
        async with anyio.create_task_group() as reader:
            reader.start_soon(answer_unreadable_lines, read_stream, write_stream, relay, early)
            async with out:
                await server.run(relayed, out, server.create_initialization_options())
            reader.cancel_scope.cancel()  # the server is done: so is the relay


def serve_from(recall: Recall, early: list[bytes], answered: object) -> None:
    """Serve on stdin/stdout until the client closes them, starting with the lines the front
    read (`early`); the answer to the `initialize` with id `answered` was sent already."""
    anyio.run(_serve, recall, early, answered)
