"""`deja/restore`: the restore-context transcript (see `deja restore`) for editors."""

from __future__ import annotations

from typing import Any

from deja.continue_store.workspace import normalize_workspace
from deja.operations import RestoreRequest
from deja.query import History
from deja.query.restore import current_lines, listing_lines
from deja.wire import restore_reply_json

from .context import DejaServer
from .errors import guarded
from .params import Params

RESTORE = "deja/restore"


def restore_result(history: History, params: Params, folders: list[str]) -> dict[str, Any]:
    """`selection` as `deja restore` takes it (`1,3`, `1-4`, `last`, `: topic`), or a
    `sessionId`; the workspace is the editor's first folder unless `scope` is `all`."""
    cwd = normalize_workspace(folders[0]) if folders else None
    request = params.request(RestoreRequest, ("selection", "session", "topic", "scope"), {})
    result = history.restore(
        request.selection,
        cwd=cwd or None,
        all_workspaces=request.scope == "all",
        session=request.session,
        topic=request.topic,
    )
    if result.text:
        markdown = f"```text\n{result.text.replace('```', '` ` `')}\n```\n"
    else:
        current = result.current
        if result.message:
            lines = result.message.splitlines()
            if current:
                lines += current_lines(current, scope_label=result.scope)
        else:
            lines = listing_lines(
                result.listing, scope_label=result.scope, total=result.total, current=current
            )
        markdown = "\n".join(["```text", *lines, "```", ""])
    return restore_reply_json(result, markdown)


def register(server: DejaServer) -> None:
    @server.feature(RESTORE)
    @guarded(RESTORE)
    async def restore(ls: DejaServer, params: Any) -> dict[str, Any]:
        parsed = Params(RESTORE, params)
        return restore_result(await ls.history(), parsed, ls.folders())
