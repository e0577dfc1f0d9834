"""Custom requests (`deja/…`, see docs/protocol.md). Results use the CLI's JSON fields."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from lsprotocol import types

from deja import render_markdown
from deja.cli.render import event_json, hit_json, record_json, session_json
from deja.query import History, Hit, ScopeChoice, SearchQuery, SessionView

from .context import DejaServer
from .documents import FileView, contains
from .errors import RequestError, guarded
from .params import Params

SEARCH = "deja/search"
SESSIONS = "deja/sessions"
SESSION = "deja/session"
FILE_HISTORY = "deja/fileHistory"
FORK_COMMAND = "deja/forkCommand"
MAX_PAGE = 500


@dataclass(slots=True)
class Found:
    query: str
    hits: list[Hit]
    approximate: bool
    notes: list[str]


def run_search(
    history: History, params: Params, choice: ScopeChoice, default_limit: int = 20
) -> Found:
    query = SearchQuery(
        text=params.required_text("query"),
        scope=choice.scope,
        role=params.role(),
        file=params.file(),
        limit=params.integer("limit", default_limit, low=1, high=MAX_PAGE),
        offset=params.integer("offset", 0, high=1_000_000),
    )
    result = history.search(query)
    notes = list(choice.notes)
    if result.approximate:
        fixes = ", ".join(f"{a} → {b}" for a, b in result.corrections.items())
        notes.append(f"no exact match; approximate hits ({fixes})")
    return Found(query.text, result.hits, result.approximate, notes)


def search_result(history: History, params: Params, choice: ScopeChoice) -> dict[str, Any]:
    found = run_search(history, params, choice)
    return {
        "query": found.query,
        "scope": choice.scope.label,
        "approximate": found.approximate,
        "notes": found.notes,
        "hits": [hit_json(hit) for hit in found.hits],
    }


def sessions_result(history: History, params: Params, choice: ScopeChoice) -> dict[str, Any]:
    summaries = history.sessions(
        choice.scope,
        params.integer("limit", 50, low=1, high=MAX_PAGE),
        params.integer("offset", 0, high=1_000_000),
    )
    return {
        "scope": choice.scope.label,
        "notes": choice.notes,
        "sessions": [session_json(summary) for summary in summaries],
    }


def turns_json(view: SessionView) -> list[dict[str, Any]]:
    turns: list[dict[str, Any]] = []
    for record in view.records:
        if not turns or turns[-1]["turn"] != record.turn:
            turns.append(
                {
                    "turn": record.turn,
                    "time": record_json(record)["time"],
                    "compacted": record.compacted,
                    "records": [],
                }
            )
        turns[-1]["records"].append(record_json(record))
    return turns


def session_view(history: History, params: Params) -> SessionView:
    turn = params.optional_integer("turn")
    view = history.show(params.required_text("sessionId"), turn)
    if turn is not None and not view.records:
        raise RequestError(f"session {view.session.id} has no turn {turn}")
    return view


def session_result(history: History, params: Params) -> dict[str, Any]:
    view = session_view(history, params)
    return {
        "session": session_json(view.session),
        "turns": turns_json(view),
        "markdown": render_markdown.session(view),
    }


def range_json(span: types.Range | None) -> dict[str, Any] | None:
    if span is None:
        return None
    return {
        "start": {"line": span.start.line, "character": span.start.character},
        "end": {"line": span.end.line, "character": span.end.character},
    }


def file_history_result(view: FileView, position: types.Position | None) -> dict[str, Any]:
    """Each event with its hunks' `range` in the current text and the first of them as the
    event's `range` (null when none of its written text is there any more)."""
    events: list[dict[str, Any]] = []
    for event in view.events:
        spans = {placed.hunk: placed.range for placed in view.placed if placed.event is event}
        if position is not None and not any(contains(s, position) for s in spans.values()):
            continue
        data = event_json(event)
        del data["ranges"]  # zero-based LineRanges in code points: replaced by LSP ranges
        for index, hunk in enumerate(data["hunks"]):
            hunk["range"] = range_json(spans.get(index))
        data["range"] = range_json(spans[min(spans)]) if spans else None
        events.append(data)
    return {"uri": view.uri, "path": view.path, "events": events}


def fork_result(history: History, params: Params) -> dict[str, Any]:
    return asdict(history.fork_command(params.required_text("sessionId")))


def register(server: DejaServer) -> None:
    @server.feature(SEARCH)
    @guarded(SEARCH)
    async def search(ls: DejaServer, params: Any) -> dict[str, Any]:
        parsed = Params(SEARCH, params)
        history = await ls.history()
        return search_result(history, parsed, ls.scope(history, parsed.scope()))

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
