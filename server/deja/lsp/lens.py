"""`textDocument/codeLens`: how many Continue sessions changed the file (at its top), and the
first line of each run of lines one past edit wrote (their provenance). Answered from the index
and the open document only."""

from __future__ import annotations

from lsprotocol import types

from deja.time_format import ago

from .commands import SHOW_FILE_HISTORY, SHOW_SESSION
from .context import DejaServer, IndexNotOpen
from .documents import FileView
from .errors import guarded


def at_line(line: int) -> types.Range:
    return types.Range(types.Position(line, 0), types.Position(line, 0))


def file_title(view: FileView, now: float | None = None) -> str:
    """How many sessions changed the file (an edit that ran: a refused or failed call, a read,
    an attached copy touched nothing), and when the newest of its events was."""
    count = len(view.changed_by())
    newest = ago(max(event.time for event in view.events), now)
    last = "just now" if newest == "just now" else f"last {newest}"
    if not count:
        return f"Continue history of this file (no session changed it) · {last}"
    return f"{count} Continue session{'s' if count != 1 else ''} touched this file · {last}"


def lenses(view: FileView, now: float | None = None) -> list[types.CodeLens]:
    if not view.events:
        return []
    found = [
        types.CodeLens(
            range=at_line(0),
            command=types.Command(
                title=file_title(view, now), command=SHOW_FILE_HISTORY, arguments=[view.uri]
            ),
        )
    ]
    for line, event in view.runs():  # each run of lines one edit wrote, named once
        title = f"edited by Continue · {event.title or 'Untitled session'}"
        command = types.Command(
            title=title, command=SHOW_SESSION, arguments=[event.session_id, event.turn]
        )
        found.append(types.CodeLens(range=at_line(line), command=command))
    return found


def register(server: DejaServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_CODE_LENS)
    @guarded(types.TEXT_DOCUMENT_CODE_LENS)
    def code_lens(ls: DejaServer, params: types.CodeLensParams) -> list[types.CodeLens]:
        try:
            history = ls.open_history()
        except IndexNotOpen:
            return []
        view = ls.file_view(history, params.text_document.uri)
        return lenses(view) if view is not None else []
