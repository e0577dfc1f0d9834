"""`deja/export`: a session as Markdown, JSON or one self-contained HTML page (`deja export`),
for editors that save or share it (VS Code's Export Session…, JetBrains through the sidecar)."""

from __future__ import annotations

from typing import Any

from .context import DejaServer
from .errors import guarded
from .params import Params

EXPORT = "deja/export"


def register(server: DejaServer) -> None:
    @server.feature(EXPORT)
    @guarded(EXPORT)
    async def export(ls: DejaServer, params: Any) -> dict[str, Any]:
        """`sessionId`, `format` (`md` by default, `html`, `json`): `{session, format, text,
        name}`, `name` a file name to offer."""
        from deja.export import FORMATS, export_session

        parsed = Params(EXPORT, params)
        form = parsed.choice("format", FORMATS) or "md"
        history = await ls.history()
        view = history.show(parsed.required_text("sessionId"))
        text = export_session(view, form)  # type: ignore[arg-type]
        name = f"deja-session-{view.session.id[:8]}.{form}"
        return {"session": view.session.id, "format": form, "text": text, "name": name}
