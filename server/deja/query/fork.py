"""How to continue a past session in Continue's CLI: `cn --fork ID`, and where to run it."""

from __future__ import annotations

import os
from dataclasses import dataclass

from .sessions import SessionSummary

FORK_NOTE = (
    "`cn --fork {id}` starts a new Continue session that carries this session's history; "
    "the original session is left as it is."
)
GONE_NOTE = (
    " Its workspace {workspace} is not here any more, so the fork runs in the directory you "
    "start it from."
)


@dataclass(frozen=True, slots=True)
class ForkCommand:
    command: str
    args: list[str]
    cwd: str | None
    note: str


def fork_command(session: SessionSummary) -> ForkCommand:
    """`cwd` is the session's workspace when it still exists as a directory, else None."""
    note = FORK_NOTE.format(id=session.id)
    cwd: str | None = session.workspace if session.workspace else None
    if cwd is None or not os.path.isdir(cwd):
        note += GONE_NOTE.format(workspace=session.workspace or "(none recorded)")
        cwd = None
    return ForkCommand(command="cn", args=["--fork", session.id], cwd=cwd, note=note)
