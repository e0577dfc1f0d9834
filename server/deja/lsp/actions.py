"""`textDocument/codeAction` on a line a past Continue edit wrote: the hover's actions (open the
session, fork it here, the file's history) as commands the server executes, the LSP way every
client has (a hover's `command:` links run in VS Code only). Answered from the index and the
open document only."""

from __future__ import annotations

from lsprotocol import types

from .commands import FORK_SESSION, SHOW_FILE_HISTORY, SHOW_SESSION
from .context import DejaServer, IndexNotOpen
from .documents import FileView
from .errors import guarded


def line_actions(view: FileView, position: types.Position) -> list[types.Command]:
    """The actions for the edit that wrote the line, then the file's history (any line of a
    file with a Continue past). Plain `Command`s, the form every client takes (lsprotocol's
    own reader takes a `CodeAction` that carries a command for a malformed `Command`)."""
    found: list[types.Command] = []
    covering = view.covering(position)
    if covering:
        event = covering[0].event
        title = event.title or "Untitled session"
        found += [
            command(f"Deja: open session “{title}”", SHOW_SESSION, event.session_id, event.turn),
            command(f"Deja: fork “{title}” here", FORK_SESSION, event.session_id),
        ]
    if view.events:
        found.append(command("Deja: file history", SHOW_FILE_HISTORY, view.uri))
    return found


def command(title: str, name: str, *arguments: object) -> types.Command:
    return types.Command(title=title, command=name, arguments=list(arguments))


def register(server: DejaServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION)
    @guarded(types.TEXT_DOCUMENT_CODE_ACTION)
    def code_action(ls: DejaServer, params: types.CodeActionParams) -> list[types.Command]:
        only = params.context.only
        if only and not any(kind in ("", types.CodeActionKind.Empty) for kind in only):
            return []  # asked for quick fixes, refactorings, …: Deja offers none
        try:
            history = ls.open_history()
        except IndexNotOpen:
            return []
        view = ls.file_view(history, params.text_document.uri)
        return line_actions(view, params.range.start) if view is not None else []
