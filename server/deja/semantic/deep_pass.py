"""The deep model's background pass: the long-running doors (sidecar, MCP server) embed the
records the static model already covers once more with the deep model, the most recently active
session first, a few records at a time, outside any transaction; each batch is written in a
short one that checks the records are still the ones read. One process at a time does this work
(a lease in `meta`, renewed at each batch): an editor and several `cn` sessions' MCP servers on
one index do not embed the same records each.

Each answer is embedded after the user turn it answers (cut at `ASKING_CHARS`): an answer
read with its question is found by questions worded like it (bench/recall/levers.py)."""

from __future__ import annotations

import os
import sqlite3
import time
from dataclasses import dataclass

from deja.in_slices import in_slices

from .vectors import DEEP, EMBEDDED_ROLES, SCHEMA, prepare, store

ASKING_CHARS = 250
# Records embedded between two writes (`deja.live_deep`): few, so a stop is quick and a
# re-read session's records are found changed soon.
CHUNK = 32
# Another process's lease younger than this keeps this one from the work.
LEASE_S = 60.0
_LEASE_KEY = "deep_vectors_worker"
_ROLES_SQL = ",".join(f"'{role}'" for role in EMBEDDED_ROLES)
_PENDING = (
    "SELECT r.session_id FROM records r JOIN sessions s ON s.id = r.session_id"
    f" WHERE r.role IN ({_ROLES_SQL})"
    f" AND NOT EXISTS (SELECT 1 FROM {DEEP.table} v WHERE v.record_id = r.id)"
)


@dataclass(frozen=True, slots=True)
class DeepWork:
    """Records to embed: (record id, its text as read, the text to embed)."""

    session_id: str
    records: list[tuple[int, str, str]]


def ready(db: sqlite3.Connection) -> bool:
    """The deep set's tables are in place (made by `begin`) for this model's vectors."""
    found = dict(
        db.execute(
            "SELECT key, value FROM meta WHERE key IN (?, ?)", (DEEP.model_key, DEEP.schema_key)
        ).fetchall()
    )
    return found.get(DEEP.model_key) == DEEP.model_id and found.get(DEEP.schema_key) == SCHEMA


def begin(db: sqlite3.Connection) -> None:
    """In the caller's transaction: the deep set's tables in place (emptied for a new model)."""
    prepare(db, DEEP)


def pending(db: sqlite3.Connection) -> int:
    """Records still without a deep vector."""
    return int(db.execute(f"SELECT count(*) FROM ({_PENDING})").fetchone()[0])


def next_work(db: sqlite3.Connection) -> DeepWork | None:
    """The records without a deep vector of the most recently active session that has any;
    None when every record has one."""
    row = db.execute(f"{_PENDING} ORDER BY s.last_active DESC LIMIT 1").fetchone()
    if row is None:
        return None
    session_id = str(row[0])
    rows = db.execute(
        "SELECT r.id, r.role, f.body,"
        f" EXISTS (SELECT 1 FROM {DEEP.table} v WHERE v.record_id = r.id)"
        " FROM records r JOIN records_fts f ON f.rowid = r.id"
        f" WHERE r.session_id = ? AND r.role IN ({_ROLES_SQL}) ORDER BY r.turn, r.id",
        (session_id,),
    ).fetchall()
    records: list[tuple[int, str, str]] = []
    asked = ""
    for rid, role, body, done in rows:
        text = str(body or "")
        if not done:
            records.append((int(rid), text, record_text(role, text, asked)))
        if role == "user":
            asked = text
    return DeepWork(session_id, records)


def covered(db: sqlite3.Connection, ids: list[int]) -> set[int]:
    """Those of `ids` that have a deep vector."""
    found: set[int] = set()
    for marks, chunk in in_slices(ids):
        found.update(
            int(row[0])
            for row in db.execute(
                f"SELECT record_id FROM {DEEP.table} WHERE record_id IN ({marks})", chunk
            )
        )
    return found


def record_text(role: str, body: str, asked: str) -> str:
    """What the deep model reads of a record: an answer after the user turn it answers."""
    if role == "user" or not asked:
        return body
    return f"{asked[:ASKING_CHARS]}\n{body}"


def save(db: sqlite3.Connection, work: DeepWork, vectors: list[bytes]) -> int:
    """In the caller's transaction: the vectors of the records still as they were read (one
    re-read or forgotten meanwhile is left for the next round). How many were written."""
    kept = [
        (rid, vector)
        for (rid, body, _), vector in zip(work.records, vectors, strict=True)
        if db.execute(
            "SELECT 1 FROM records_fts WHERE rowid = ? AND body = ?", (rid, body)
        ).fetchone()
    ]
    store(db, DEEP, kept)
    return len(kept)


def take_lease(db: sqlite3.Connection, now: float | None = None) -> bool:
    """In the caller's transaction: whether this process may do the work (no other process
    holds a fresh lease); taking or renewing it when so."""
    now = time.time() if now is None else now
    me = str(os.getpid())
    row = db.execute("SELECT value FROM meta WHERE key = ?", (_LEASE_KEY,)).fetchone()
    if row is not None:
        holder, _, since = str(row[0]).partition(" ")
        try:
            fresh = now - float(since) < LEASE_S
        except ValueError:
            fresh = False
        if holder != me and fresh:
            return False
    db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (_LEASE_KEY, f"{me} {now}"))
    return True


def give_up_lease(db: sqlite3.Connection) -> None:
    """In the caller's transaction: the lease freed when this process holds it."""
    db.execute("DELETE FROM meta WHERE key = ? AND value LIKE ?", (_LEASE_KEY, f"{os.getpid()} %"))
