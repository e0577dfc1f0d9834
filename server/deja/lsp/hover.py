"""`textDocument/hover` on a line a past Continue edit wrote (its provenance in the current text,
unsaved changes included): the session, when, the request behind it unless the title says it,
whether the line was changed since, the diff, and command links. Markdown, or plain text that reads
well on its own for a client that prefers it (`hover.contentFormat`, in the client's order): its
actions are then the line's code actions. Answered from the index and the open document only."""

from __future__ import annotations

import json
from urllib.parse import quote

from lsprotocol import types

from deja import render_markdown
from deja.continue_store.tool_calls import call_outcome
from deja.one_line import cut, one_line
from deja.time_format import ago

from .commands import FORK_SESSION, SHOW_FILE_HISTORY, SHOW_SESSION
from .context import DejaServer, IndexNotOpen
from .documents import Placed
from .errors import guarded

MORE_EDITS = 3
ACTIONS_HINT = "Code actions on this line: open the session, fork it here, file history."


def command_link(label: str, command: str, arguments: list[object]) -> str:
    """A `command:` link (VS Code runs it when the extension trusts these commands)."""
    return f"[{label}](command:{command}?{quote(json.dumps(arguments))})"


def hover_markdown(
    found: list[Placed], uri: str, now: float | None = None, *, links: bool = True
) -> str:
    """The hover in markdown; its actions as `command:` links when the client runs them (the
    VS Code extension, which opts in to Deja's own protocol), else as the line's code actions."""
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
    if not links:
        return "\n\n".join([*parts, ACTIONS_HINT])
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


def others_of(found: list[Placed]) -> list[str]:
    """The other sessions that wrote the line, newest first: title (when)."""
    newest = found[0].event
    others = list({id(p.event): p.event for p in found[1:] if p.event is not newest}.values())
    return [f"{other.title or 'Untitled session'} ({ago(other.time)})" for other in others]


def hover_plain(found: list[Placed], now: float | None = None) -> str:
    """The hover for a plain-text client: no markup, no links (the line's code actions)."""
    newest = found[0]
    event = newest.event
    ended = call_outcome(event.status)
    title = one_line(event.title or "Untitled session")
    head = f"{title} · {ago(event.time, now)} · turn {event.turn}"
    lines = [head + (f" · {ended}" if ended else "")]
    if event.request and not render_markdown.repeats_title(event.request, event.title):
        lines.append(f"Asked: {cut(event.request, render_markdown.QUOTE_CHARS)}")
    if newest.changed:
        lines.append("This line was changed since that session wrote it.")
    hunks = event.hunks[newest.hunk : newest.hunk + 1]
    if hunks:
        lines += ["", *render_markdown.diff_lines(hunks, render_markdown.DIFF_LINES), ""]
    others = others_of(found)
    if others:
        lines.append("Also edited by: " + "; ".join(others[:MORE_EDITS]))
    lines.append(ACTIONS_HINT)
    return "\n".join(lines)


def prefers_plain(ls: DejaServer) -> bool:
    """The client's first format Deja writes is plain text (none said: markdown)."""
    text_document = ls.client_capabilities.text_document
    hover = text_document.hover if text_document else None
    for kind in (hover.content_format if hover else None) or []:
        if kind in (types.MarkupKind.Markdown, types.MarkupKind.PlainText):
            return bool(kind == types.MarkupKind.PlainText)
    return False


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
        if prefers_plain(ls):
            content = types.MarkupContent(types.MarkupKind.PlainText, hover_plain(found))
        else:
            markdown = hover_markdown(found, uri, links=ls.takes_notifications())
            content = types.MarkupContent(types.MarkupKind.Markdown, markdown)
        return types.Hover(contents=content, range=found[0].range)
