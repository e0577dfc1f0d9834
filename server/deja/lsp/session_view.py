"""`deja/sessionView`: a session a page of turns at a time, for the editor's session view."""

from __future__ import annotations

from typing import Any

from deja.query import History
from deja.query.session_page import PAGE_TURNS
from deja.wire import session_page_json

from .context import DejaServer
from .errors import guarded
from .params import Params

SESSION_VIEW = "deja/sessionView"


def _position(params: Params, name: str) -> int | None:
    present = params.values.get(name) is not None
    return params.integer(name, None, high=100_000_000) if present else None


def session_view_result(history: History, params: Params) -> dict[str, Any]:
    """`sessionId`; `offset` and `limit` in turns, or `turn`: the page holding that turn."""
    page = history.session_page(
        params.required_text("sessionId"),
        offset=_position(params, "offset"),
        limit=params.integer("limit", PAGE_TURNS, low=1, high=500),
        at_turn=_position(params, "turn"),
    )
    return session_page_json(page)


def register(server: DejaServer) -> None:
    @server.feature(SESSION_VIEW)
    @guarded(SESSION_VIEW)
    async def session_view(ls: DejaServer, params: Any) -> dict[str, Any]:
        return session_view_result(await ls.history(), Params(SESSION_VIEW, params))
