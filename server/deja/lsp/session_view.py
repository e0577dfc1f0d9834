"""`deja/sessionView`: a session a page of turns at a time, for the editor's session view."""

from __future__ import annotations

from typing import Any

from deja.operations import ShowRequest
from deja.query import History
from deja.query.session_page import PAGE_TURNS
from deja.wire import session_page_json

from .context import DejaServer
from .errors import guarded
from .params import Params

SESSION_VIEW = "deja/sessionView"


# What the view reads of its request, under the sidecar's names (`sessionId`).
VIEW_FIELDS = ("session", "turn", "offset", "limit")


def session_view_result(history: History, params: Params) -> dict[str, Any]:
    """`sessionId`; `offset` and `limit` in turns, or `turn`: the page holding that turn."""
    request = params.request(ShowRequest, VIEW_FIELDS, {"limit": PAGE_TURNS})
    page = history.session_page(
        request.session,
        offset=request.offset,
        limit=request.limit or PAGE_TURNS,
        at_turn=request.turn,
    )
    return session_page_json(page)


def register(server: DejaServer) -> None:
    @server.feature(SESSION_VIEW)
    @guarded(SESSION_VIEW)
    async def session_view(ls: DejaServer, params: Any) -> dict[str, Any]:
        return session_view_result(await ls.history(), Params(SESSION_VIEW, params))
