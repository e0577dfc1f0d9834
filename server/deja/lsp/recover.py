"""`deja/recover`: a session Continue lost written back into Continue's store as a new session
(`deja recover`); and `deja/lostSessions`: what only Deja still holds (`deja sessions --lost`)."""

from __future__ import annotations

from typing import Any

from deja.operations import RecoverRequest
from deja.wire_share import lost_session_json, recover_json

from .context import DejaServer
from .errors import guarded
from .params import Params

RECOVER = "deja/recover"
LOST = "deja/lostSessions"


def register(server: DejaServer) -> None:
    @server.feature(RECOVER)
    @guarded(RECOVER)
    async def recover(ls: DejaServer, params: Any) -> dict[str, Any]:
        """`sessionId`; `dryRun` (nothing written: the answer carries the `document`); `copy`
        (write even when Continue still holds the session whole)."""
        request = Params(RECOVER, params).request(RecoverRequest, RecoverRequest._fields, {})
        history = await ls.history()
        outcome = history.recover(request.session, copy=request.copy, dry_run=request.dry_run)
        return recover_json(outcome)

    @server.feature(LOST)
    @guarded(LOST)
    async def lost(ls: DejaServer, params: Any) -> dict[str, Any]:
        """The sessions whose file is gone or was compacted, newest first, in `scope`
        (`workspace`: the editor's folders, as `deja/sessions`; `all`)."""
        parsed = Params(LOST, params)
        history = await ls.history()
        choice = ls.scope(history, parsed.scope())
        lost = history.lost_sessions(choice.scope)
        return {
            "scope": choice.scope.label,
            "sessions": [lost_session_json(item) for item in lost],
        }
