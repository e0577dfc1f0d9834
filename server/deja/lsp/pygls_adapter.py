"""Every use of pygls' internals, in one place.

pygls 2 has no public hook for what the sidecar changes: how a message is written
(`_send_data`), how stdin is read (`_start_io_async`), which notifications are worth a warning
(`_handle_notification`, `_handle_cancel_notification`). So they are overridden here, and the
private members the rest of `lsp/` needs are named here publicly (`converter`, `server`,
`send_response`, `report_error`, `serialize`). Nothing else in `lsp/` touches a pygls private.

pyproject.toml pins the pygls these were read from; `PRIVATE_METHODS` and `PRIVATE_ATTRIBUTES`
list what is used, and tests/lsp/test_pygls_adapter.py fails when any of their signatures
changes, so a new pygls is adopted by reading its code, not by surprise."""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
from typing import Any, BinaryIO

from cattrs import Converter
from lsprotocol import types
from lsprotocol.types import CANCEL_REQUEST
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInternalError,
    JsonRpcMethodNotFound,
    PyglsError,
)
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.server import JsonRPCServer

from .transport import encoded, framed, read_messages

logger = logging.getLogger("deja.lsp")

# The private methods used (overridden or called), by the pygls class that defines them.
PRIVATE_METHODS: dict[str, tuple[str, ...]] = {
    "pygls.protocol.json_rpc.JsonRPCProtocol": (
        "_send_data",
        "_send_response",
        "_serialize_message",
        "_get_handler",
        "_handle_notification",
        "_handle_cancel_notification",
    ),
    "pygls.server.JsonRPCServer": ("_start_io_async", "_report_server_error"),
}
# The private attributes read or set, on the protocol and on the server.
PRIVATE_ATTRIBUTES: dict[str, tuple[str, ...]] = {
    "protocol": ("_converter", "_server", "_request_futures"),
    "server": ("_stop_event",),
}
ErrorSource = type[PyglsError] | type[JsonRpcException]


class AdaptedProtocol(LanguageServerProtocol):
    """pygls' protocol, writing through `transport` and quiet about ordinary notifications."""

    @property
    def converter(self) -> Converter:
        """The cattrs converter pygls structures and unstructures messages with."""
        return self._converter

    @property
    def server(self) -> JsonRPCServer:
        return self._server

    def serialize(self, data: Any) -> Any:
        """pygls' own JSON form of one value (its `json.dumps` default)."""
        return self._serialize_message(data)

    def send_response(self, message_id: Any, error: types.ResponseError) -> None:
        """An error answer; a `message_id` of None is JSON-RPC's null id."""
        self._send_response(message_id, error=error)

    def report_error(self, error: Exception, source: ErrorSource) -> None:
        """pygls' guarded call of the server's `report_server_error`."""
        self._server._report_server_error(error, source)

    def _send_data(self, data: Any) -> None:
        if isinstance(data, types.ResponseErrorMessage) and data.id is None:
            # JSON-RPC writes a null id (the request's could not be read); lsprotocol's
            # converter would leave the member out.
            error = self.converter.unstructure(data.error)
            data = {"jsonrpc": data.jsonrpc, "id": None, "error": error}
        body = encoded(data, self.serialize) if data and self.writer else None
        if body is None:  # nothing to send, or what orjson cannot encode: pygls' way
            super()._send_data(data)
            return
        assert self.writer is not None
        try:
            # stdio's and TCP's writers write at once (Deja serves no websocket).
            self.writer.write(framed(body, self.CONTENT_TYPE, self.CHARSET))
        except BrokenPipeError:
            raise  # the client is gone: pygls ends the server
        except Exception as error:
            self.report_error(error, JsonRpcInternalError)

    def _handle_notification(self, method_name: str, params: Any) -> None:
        # A notification the server has no use for (eglot's `didSave` on every save, a
        # `$/`-method) is ignored, as LSP says, without a warning on stderr each time.
        try:
            self._get_handler(method_name)
        except JsonRpcMethodNotFound:
            if method_name != CANCEL_REQUEST:
                return
        super()._handle_notification(method_name, params)

    def _handle_cancel_notification(self, msg_id: Any) -> None:
        # A cancel that crosses the answer is ordinary (LSP allows it): no warning for it.
        if msg_id in self._request_futures:
            super()._handle_cancel_notification(msg_id)


class AdaptedServer(LanguageServer):
    """pygls' language server, its stdin read by the event loop (`transport.read_messages`)."""

    def _start_io_async(
        self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None
    ) -> None:
        # pygls' own, but for the reader; `shutdown` sets `_stop_event` to end the loop.
        self._stop_event = stop = threading.Event()
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        try:
            asyncio.run(read_messages(self, stdin or sys.stdin.buffer, stop))
        except BrokenPipeError:
            logger.error("Connection to the client is lost! Shutting down the server.")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()

    def shutdown(self) -> None:
        super().shutdown()  # type: ignore[no-untyped-call]
