"""A file's past: every recorded edit, write and read of it (where its written text stands now is
`provenance.py`'s)."""

from __future__ import annotations

import posixpath
import sqlite3
from dataclasses import dataclass, field

from deja.continue_store.workspace import (
    absolute_path,
    normalize_workspace,
    relative_to_workspace,
)
from deja.index.forks import own_records

from .. import jsonlib
from .rows import named
from .scope import known_workspaces

FILE_ROLES = ("edit", "read", "attached")


@dataclass(frozen=True, slots=True)
class LineRange:
    """Zero-based, end-exclusive lines (and the character columns at both ends)."""

    start_line: int
    start_char: int
    end_line: int
    end_char: int

    def one_based(self) -> dict[str, int]:
        """As `deja blame --json` gives it: lines counted from 1 (as `--line` counts them),
        characters as code-point offsets into the line from 0; the end position exclusive."""
        start, end = self.start_line + 1, self.end_line + 1
        return {
            "start_line": start,
            "start_char": self.start_char,
            "end_line": end,
            "end_char": self.end_char,
        }


@dataclass(slots=True)
class FileEvent:
    session_id: str
    title: str
    workspace: str
    turn: int
    time: float
    role: str
    tool: str | None
    status: str | None
    path: str
    compacted: bool
    request: str
    hunks: list[tuple[str | None, str]] = field(default_factory=list)
    ranges: list[LineRange | None] = field(default_factory=list)


def _matching_paths(
    db: sqlite3.Connection, absolute: str, relative: str | None, typed: str
) -> list[str]:
    """Absolute path first, then the same workspace-relative path in any workspace, then the
    longest path suffix any record has: the first rule that finds anything wins."""
    roles = ",".join(f"'{role}'" for role in FILE_ROLES)
    known = {
        row[0]
        for row in db.execute(
            f"SELECT DISTINCT path FROM records WHERE path IS NOT NULL AND role IN ({roles})"
        )
    }
    if absolute in known:
        return [absolute]
    if relative:
        rows = db.execute(
            "SELECT DISTINCT r.path FROM records r JOIN sessions s ON s.id = r.session_id"
            f" WHERE r.role IN ({roles}) AND r.path = s.workspace || '/' || ?",
            (relative,),
        ).fetchall()
        if rows:
            return [row[0] for row in rows]
    # A checkout in another folder still finds its history by `src/config.py`.
    parts = [part for part in posixpath.normpath(typed or absolute).split("/") if part]
    for start in range(len(parts)):
        suffix = "/".join(parts[start:])
        found = sorted(path for path in known if path == suffix or path.endswith("/" + suffix))
        if found:
            return found
    return []


def resolve_file(db: sqlite3.Connection, path: str, *, cwd: str) -> list[str]:
    """The indexed paths `path` names: a file:// URI or a path (absolute, or relative to `cwd`),
    then the same path relative to its workspace in any workspace, then the longest suffix any
    record has. `deja blame` and `deja search --file` both find files this way."""
    typed = normalize_workspace(path) if path.lower().startswith("file://") else path
    absolute = absolute_path(path, normalize_workspace(cwd))
    relative = None
    for workspace in known_workspaces(db):
        candidate = relative_to_workspace(absolute, workspace)
        if candidate not in (absolute, "") and (relative is None or len(candidate) < len(relative)):
            relative = candidate
    return _matching_paths(db, absolute, relative, typed)


def file_history(db: sqlite3.Connection, paths: list[str], *, limit: int = 200) -> list[FileEvent]:
    """Newest first: the events of `paths` (as `resolve_file` finds them)."""
    if not paths:
        return []
    roles = ",".join(f"'{role}'" for role in FILE_ROLES)
    cursor = named(db)
    rows = cursor.execute(
        "SELECT r.session_id, s.title, s.workspace, r.turn, r.time, r.role, r.tool, r.status,"
        " r.path, r.compacted, unpack(r.hunks) AS hunks,"
        " (SELECT f.body FROM records u JOIN records_fts f ON f.rowid = u.id"
        "  WHERE u.session_id = r.session_id AND u.role = 'user' AND u.turn <= r.turn"
        "  ORDER BY u.turn DESC LIMIT 1) AS request"
        " FROM records r JOIN sessions s ON s.id = r.session_id"
        f" WHERE r.role IN ({roles}) AND r.path IN ({','.join('?' * len(paths))})"
        f" AND {own_records('r')}"  # a fork's copy of its parent's edits is the parent's
        " ORDER BY r.time DESC, r.id DESC LIMIT ?",
        [*paths, limit],
    ).fetchall()
    return [
        FileEvent(
            session_id=row["session_id"],
            title=row["title"],
            workspace=row["workspace"],
            turn=row["turn"],
            time=row["time"],
            role=row["role"],
            tool=row["tool"],
            status=row["status"],
            path=row["path"],
            compacted=bool(row["compacted"]),
            request=row["request"] or "",
            hunks=[(h[0], h[1]) for h in jsonlib.loads(row["hunks"])] if row["hunks"] else [],
        )
        for row in rows
    ]


def most_edited_file(db: sqlite3.Connection) -> str:
    """The path edited most often in every session, or "" when nothing was edited."""
    row = db.execute(
        "SELECT path FROM records r WHERE role = 'edit' AND path IS NOT NULL"
        f" AND {own_records('r')} GROUP BY path ORDER BY count(*) DESC LIMIT 1"
    ).fetchone()
    return str(row[0]) if row else ""
