"""`deja`'s interactive history screen (Textual), a front door like the CLI: bare `deja` on a
terminal and `deja search QUERY --interactive` open it. Textual is imported only here, so no
other command pays for it at start-up."""

from __future__ import annotations

import os


def run_screen(
    query: str = "",
    *,
    all_workspaces: bool = False,
    workspace: str | None = None,
    role: str | None = None,
    since: float | None = None,
) -> int:
    """Open the screen; after it closes, run what was confirmed there (resume, hand off)."""
    from deja.query import History

    from .actions import launch
    from .app import DejaApp

    try:
        history = History()
    except OSError as error:
        print(f"deja: cannot open the index: {error}")
        return 1
    try:
        app = DejaApp(
            history, query=query, cwd=os.getcwd(), all_workspaces=all_workspaces,
            workspace=workspace, role=role, since=since,
        )  # fmt: skip
        plan = app.run()
    finally:
        history.close()
    return 0 if plan is None else launch(plan)


__all__ = ["run_screen"]
