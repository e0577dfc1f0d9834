"""A session exported to share: Markdown (`deja show --full`'s, as the sidecar's session
documents render it), JSON (the wire shape, versioned) or one self-contained HTML page
(`html.py`). From the index: the text is redacted as the index is."""

from __future__ import annotations

import time

from deja import settings
from deja.operations import EXPORT_FORMATS, ExportFormat
from deja.query import SessionView

Format = ExportFormat
FORMATS = EXPORT_FORMATS  # every door's `format` (`deja.operations`)
# Bumped when the JSON export's shape changes incompatibly.
EXPORT_VERSION = 1
EXPORT_KIND = "deja-session-export"


def export_session(view: SessionView, form: Format, now: float | None = None) -> str:
    """The session in `form`; `now` stamps the export (the clock by default)."""
    stamp = time.time() if now is None else now
    if form == "md":
        from deja import render_markdown

        return render_markdown.session(view, stamp)
    if form == "json":
        from deja import jsonlib
        from deja.time_format import iso_time
        from deja.wire import record_json, session_json

        document = {
            "kind": EXPORT_KIND,
            "version": EXPORT_VERSION,
            "exported_at": iso_time(stamp),
            "redacted": settings.redact_secrets(),
            "session": session_json(view.session),
            "records": [record_json(record) for record in view.records],
        }
        return jsonlib.dumps(document, indent=True).decode() + "\n"
    from .html import session_html

    return session_html(view, stamp)
