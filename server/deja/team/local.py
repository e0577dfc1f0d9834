"""What a push takes from the local index: the shared workspaces' sessions (the exclude list
always wins) and their records, each keyed by its history item's fingerprint so a retried push
finds the same key. Texts are redacted again on the way out and made fit for PostgreSQL text."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from deja.continue_store.redact import redact
from deja.continue_store.workspace import relative_to_workspace, workspace_contains
from deja.index.exclude import ExcludeList

# A record's text on the team side is cut here (the local index keeps it whole).
MAX_BODY_CHARS = 1_000_000
# Part of every digest: a change in what a push sends makes every session go again.
PUSH_FORMAT = "1"


@dataclass(frozen=True, slots=True)
class LocalSession:
    id: str
    title: str
    workspace: str
    project: str
    started: float
    last_active: float
    digest: str


# session_id, key, project, turn, role, time, path, relpath, exit_code, status, compacted, body
Row = tuple[
    str, str, str, int, str, float, str | None, str | None, int | None, str | None, bool, str
]


def clean(text: str) -> str:
    """PostgreSQL text cannot hold NUL: it becomes U+FFFD."""
    return text.replace("\x00", "\ufffd") if "\x00" in text else text


def outgoing(text: str) -> str:
    """A text as it leaves the machine: redacted (again), NUL-free, at most MAX_BODY_CHARS."""
    text = clean(redact(text))
    if len(text) > MAX_BODY_CHARS:
        text = f"{text[:MAX_BODY_CHARS]}… [cut: {len(text) - MAX_BODY_CHARS} more characters]"
    return text


def is_shared(workspace: str, shared: Sequence[str], exclude: ExcludeList) -> bool:
    if exclude.excludes(workspace):
        return False
    return any(workspace_contains(base, workspace) for base in shared)


def shared_sessions(
    db: sqlite3.Connection, shared: Sequence[str], exclude: ExcludeList
) -> list[LocalSession]:
    rows = db.execute(
        "SELECT s.id, s.title, s.workspace, s.project, s.started, s.last_active, s.size,"
        " s.mtime_ns, s.message_count, s.deleted,"
        " (SELECT count(*) || ':' || coalesce(max(r.id), 0) FROM records r"
        "  WHERE r.session_id = s.id) FROM sessions s ORDER BY s.id"
    ).fetchall()
    found = []
    for row in rows:
        if not is_shared(row[2], shared, exclude):
            continue
        digest = hashlib.sha256(
            "\x1f".join(map(str, (PUSH_FORMAT, *row))).encode("utf-8", "surrogatepass")
        ).hexdigest()[:32]
        found.append(
            LocalSession(
                row[0], outgoing(row[1]), clean(row[2]), clean(row[3]), row[4], row[5], digest
            )
        )
    return found


def session_records(db: sqlite3.Connection, session: LocalSession) -> list[Row]:
    """The session's records in order; the key is the item's fingerprint and the record's place
    among that item's records (the turn number when the index holds no item for it)."""
    rows = db.execute(
        "SELECT r.turn, r.role, r.time, r.path, r.exit_code, r.status, r.compacted, f.body,"
        " i.fingerprint FROM records r JOIN records_fts f ON f.rowid = r.id"
        " LEFT JOIN items i ON i.session_id = r.session_id AND i.turn = r.turn"
        " WHERE r.session_id = ? ORDER BY r.turn, r.id",
        (session.id,),
    ).fetchall()
    out: list[Row] = []
    seen: dict[str, int] = {}
    for turn, role, time, path, exit_code, status, compacted, body, fingerprint in rows:
        base = fingerprint or f"turn-{turn}"
        place = seen.get(base, 0)
        seen[base] = place + 1
        clean_path = clean(path) if path else None
        out.append(
            (
                session.id,
                f"{base}:{place}",
                session.project,
                turn,
                role,
                time,
                clean_path,
                relative_to_workspace(clean_path, session.workspace) if clean_path else None,
                exit_code,
                status,
                bool(compacted),
                outgoing(body or ""),
            )
        )
    return out
