"""Malformed messages are answered, not dropped.

pygls structures each message while its JSON is parsed; when that fails (`textDocument/hover {}`,
a position with a string for its line, a custom request without `params`) it logs a traceback
and raises, so the request is never answered. Here a message that cannot be structured becomes
`Malformed`, which `handle_message` answers with InvalidParams (and one log line) instead of
dispatching. Scalars are structured strictly (lsprotocol's converter would turn a `uri` of 5
into "5"), and pygls' traceback for each InvalidParams answer a handler gave is left out: that
is the client's mistake, already logged in one line by `errors.as_rpc_error`.

Custom requests' and notifications' `params` are kept as the plain JSON they came as (pygls
would make a namedtuple class for each object in them). How messages go out, and every other
use of pygls' internals, is `pygls_adapter`'s."""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from cattrs import BaseValidationError, Converter, transform_error
from lsprotocol import types
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInvalidParams,
    JsonRpcInvalidRequest,
    JsonRpcParseError,
)
from pygls.protocol import (
    JsonRPCNotification,
    JsonRPCRequestMessage,
    default_converter,
)

from .pygls_adapter import AdaptedProtocol

if TYPE_CHECKING:
    from .context import DejaServer


@dataclass(frozen=True, slots=True)
class Malformed:
    """A message that could not be structured. `message_id` is None for a notification, and
    for a request whose id is not a string or number (its answer's id is then null)."""

    method: str
    message_id: int | str | None
    is_request: bool
    error: JsonRpcException


def _scalar(value: Any, target: type[Any]) -> Any:
    """cattrs' own hook is `target(value)`, so str(5) and int("3") pass: check the JSON type
    first. Enums (subclasses of str and int) are still made by `target(value)`."""
    kind = bool if issubclass(target, bool) else int if issubclass(target, int) else str
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise TypeError(f"expected {kind.__name__}, not {type(value).__name__}")
    return target(value)


def _as_sent(data: dict[str, Any], message_type: type[Any]) -> Any:
    return message_type(**data)


def strict_converter() -> Converter:
    converter: Converter = default_converter()  # type: ignore[no-untyped-call]
    for kind in (str, int, bool):
        converter.register_structure_hook(kind, _scalar)
    # pygls' hooks for these re-parse `params` into a namedtuple class per object (0.2 ms a
    # request); `Params` reads the plain JSON as well.
    for generic in (JsonRPCRequestMessage, JsonRPCNotification):
        converter.register_structure_hook(generic, _as_sent)
    return converter


def _camel(path: str) -> str:
    return re.sub(r"_([a-z])", lambda match: match.group(1).upper(), path)


def problem(error: Exception) -> str:
    """cattrs' findings by the JSON names: `params.position.line: invalid value for type, …`."""
    found = []
    for line in transform_error(error, path=""):
        what, _, where = line.rpartition(" @ ")
        found.append(f"{_camel(where.removeprefix('.'))}: {what}" if what else line)
    return "; ".join(found)


class DejaProtocol(AdaptedProtocol):
    def structure_message(self, data: dict[str, Any]) -> Any:
        # Responses and plain JSON objects (this hook sees every object): pygls' way.
        if "jsonrpc" not in data or "method" not in data or "error" in data:
            return super().structure_message(data)
        method = data["method"]
        is_request = "id" in data
        raw_id = data.get("id")
        message_id = (
            raw_id if isinstance(raw_id, int | str) and not isinstance(raw_id, bool) else None
        )
        if not isinstance(method, str):
            error: JsonRpcException = JsonRpcInvalidRequest(f"method must be a string: {method!r}")
            return Malformed(str(method), message_id, is_request, error)
        message_type = self.get_message_type(method)
        if message_type is None:
            message_type = JsonRPCRequestMessage if is_request else JsonRPCNotification
            data = {"params": None, **data}  # JSON-RPC lets a request leave `params` out
        try:
            return self.converter.structure(data, message_type)
        except Exception as failure:
            detail = problem(failure) if isinstance(failure, BaseValidationError) else str(failure)
            error = JsonRpcInvalidParams(f"{method}: invalid parameters ({detail})")
            return Malformed(method, message_id, is_request, error)

    def handle_message(self, message: Any) -> None:
        if not isinstance(message, Malformed):
            super().handle_message(message)
            return
        cast("DejaServer", self.server).log(message.error.message, types.MessageType.Warning)
        if message.is_request:
            self.send_response(message.message_id, message.error.to_response_error())

    def answer_unparseable(self, error: Exception) -> None:
        """A frame whose body is not JSON: JSON-RPC's Parse error, to the null id (which
        request it was cannot be known), and one log line."""
        answer = JsonRpcParseError(f"a message that is not JSON was dropped ({error})")
        cast("DejaServer", self.server).log(answer.message, types.MessageType.Warning)
        self.send_response(None, answer.to_response_error())


def unparseable(error: Exception) -> bool:
    """The error of a frame whose body is not JSON (or not UTF-8)."""
    return isinstance(error, json.JSONDecodeError | UnicodeDecodeError)


class _WithoutClientMistakeTracebacks(logging.Filter):
    """pygls logs every error answer with its traceback; an InvalidParams one, or a frame that
    is not JSON, is the client's mistake, already answered and one log line."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, Exception) and unparseable(error):
            return False
        return not isinstance(error, JsonRpcInvalidParams)


_QUIET = _WithoutClientMistakeTracebacks()
# Where pygls logs a message it could not handle: its protocol, its TCP server, and the loop
# `transport.read_messages` runs for stdin (which logs to Deja's logger).
NOISY = ("pygls.protocol.json_rpc", "pygls.server", "deja.lsp")


def install(server: DejaServer) -> None:
    """Deja's protocol in place of the one `DejaServer`'s constructor made (pygls' own); called
    before any feature is registered, since features are kept by the protocol."""
    server.protocol = DejaProtocol(server, strict_converter())
    for name in NOISY:
        logging.getLogger(name).addFilter(_QUIET)
