"""The files a topic touched (`deja files TOPIC`): the sessions the index's search finds for the
topic, and the files those sessions edited, wrote or read, ranked by how much of that work
touched them."""

from __future__ import annotations

import sqlite3
from collections import Counter
from dataclasses import dataclass, field

from deja import jsonlib
from deja.continue_store.tool_calls import writes_whole_file
from deja.continue_store.workspace import relative_to_workspace
from deja.index.forks import own_records

from .rows import named
from .scope import Scope
from .search import SearchQuery, search

# Sessions a topic is taken to mean: those of its best hits.
TOPIC_HITS = 200
# How much one event says the work was about a file: changing it counts more than reading it.
WEIGHTS = {"wrote": 3.0, "edited": 3.0, "read": 1.0, "attached": 1.0}


@dataclass(frozen=True, slots=True)
class TouchingSession:
    session_id: str
    title: str
    last_active: float
    events: int


@dataclass(slots=True)
class TouchedFile:
    path: str
    relative: str  # to its workspace
    workspace: str
    edits: int = 0
    writes: int = 0
    reads: int = 0
    weight: float = 0.0
    last: float = 0.0
    sessions: list[TouchingSession] = field(default_factory=list)


@dataclass(slots=True)
class FilesResult:
    topic: str
    sessions: int  # sessions matching the topic
    files: list[TouchedFile]
    total: int  # files before the limit


def _verb(role: str, tool: str | None) -> str:
    if role == "edit":
        return "wrote" if writes_whole_file(tool) else "edited"
    return "read" if role == "read" else "attached"


def topic_sessions(db: sqlite3.Connection, topic: str, scope: Scope) -> list[str]:
    """The sessions of the topic's best hits, best first."""
    hits = search(db, SearchQuery(topic, scope=scope, limit=TOPIC_HITS, count_all=False)).hits
    return list(dict.fromkeys(hit.session_id for hit in hits))


def files_for_topic(
    db: sqlite3.Connection, topic: str, scope: Scope, limit: int = 20
) -> FilesResult:
    session_ids = topic_sessions(db, topic, scope)
    rows = named(db).execute(
        "SELECT r.session_id, r.role, r.tool, r.path, r.time, s.title, s.workspace,"
        " s.last_active FROM records r JOIN sessions s ON s.id = r.session_id"
        " WHERE r.session_id IN (SELECT value FROM json_each(?)) AND r.path IS NOT NULL"
        " AND r.role IN ('edit', 'read', 'attached') AND (r.role != 'edit' OR r.status = 'done')"
        f" AND {own_records('r')}",  # a fork's copy of its parent's turns counts once
        (jsonlib.dumps(session_ids).decode(),),
    )
    files: dict[str, TouchedFile] = {}
    counts: Counter[tuple[str, str]] = Counter()
    about: dict[str, tuple[str, float]] = {}
    for row in rows:
        path, workspace = str(row["path"]), str(row["workspace"])
        touched = files.get(path)
        if touched is None:
            touched = files[path] = TouchedFile(
                path, relative_to_workspace(path, workspace), workspace
            )
        verb = _verb(row["role"], row["tool"])
        touched.writes += verb == "wrote"
        touched.edits += verb == "edited"
        touched.reads += verb in ("read", "attached")
        touched.weight += WEIGHTS[verb]
        touched.last = max(touched.last, float(row["time"]))
        counts[(path, row["session_id"])] += 1
        about[row["session_id"]] = (str(row["title"]), float(row["last_active"]))
    for (path, session_id), count in counts.items():
        title, last_active = about[session_id]
        files[path].sessions.append(TouchingSession(session_id, title, last_active, count))
    ranked = sorted(files.values(), key=lambda f: (-f.weight, -len(f.sessions), -f.last, f.path))
    for touched in ranked:
        touched.sessions.sort(key=lambda s: (-s.events, -s.last_active))
    return FilesResult(topic, len(session_ids), ranked[:limit], len(ranked))
