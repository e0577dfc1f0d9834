"""The sidecar's side of the wire, cheaper than pygls' own at each end of a round trip.

In: stdin is read by the event loop itself. pygls reads each header line and each body on a
worker thread (four thread hand-offs a message, each a wait for the GIL and a wake-up of the
loop); here one readable pipe wakes the loop once and the message is taken from its buffer.
A stdin the loop cannot watch (a regular file; any stdin on Windows) is read pygls' way.

Out: a message is encoded by `deja.jsonlib` (orjson when installed) in one call. pygls has
cattrs unstructure the whole message first, every hit and string of a `deja/*` result included,
then `json.dumps` it; here only LSP types are unstructured (by the same converter), plain
results go as they are. What jsonlib refuses (an integer over 64 bits, a lone surrogate, a
key that is not a string) goes pygls' way.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import Callable
from typing import Any, BinaryIO

import attrs
from pygls.io_ import StdinAsyncReader, run_async
from pygls.protocol import JsonRPCNotification, JsonRPCRequestMessage, JsonRPCResponseMessage
from pygls.server import JsonRPCServer

from deja import jsonlib

logger = logging.getLogger("deja.lsp")
# pygls' generic messages (every response, custom requests and notifications): their fields as
# they are, the `result` or `params` left to the encoder.
ENVELOPES = (JsonRPCResponseMessage, JsonRPCRequestMessage, JsonRPCNotification)
# A header line longer than this is not a header: dropped, as pygls drops any line it cannot use.
MAX_HEADER_LINE = 64 * 1024
NOT_A_HEADER = b"-\r\n"


class PipeReader:
    """pygls' reader interface over the loop's own stream of stdin."""

    def __init__(self, stream: asyncio.StreamReader) -> None:
        self.stream = stream

    async def readline(self) -> bytes:
        try:
            return await self.stream.readline()
        except ValueError:  # over MAX_HEADER_LINE: the stream dropped it
            return NOT_A_HEADER

    async def readexactly(self, n: int) -> bytes:
        try:
            return await self.stream.readexactly(n)
        except asyncio.IncompleteReadError as error:  # stdin closed mid-message
            return error.partial


async def read_messages(server: JsonRPCServer, stdin: BinaryIO, stop: threading.Event) -> None:
    """pygls' message loop over stdin, read by the event loop when it can watch it."""
    loop = asyncio.get_running_loop()
    stream = asyncio.StreamReader(limit=MAX_HEADER_LINE)
    reader: PipeReader | StdinAsyncReader = StdinAsyncReader(stdin, server.thread_pool)
    # Windows' proactor loop reads only pipes opened for overlapped I/O, which an inherited
    # stdin need not be: there, pygls' way.
    if os.name != "nt":
        try:
            await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stream), stdin)
            reader = PipeReader(stream)
        except (ValueError, OSError):  # a regular file: pygls' way
            pass
    await run_async(
        stop_event=stop,
        reader=reader,
        protocol=server.protocol,
        logger=logger,
        error_handler=server.report_server_error,
    )


def encoded(data: Any, unstructure: Callable[[Any], Any]) -> bytes | None:
    """The message as JSON bytes, or None when `deja.jsonlib` cannot encode it."""
    if isinstance(data, ENVELOPES):
        fields = attrs.asdict(data, recurse=False)
        value = {name: lsp_json(field, unstructure) for name, field in fields.items()}
    else:
        value = lsp_json(data, unstructure)
    try:
        return jsonlib.dumps(value)
    except TypeError:  # pygls' encoder says what is wrong
        return None


def lsp_json(value: Any, unstructure: Callable[[Any], Any]) -> Any:
    """An LSP type (`types.Hover`, a typed notification) as pygls' converter writes it; plain
    JSON as it is."""
    return unstructure(value) if attrs.has(type(value)) else value


def framed(body: bytes, content_type: str, charset: str) -> bytes:
    header = f"Content-Length: {len(body)}\r\nContent-Type: {content_type}; charset={charset}"
    return header.encode("ascii") + b"\r\n\r\n" + body
