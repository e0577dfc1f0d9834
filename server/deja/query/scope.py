"""Which sessions a question is about: one workspace (and what lies below it) or all."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Sequence

from deja.continue_store.workspace import (
    absolute_path,
    is_windows_path,
    normalize_workspace,
    workspace_contains,
)
from deja.errors import DejaError
from deja.plain_record import NamedTuple, Plain


class WorkspaceError(DejaError):
    """A workspace named by the user that is no known workspace, or more than one."""


class Scope(NamedTuple):
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


class ScopeChoice(Plain):
    __slots__ = ("notes", "scope")

    def __init__(self, scope: Scope, notes: list[str] | None = None) -> None:
        self.scope = scope
        self.notes = [] if notes is None else notes


def known_workspaces(db: sqlite3.Connection) -> list[str]:
    """Every workspace the index has a session of."""
    return [row[0] for row in db.execute("SELECT DISTINCT workspace FROM sessions")]


def folders_scope(db: sqlite3.Connection, folders: Sequence[str]) -> ScopeChoice:
    """An editor's workspace folders (URIs or paths): for each, the innermost Continue
    workspace holding it (or the folder itself) and every workspace inside that; all
    workspaces, with a note, when no session belongs to any folder."""
    known = known_workspaces(db)
    targets = [t for t in (normalize_workspace(f) for f in folders) if t]
    found: set[str] = set()
    for target in targets:
        containing = [w for w in known if workspace_contains(w, target)]
        base = max(containing, key=len) if containing else target
        found.update(w for w in known if workspace_contains(base, w))
    if not found:
        where = ", ".join(targets) or "no workspace folder"
        return ScopeChoice(
            Scope(), [f"no Continue session belongs to {where}; searching all workspaces"]
        )
    return ScopeChoice(Scope(tuple(sorted(found)), label=", ".join(targets)))


def _within(known: Sequence[str], directory: str) -> Scope:
    """Sessions whose workspace is `directory` or lies inside it."""
    target = normalize_workspace(directory)
    found = tuple(w for w in known if workspace_contains(target, w))
    return Scope(found or ("\x00none",), label=target)


def current_scope(db: sqlite3.Connection, cwd: str) -> ScopeChoice:
    """The Continue workspace containing the current directory; all of them when none does."""
    here = normalize_workspace(cwd)
    known = known_workspaces(db)
    containing = [w for w in known if workspace_contains(w, here)]
    if not containing:
        return ScopeChoice(
            Scope(), [f"no Continue session has a workspace containing {here}; searching all"]
        )
    # The innermost workspace that holds the directory, plus any nested inside it.
    innermost = max(containing, key=len)
    return ScopeChoice(_within(known, innermost))


def named_scope(db: sqlite3.Connection, given: str, cwd: str) -> Scope:
    """A workspace the user named (`--workspace`): a folder (absolute, relative to `cwd`, or a
    file:// URI) that is a workspace or holds some; else, for a name that is not written as a
    path, the one workspace whose path ends with it (`myproj`, `work/myproj`); else the
    innermost workspace holding the folder."""
    known = known_workspaces(db)
    as_path = (
        given.lower().startswith("file://")
        or given.startswith(("/", ".", "~"))
        or is_windows_path(given)
    )
    target = absolute_path(os.path.expanduser(given), cwd)
    if any(workspace_contains(target, workspace) for workspace in known):
        return _within(known, target)
    if not as_path:
        tail = given.replace("\\", "/").strip("/")
        ending = sorted(w for w in known if w == tail or w.endswith("/" + tail))
        if len(ending) == 1:
            return _within(known, ending[0])
        if ending:
            raise WorkspaceError(
                f"{given!r} matches {len(ending)} workspaces ({', '.join(ending)});"
                " give more of the path"
            )
    containing = [w for w in known if workspace_contains(w, target)]
    if containing:
        return _within(known, max(containing, key=len))
    raise WorkspaceError(
        f"no Continue workspace matches {given!r} (`deja sessions --all` lists the sessions of"
        " every workspace)"
    )
