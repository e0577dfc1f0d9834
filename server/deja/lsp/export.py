"""`deja/export`: a session as Markdown, JSON or one self-contained HTML page (`deja export`),
for editors that save or share it (VS Code's Export Session…, JetBrains through the sidecar)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from deja.operations import ExportRequest
from deja.query import History

from .context import DejaServer
from .errors import guarded
from .params import Params

if TYPE_CHECKING:
    from deja.export import Format

EXPORT = "deja/export"


def export_result(history: History, params: Params) -> dict[str, Any]:
    """`sessionId`, `format` (`md` by default, `html`, `json`): `{session, format, text, name}`,
    `name` a file name to offer."""
    from deja.export import export_session

    request = params.request(ExportRequest, ("session", "format"), {})
    form = cast("Format", request.format or "md")
    view = history.show(request.session)
    text = export_session(view, form)
    name = f"deja-session-{view.session.id[:8]}.{form}"
    return {"session": view.session.id, "format": form, "text": text, "name": name}


def register(server: DejaServer) -> None:
    @server.feature(EXPORT)
    @guarded(EXPORT)
    async def export(ls: DejaServer, params: Any) -> dict[str, Any]:
        return export_result(await ls.history(), Params(EXPORT, params))
