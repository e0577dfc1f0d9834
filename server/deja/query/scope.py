"""Which sessions a question is about: one workspace (and what lies below it) or all."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field

from deja.continue_store.workspace import normalize_workspace, workspace_contains


@dataclass(frozen=True, slots=True)
class Scope:
    """`workspaces` empty means all sessions."""

    workspaces: tuple[str, ...] = ()
    label: str = "all workspaces"

    @property
    def is_all(self) -> bool:
        return not self.workspaces

    def sql(self, column: str) -> tuple[str, list[object]]:
        if not self.workspaces:
            return "", []
        return f"{column} IN ({','.join('?' * len(self.workspaces))})", list(self.workspaces)


@dataclass(slots=True)
class ScopeChoice:
    scope: Scope
    notes: list[str] = field(default_factory=list)


def _workspaces(db: sqlite3.Connection) -> list[str]:
    return [row[0] for row in db.execute("SELECT DISTINCT workspace FROM sessions")]


def workspace_scope(db: sqlite3.Connection, directory: str) -> Scope:
    """Sessions whose workspace is `directory` or lies inside it."""
    target = normalize_workspace(directory)
    found = tuple(w for w in _workspaces(db) if workspace_contains(target, w))
    return Scope(found or ("\x00none",), label=target)


def current_scope(db: sqlite3.Connection, cwd: str) -> ScopeChoice:
    """The Continue workspace containing the current directory; all of them when none does."""
    here = normalize_workspace(cwd)
    containing = [w for w in _workspaces(db) if workspace_contains(w, here)]
    if not containing:
        return ScopeChoice(
            Scope(), [f"no Continue session has a workspace containing {here}; searching all"]
        )
    # The innermost workspace that holds the directory, plus any nested inside it.
    innermost = max(containing, key=len)
    return ScopeChoice(workspace_scope(db, innermost))
