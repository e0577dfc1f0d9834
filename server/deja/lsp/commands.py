"""`workspace/executeCommand`: each command renders markdown to a file under DEJA_HOME and opens
it with `window/showDocument`. Server command ids are `deja.*`; the VS Code extension's own are
`deja.vscode.*`, because vscode-languageclient registers these ids as VS Code commands."""

from __future__ import annotations

from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from deja import render_markdown
from deja.operations import ShowRequest
from deja.query import History, ScopeChoice

from .context import DejaServer
from .errors import RequestError, guarded
from .params import Params, command_params
from .requests import SESSION_FIELDS, run_search, session_view
from .views import file_view_name, show_view

SHOW_FILE_HISTORY = "deja.showFileHistory"
SHOW_SESSION = "deja.showSession"
SEARCH_HISTORY = "deja.searchHistory"
FORK_SESSION = "deja.forkSession"
SUGGESTIONS = 5
SUGGESTION_CHARS = 60


def suggestions(history: History, choice: ScopeChoice) -> list[str]:
    """Recent sessions' titles, cut at a word, as queries to offer (LSP cannot ask for text)."""
    offered: list[str] = []
    for summary in history.sessions(choice.scope, limit=SUGGESTIONS * 2):
        words: list[str] = []
        for word in summary.title.split():
            if len(" ".join([*words, word])) > SUGGESTION_CHARS:
                break
            words.append(word)
        title = " ".join(words)
        if title and title not in offered:
            offered.append(title)
    return offered[:SUGGESTIONS]


async def ask_query(ls: DejaServer, history: History, choice: ScopeChoice) -> str | None:
    offered = suggestions(history, choice)
    if not offered:
        ls.tell("there are no Continue sessions to search yet", types.MessageType.Info)
        return None
    try:
        picked = await ls.window_show_message_request_async(
            types.ShowMessageRequestParams(
                type=types.MessageType.Info,
                message="Deja: search Continue history for which topic? (Recent sessions; "
                "a query can also be given as the command's argument.)",
                actions=[types.MessageActionItem(title=title) for title in offered],
            )
        )
    except JsonRpcException as error:
        ls.log(f"could not ask for a query: {error.message}", types.MessageType.Warning)
        return None
    return picked.title if picked else None


def register(server: DejaServer) -> None:
    @server.command(SHOW_FILE_HISTORY)
    @guarded(SHOW_FILE_HISTORY)
    async def show_file_history(ls: DejaServer, *args: Any) -> dict[str, Any]:
        uri = command_params(SHOW_FILE_HISTORY, args, ("uri",)).required_text("uri")
        view = ls.file_view(await ls.history(), uri)
        if view is None:
            raise RequestError(f"{uri} is not a file: URI")
        markdown = render_markdown.file_history(view.path, view.events)
        return await show_view(ls, file_view_name(view.path), markdown)

    @server.command(SHOW_SESSION)
    @guarded(SHOW_SESSION)
    async def show_session(ls: DejaServer, *args: Any) -> dict[str, Any]:
        params = command_params(SHOW_SESSION, args, ("sessionId", "turn"))
        request = params.request(ShowRequest, SESSION_FIELDS, {})
        view = session_view(await ls.history(), request)
        turn = request.turn
        name = f"session-{view.session.id}" + (f"-turn-{turn}" if turn is not None else "")
        return await show_view(ls, name, render_markdown.session(view))

    @server.command(SEARCH_HISTORY)
    @guarded(SEARCH_HISTORY)
    async def search_history(ls: DejaServer, *args: Any) -> dict[str, Any] | None:
        params = command_params(SEARCH_HISTORY, args, ("query", "scope"))
        history = await ls.history()
        choice = ls.scope(history, params.scope())
        query = params.text("query") or await ask_query(ls, history, choice)
        if not query:
            return None
        search = Params(SEARCH_HISTORY, {**params.values, "query": query})
        found = run_search(history, search, choice, default_limit=50)
        markdown = render_markdown.search(query, choice.scope.label, found.hits, found.notes)
        return await show_view(ls, "search", markdown)

    @server.command(FORK_SESSION)
    @guarded(FORK_SESSION)
    async def fork_session(ls: DejaServer, *args: Any) -> dict[str, Any]:
        session_id = command_params(FORK_SESSION, args, ("sessionId",)).required_text("sessionId")
        fork = (await ls.history()).fork_command(session_id)
        return await show_view(ls, f"fork-{fork.args[-1]}", render_markdown.fork(fork))
