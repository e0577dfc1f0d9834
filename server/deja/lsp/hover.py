"""`textDocument/hover` on a line a past Continue edit wrote (its provenance in the current text,
unsaved changes included): the session, when, the request behind it unless the title says it,
whether the line was changed since, the diff, and command links. Answered from the index and the
open document only."""

from __future__ import annotations

import json
from urllib.parse import quote

from lsprotocol import types

from deja import render_markdown
from deja.units import ago

from .commands import FORK_SESSION, SHOW_FILE_HISTORY, SHOW_SESSION
from .context import DejaServer, IndexNotOpen
from .documents import Placed
from .errors import guarded

MORE_EDITS = 3


def command_link(label: str, command: str, arguments: list[object]) -> str:
    """A `command:` link (VS Code runs it when the extension trusts these commands)."""
    return f"[{label}](command:{command}?{quote(json.dumps(arguments))})"


def hover_markdown(found: list[Placed], uri: str, now: float | None = None) -> str:
    newest = found[0]
    event = newest.event
    parts = [render_markdown.edit_summary(event, newest.hunk, now)]
    if newest.changed:
        # The summary above names the session: the title is said once.
        parts.append("This line was changed since that session wrote it.")
    others = list({id(p.event): p.event for p in found[1:] if p.event is not event}.values())
    if others:
        named = [
            f"{render_markdown.escape(other.title or 'Untitled session')} ({ago(other.time, now)})"
            for other in others[:MORE_EDITS]
        ]
        parts.append("Also edited by: " + "; ".join(named))
    parts.append(
        " · ".join(
            [
                command_link("Open session", SHOW_SESSION, [event.session_id, event.turn]),
                command_link("Fork it here", FORK_SESSION, [event.session_id]),
                command_link("File history", SHOW_FILE_HISTORY, [uri]),
            ]
        )
    )
    return "\n\n".join(parts)


def register(server: DejaServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_HOVER)
    @guarded(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: DejaServer, params: types.HoverParams) -> types.Hover | None:
        uri = params.text_document.uri
        try:
            history = ls.open_history()
        except IndexNotOpen:
            return None
        view = ls.file_view(history, uri)
        found = view.covering(params.position) if view is not None else []
        if not found:
            return None
        markdown = types.MarkupContent(types.MarkupKind.Markdown, hover_markdown(found, uri))
        return types.Hover(contents=markdown, range=found[0].range)
