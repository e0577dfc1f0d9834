"""Typed records the reader produces from Continue's store. Plain data, no behaviour."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Protocol

# Record roles. `user`/`assistant` are messages; `reasoning` is a `thinking` item; `summary` a
# compaction summary; the rest come from one tool call each; `attached` is a file the user attached.
Role = Literal[
    "user", "assistant", "reasoning", "summary", "command", "read", "edit", "tool", "attached"
]
ROLES: tuple[Role, ...] = (
    "user",
    "assistant",
    "reasoning",
    "summary",
    "command",
    "read",
    "edit",
    "tool",
    "attached",
)

Source = Literal["cli", "ide", "unknown"]


@dataclass(frozen=True, slots=True)
class Hunk:
    """One change of an edit: `replaced` is None for a whole-file write."""

    replaced: str | None
    written: str


@dataclass(slots=True)
class Record:
    """One searchable fact of a session, tied to the history item (`turn`) it came from."""

    turn: int
    role: Role
    text: str
    time: float
    tool: str | None = None
    status: str | None = None
    path: str | None = None
    exit_code: int | None = None
    output: str | None = None
    args: str | None = None
    hunks: tuple[Hunk, ...] = ()


@dataclass(frozen=True, slots=True)
class Item:
    """What the index needs to know of one history item to follow compaction."""

    turn: int
    fingerprint: str
    role: str
    is_summary: bool


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """A problem with one file of the store; never fatal to the rest."""

    path: str
    message: str


@dataclass(frozen=True, slots=True)
class ListEntry:
    """One element of `sessions/sessions.json`."""

    session_id: str
    title: str | None
    date_created: str | None
    workspace_directory: str | None


@dataclass(slots=True)
class Session:
    id: str
    title: str
    workspace: str
    project: str
    started: float
    last_active: float
    source: Source
    file: str
    size: int
    mtime_ns: int
    message_count: int
    compacted_on_disk: bool
    items: list[Item] = field(default_factory=list)
    records: list[Record] = field(default_factory=list)
    # Continue's title is a placeholder: `title` is made from the file's first user request,
    # and the index makes it from the first one it holds (compacted turns included).
    title_from_request: bool = False
    # Each turn with a tool call whose output was looked for in an IDE tool item, and the turn
    # of that item (None: none written yet): that item, written or rewritten later, changes the
    # call's record and not its turn's fingerprint (a read's output is not its text).
    borrows: list[tuple[int, int | None]] = field(default_factory=list)


class RecordSink(Protocol):
    """Where a session's records go as they are made, instead of `Session.records`: a very
    large session's rows go to disk (`deja.index.insert_rows`), so its memory stays bounded."""

    def add(self, records: list[Record]) -> None: ...

    def reset(self) -> None:
        """Forget every record added: the session is being read again from its start."""
