"""Failures become JSON-RPC errors with a clear message and a `window/logMessage` line: one bad
request never takes the server down."""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar, cast

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInternalError, JsonRpcInvalidParams

from deja.errors import DejaError

if TYPE_CHECKING:
    from .context import DejaServer

F = TypeVar("F", bound=Callable[..., Any])
logger = logging.getLogger("deja.lsp")


class RequestError(DejaError):
    """The request cannot be answered as asked (missing or wrong parameters, index not open)."""


def as_rpc_error(ls: DejaServer, method: str, error: Exception) -> JsonRpcException:
    if isinstance(error, JsonRpcException):
        ls.log(f"{method}: {error.message}", types.MessageType.Warning)
        return error
    if isinstance(error, DejaError):  # the client's to fix: InvalidParams, not a server fault
        message = f"{method}: {error.message}"
        ls.log(message, types.MessageType.Warning)
        return JsonRpcInvalidParams(message)
    logger.exception("%s failed", method)
    message = f"{method} failed: {type(error).__name__}: {error}"
    ls.log(message, types.MessageType.Error)
    return JsonRpcInternalError(message)


def guarded(method: str) -> Callable[[F], F]:
    """Wrap a handler (sync or async, first parameter `ls`) so any failure is reported."""

    def decorate(handler: F) -> F:
        if inspect.iscoroutinefunction(handler):

            @functools.wraps(handler)
            async def run_async(ls: DejaServer, *args: Any) -> Any:
                try:
                    return await handler(ls, *args)
                except Exception as error:
                    raise as_rpc_error(ls, method, error) from error

            return cast(F, run_async)

        @functools.wraps(handler)
        def run(ls: DejaServer, *args: Any) -> Any:
            try:
                return handler(ls, *args)
            except Exception as error:
                raise as_rpc_error(ls, method, error) from error

        return cast(F, run)

    return decorate
