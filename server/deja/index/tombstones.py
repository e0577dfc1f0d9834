"""Forgetting: what `forget` drops from the index, and the tombstones that keep later passes from
bringing it back. Each function runs inside the caller's write transaction."""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass

from deja.continue_store.workspace import normalize_workspace, workspace_contains
from deja.errors import DejaError

from .ingest import forget_session

MIN_UNDO_PREFIX = 8  # characters of a forgotten session's id that `undo_forget` accepts
# A session left out because its workspace was forgotten: kept apart from the sessions forgotten
# one by one, so that undoing the workspace brings them back.
SWEPT = "workspace-session"


class NotIndexed(DejaError, LookupError):
    """`forget` (or its undo) of something the index does not hold: nothing changes."""


@dataclass(frozen=True, slots=True)
class Tombstone:
    """What `forget` left so later passes do not bring it back: a session id or a workspace."""

    kind: str  # "session" | "workspace"
    value: str
    created: float


def list_tombstones(db: sqlite3.Connection) -> list[Tombstone]:
    """What was forgotten, oldest first (sessions left out with their workspace are the
    workspace's)."""
    return [
        Tombstone(kind, value, created)
        for kind, value, created in db.execute(
            "SELECT kind, value, created FROM tombstones WHERE kind != ?"
            " ORDER BY created, kind, value",
            (SWEPT,),
        )
    ]


def workspace_sessions(db: sqlite3.Connection, directory: str) -> list[str]:
    """The indexed sessions of a workspace: those in it or in a folder inside it. Raises
    `NotIndexed` (saying why) when there are none."""
    workspace = normalize_workspace(directory)
    ids = [
        row[0]
        for row in db.execute("SELECT id, workspace FROM sessions")
        if workspace_contains(workspace, row[1])
    ]
    if not ids:
        raise NotIndexed(_nothing_in(db, workspace))
    return ids


def _nothing_in(db: sqlite3.Connection, workspace: str) -> str:
    if any(t.kind == "workspace" and t.value == workspace for t in list_tombstones(db)):
        return f"{workspace} is already forgotten (deja forget --list)"
    return (
        f"no indexed session belongs to {workspace}: nothing to forget (to keep a workspace"
        " out of the index before it has sessions, add it to the exclude list)"
    )


def bury(db: sqlite3.Connection, kind: str, value: str) -> None:
    """Leave a tombstone: later passes do not bring `value` back."""
    db.execute("INSERT OR REPLACE INTO tombstones VALUES (?, ?, ?)", (kind, value, time.time()))


def forget_one(db: sqlite3.Connection, session_id: str) -> None:
    if db.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone() is None:
        raise NotIndexed(f"no session {session_id!r} in the index: nothing to forget")
    forget_session(db, session_id)
    bury(db, "session", session_id)


def forget_workspace(db: sqlite3.Connection, workspace: str) -> int:
    ids = workspace_sessions(db, workspace)
    for session_id in ids:
        forget_session(db, session_id)
    bury(db, "workspace", workspace)
    return len(ids)


def find_tombstone(tombs: list[Tombstone], given: str, directory: str | None) -> Tombstone:
    """The one tombstone `given` (a session id, 8+ characters of one, or a workspace) or
    `directory` (the same as an absolute path) names."""
    folders = {normalize_workspace(w) for w in (given, directory) if w}
    found = (
        [t for t in tombs if t.kind == "workspace" and t.value in folders]
        or [t for t in tombs if t.kind == "session" and t.value == given]
        or [
            t
            for t in tombs
            if t.kind == "session" and len(given) >= MIN_UNDO_PREFIX and t.value.startswith(given)
        ]
    )
    if not found:
        raise NotIndexed(f"nothing forgotten matches {given!r} (deja forget --list)")
    if len(found) > 1:
        raise NotIndexed(f"{given!r} matches more than one forgotten session; give more of it")
    return found[0]


def remove_tombstone(db: sqlite3.Connection, tomb: Tombstone) -> None:
    db.execute("DELETE FROM tombstones WHERE kind = ? AND value = ?", (tomb.kind, tomb.value))
    if tomb.kind == "workspace":
        # Re-derived by the next pass for the workspaces that stay forgotten.
        db.execute("DELETE FROM tombstones WHERE kind = ?", (SWEPT,))
