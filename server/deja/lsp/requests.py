"""Custom requests (`deja/…`, see docs/protocol.md). Results are built from `deja.wire`'s shapes."""

from __future__ import annotations

import asyncio
from dataclasses import asdict, dataclass
from typing import Any

from lsprotocol import types

from deja import render_markdown
from deja.operations import SearchRequest, SessionsRequest, ShowRequest
from deja.query import History, Hit, ScopeChoice, SearchQuery, SessionView
from deja.wire import hit_json, placed_event_json, session_json, turns_json

from .context import DejaServer
from .documents import FileView
from .errors import RequestError, guarded
from .params import Params
from .team import TEAM_STATUS, team_search_result, team_status_result

SEARCH = "deja/search"
SESSIONS = "deja/sessions"
SESSION = "deja/session"
FILE_HISTORY = "deja/fileHistory"
FORK_COMMAND = "deja/forkCommand"
# What `deja/search`, `deja/sessions` and `deja/session` read of their requests (under the
# sidecar's names: `count` is `count_all`, `sessionId` is `session`).
SEARCH_FIELDS = ("query", "scope", "role", "since", "limit", "offset", "project", "count_all")
SESSIONS_FIELDS = ("scope", "limit", "offset")
SESSION_FIELDS = ("session", "turn")


@dataclass(slots=True)
class Found:
    query: str
    hits: list[Hit]
    approximate: bool
    notes: list[str]
    total: int | None


def search_request(params: Params, default_limit: int = 20) -> SearchRequest:
    # Counting every hit costs a second query over a full page: only when asked.
    return params.request(
        SearchRequest, SEARCH_FIELDS, {"limit": default_limit}, file=params.file()
    )


def run_search(
    history: History, params: Params, choice: ScopeChoice, default_limit: int = 20
) -> Found:
    request = search_request(params, default_limit)
    query = SearchQuery(
        text=request.query,
        scope=choice.scope,
        role=request.role,
        file=request.file,
        since=request.since,
        limit=request.limit,
        offset=request.offset,
        count_all=request.count_all,
    )
    result = history.search(query, scope_notes=choice.notes)
    total = result.total if query.count_all else None
    return Found(query.text, result.hits, result.approximate, result.notes, total)


def search_result(history: History, params: Params, choice: ScopeChoice) -> dict[str, Any]:
    found = run_search(history, params, choice)
    return {
        "query": found.query,
        "scope": choice.scope.label,
        "approximate": found.approximate,
        "notes": found.notes,
        "total": found.total,
        "hits": [hit_json(hit) for hit in found.hits],
    }


def sessions_result(history: History, params: Params, choice: ScopeChoice) -> dict[str, Any]:
    request = params.request(SessionsRequest, SESSIONS_FIELDS, {})
    summaries = history.sessions(choice.scope, request.limit, request.offset)
    return {
        "scope": choice.scope.label,
        "notes": choice.notes,
        "sessions": [session_json(summary) for summary in summaries],
    }


def session_view(history: History, request: ShowRequest) -> SessionView:
    view = history.show(request.session, request.turn)
    if request.turn is not None and not view.records:
        raise RequestError(f"session {view.session.id} has no turn {request.turn}")
    return view


def session_result(history: History, params: Params) -> dict[str, Any]:
    view = session_view(history, params.request(ShowRequest, SESSION_FIELDS, {}))
    return {
        "session": session_json(view.session),
        "turns": turns_json(view),
        "markdown": render_markdown.session(view),
    }


def range_json(span: types.Range) -> dict[str, Any]:
    return {
        "start": {"line": span.start.line, "character": span.start.character},
        "end": {"line": span.end.line, "character": span.end.character},
    }


def file_history_result(view: FileView, position: types.Position | None) -> dict[str, Any]:
    """Each event with its hunks' `range` in the current text (from the first to the last line
    its written text claims) and the first of them as the event's `range` (null when none of
    its written text is there any more), `changed` when a line it wrote was edited since; with
    `position`, only the edits that wrote that line."""
    events: list[dict[str, Any]] = []
    wrote = None if position is None else {id(p.event) for p in view.covering(position)}
    for event in view.events:
        spans = {placed.hunk: placed.range for placed in view.placed if placed.event is event}
        if wrote is not None and id(event) not in wrote:
            continue
        ranges = {h: range_json(s) for h, s in spans.items()}
        events.append(placed_event_json(event, ranges, changed=id(event) in view.changed))
    return {"uri": view.uri, "path": view.path, "events": events}


def fork_result(history: History, params: Params) -> dict[str, Any]:
    return asdict(history.fork_command(params.required_text("sessionId")))


def register(server: DejaServer) -> None:
    @server.feature(SEARCH)
    @guarded(SEARCH)
    async def search(ls: DejaServer, params: Any) -> dict[str, Any]:
        parsed = Params(SEARCH, params)
        request = search_request(parsed)  # its `scope` checked as every door checks it
        if request.scope == "team":
            return await team_search_result(request)
        history = await ls.history()
        return search_result(history, parsed, ls.scope(history, request.scope))

    @server.feature(TEAM_STATUS)
    @guarded(TEAM_STATUS)
    async def team_status(ls: DejaServer, params: Any) -> dict[str, Any]:
        return await asyncio.to_thread(team_status_result)

    @server.feature(SESSIONS)
    @guarded(SESSIONS)
    async def sessions(ls: DejaServer, params: Any) -> dict[str, Any]:
        parsed = Params(SESSIONS, params)
        history = await ls.history()
        return sessions_result(history, parsed, ls.scope(history, parsed.scope()))

    @server.feature(SESSION)
    @guarded(SESSION)
    async def session(ls: DejaServer, params: Any) -> dict[str, Any]:
        parsed = Params(SESSION, params)
        return session_result(await ls.history(), parsed)

    @server.feature(FILE_HISTORY)
    @guarded(FILE_HISTORY)
    async def file_history(ls: DejaServer, params: Any) -> dict[str, Any]:
        parsed = Params(FILE_HISTORY, params)
        uri, position = parsed.required_text("uri"), parsed.position()
        view = ls.file_view(await ls.history(), uri)
        if view is None:
            raise RequestError(f"{uri} is not a file: URI")
        return file_history_result(view, position)

    @server.feature(FORK_COMMAND)
    @guarded(FORK_COMMAND)
    async def fork_command(ls: DejaServer, params: Any) -> dict[str, Any]:
        parsed = Params(FORK_COMMAND, params)
        return fork_result(await ls.history(), parsed)
