"""How to continue a past session in Continue's CLI: `cn --fork ID`, and where to run it."""

from __future__ import annotations

from dataclasses import dataclass

from .handoff import resume
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
    """`cwd` is the session's workspace when it still exists as a directory, else None. The
    command is `deja resume`'s (the id checked the same way), as argv for an editor's terminal."""
    launch = resume(session)
    note = FORK_NOTE.format(id=session.id)
    if launch.cwd is None:
        note += GONE_NOTE.format(workspace=session.workspace or "(none recorded)")
    return ForkCommand(command=launch.argv[0], args=launch.argv[1:], cwd=launch.cwd, note=note)
