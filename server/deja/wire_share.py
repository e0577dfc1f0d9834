"""The JSON shapes of giving a session back (`recover`), of what only Deja holds (`sessions
--lost`) and of an export: one shape for the CLI's `--json` and the sidecar's answers (beside
`deja.wire`, which holds every other shape)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import settings
from .wire import session_json

if TYPE_CHECKING:
    from .query.lost import LostSession
    from .query.recover import RecoverOutcome


def recover_json(outcome: RecoverOutcome) -> dict[str, Any]:
    """What `deja recover` wrote (`written`), or would write (then `document` is the file)."""
    recovered, new, fork = outcome.recovered, outcome.new, outcome.fork()
    data: dict[str, Any] = {
        "session": recovered.session.id,
        "new_id": new.session_id,
        "written": outcome.written,
        "file": str(new.file),
        "list_file": str(new.list_file),
        "entry": new.entry,
        "title": recovered.title,
        "turns": len(recovered.history),
        "only_deja": recovered.only_deja,
        "fork": {"line": fork.line, "argv": fork.argv, "cwd": fork.cwd},
        "redacted": settings.redact_secrets(),
    }
    if not outcome.written:
        data["document"] = recovered.document(new.session_id)
    return data


def lost_session_json(item: LostSession) -> dict[str, Any]:
    """A session as `sessions` gives it, with why it is lost and how many turns only Deja holds."""
    return {
        **session_json(item.session),
        "lost": item.kind,
        "only_deja": item.only_deja,
        "recovered_as": item.recovered_as,
    }
