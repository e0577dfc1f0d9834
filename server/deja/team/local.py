"""What a push takes from the local index (read through `History`: plain rows): the shared
workspaces' sessions (the exclude list always wins) and their records, each keyed by its history
item's fingerprint so a retried push finds the same key. Texts are redacted again on the way out
and made fit for PostgreSQL text."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from deja.continue_store.redact import redact
from deja.continue_store.workspace import relative_to_workspace, workspace_contains
from deja.index.exclude import ExcludeList

if TYPE_CHECKING:
    from deja.query.shared import IndexedRecord, IndexedSession

# A record's text on the team side is cut here (the local index keeps it whole).
MAX_BODY_CHARS = 1_000_000
# Part of every digest: a change in what a push sends makes every session go again.
PUSH_FORMAT = "1"


class LocalIndex(Protocol):
    """What a push reads of the local index (`deja.query.History`)."""

    def indexed_sessions(self) -> list[IndexedSession]: ...

    def indexed_records(self, session_id: str) -> list[IndexedRecord]: ...


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
    local: LocalIndex, shared: Sequence[str], exclude: ExcludeList
) -> list[LocalSession]:
    found = []
    for s in local.indexed_sessions():
        if not is_shared(s.workspace, shared, exclude):
            continue
        fields = (PUSH_FORMAT, s.id, s.title, s.workspace, s.project, s.started, s.last_active)
        digest = hashlib.sha256(
            "\x1f".join(map(str, (*fields, *s.version))).encode("utf-8", "surrogatepass")
        ).hexdigest()[:32]
        found.append(
            LocalSession(
                s.id,
                outgoing(s.title),
                clean(s.workspace),
                clean(s.project),
                s.started,
                s.last_active,
                digest,
            )
        )
    return found


def session_records(local: LocalIndex, session: LocalSession) -> list[Row]:
    """The session's records in order; the key is the item's fingerprint and the record's place
    among that item's records (the turn number when the index holds no item for it)."""
    out: list[Row] = []
    seen: dict[str, int] = {}
    for record in local.indexed_records(session.id):
        base = record.fingerprint or f"turn-{record.turn}"
        place = seen.get(base, 0)
        seen[base] = place + 1
        clean_path = clean(record.path) if record.path else None
        out.append(
            (
                session.id,
                f"{base}:{place}",
                session.project,
                record.turn,
                record.role,
                record.time,
                clean_path,
                relative_to_workspace(clean_path, session.workspace) if clean_path else None,
                record.exit_code,
                record.status,
                record.compacted,
                outgoing(record.body),
            )
        )
    return out
