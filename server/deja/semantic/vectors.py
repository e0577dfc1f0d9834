"""Record vectors in the index file: one float32 blob per record of the roles that say what a
session was about. A trigger drops a record's vector with the record, whatever deletes it
(re-ingest, forget, exclude), so no writer needs to know vectors exist; the pass embeds each
session's new records in that session's own transaction."""

from __future__ import annotations

import sqlite3

from .identity import MODEL_ID

TYPE_CHECKING = False  # not `typing`'s: a quiet `deja index` reads this module
if TYPE_CHECKING:
    from .model import Embedder

EMBEDDED_ROLES = ("user", "assistant", "summary", "reasoning")
_NOW = "coalesce((SELECT value FROM meta WHERE key = 'vectors_generation'), 0)"
_ROLES_SQL = ",".join(f"'{role}'" for role in EMBEDDED_ROLES)
DDL = (
    "CREATE TABLE IF NOT EXISTS record_vectors"
    " (record_id INTEGER PRIMARY KEY, vector BLOB NOT NULL)",
    "CREATE TRIGGER IF NOT EXISTS record_vectors_follow AFTER DELETE ON records BEGIN"
    " DELETE FROM record_vectors WHERE record_id = old.id; END",
    # Every vector made or gone is logged with the generation it happened in, and a vector gone
    # moves the generation too: a search holding the matrix of an earlier generation (in memory,
    # or the file beside the index, `nearest.py`) reads only what changed since.
    "CREATE TABLE IF NOT EXISTS record_vector_changes"
    " (record_id INTEGER NOT NULL, generation INTEGER NOT NULL)",
    # No index on it: a search reads at most `CHANGES_KEPT` rows of it, the pass writes one a
    # vector.
    "DROP INDEX IF EXISTS record_vector_changes_since",
    "DROP TRIGGER IF EXISTS record_vectors_gone",
    "CREATE TRIGGER record_vectors_gone AFTER DELETE ON record_vectors BEGIN"
    f" INSERT INTO record_vector_changes VALUES (old.record_id, {_NOW});"
    " UPDATE meta SET value = value + 1 WHERE key = 'vectors_generation'; END",
    "CREATE TRIGGER IF NOT EXISTS record_vectors_made AFTER INSERT ON record_vectors BEGIN"
    f" INSERT INTO record_vector_changes VALUES (new.record_id, {_NOW}); END",
)
# Bumped when `DDL` changes: an index made before gets it at the next pass.
SCHEMA_KEY = "vectors_schema"
SCHEMA = "3"
# Changes logged past this many, the log starts again: a search whose matrix is older than the
# log reads every vector once more.
CHANGES_KEPT = 20_000
CHANGES_SINCE_KEY = "vector_changes_since"
# The model the stored vectors came from, and a counter bumped by every write (readers cache
# the matrix until it moves).
MODEL_KEY = "vectors_model"
GENERATION_KEY = "vectors_generation"
COMPLETE_KEY = "vectors_complete"
_BATCH = 2048


def generation(db: sqlite3.Connection) -> int:
    row = db.execute("SELECT value FROM meta WHERE key = ?", (GENERATION_KEY,)).fetchone()
    return int(row[0]) if row else 0


def _bump(db: sqlite3.Connection) -> None:
    db.execute(
        "INSERT INTO meta VALUES (?, '1') ON CONFLICT(key) DO UPDATE SET value = value + 1",
        (GENERATION_KEY,),
    )


def changes_since(db: sqlite3.Connection) -> int | None:
    """The generation from which every vector made or gone is in the log (None: no log yet)."""
    value = _meta(db, CHANGES_SINCE_KEY)
    return int(value) if value is not None else None


def _trim_changes(db: sqlite3.Connection) -> None:
    """Before this transaction writes a vector: a long log starts again from here."""
    # Two lookups, not `min(rowid), max(rowid)` in one: that form scans the table.
    first, last = db.execute(
        "SELECT (SELECT min(rowid) FROM record_vector_changes),"
        " (SELECT max(rowid) FROM record_vector_changes)"
    ).fetchone()
    if changes_since(db) is not None and (first is None or last - first < CHANGES_KEPT):
        return
    db.execute("DELETE FROM record_vector_changes")
    db.execute(
        "INSERT OR REPLACE INTO meta VALUES (?, ?)", (CHANGES_SINCE_KEY, str(generation(db)))
    )


def _embed_rows(db: sqlite3.Connection, model: Embedder, rows: list[tuple[int, str]]) -> int:
    if rows:
        _trim_changes(db)
    for start in range(0, len(rows), _BATCH):
        batch = rows[start : start + _BATCH]
        vectors = model.embed([text for _, text in batch])
        db.executemany(
            "INSERT OR REPLACE INTO record_vectors VALUES (?, ?)",
            [(rid, vector.tobytes()) for (rid, _), vector in zip(batch, vectors, strict=True)],
        )
    if rows:
        _bump(db)
    return len(rows)


def _missing(
    db: sqlite3.Connection, where: str, params: tuple[object, ...]
) -> list[tuple[int, str]]:
    return [
        (int(rid), str(body))
        for rid, body in db.execute(
            "SELECT r.id, f.body FROM records r JOIN records_fts f ON f.rowid = r.id"
            f" WHERE r.role IN ({_ROLES_SQL}) AND {where}"
            " AND NOT EXISTS (SELECT 1 FROM record_vectors v WHERE v.record_id = r.id)",
            params,
        )
    ]


def embed_session(db: sqlite3.Connection, session_id: str) -> int:
    """Vectors for the session's records that have none; the caller owns the transaction."""
    rows = _missing(db, "r.session_id = ?", (session_id,))
    if not rows:
        return 0
    from .model import load  # the model loads only when there is something to embed

    return _embed_rows(db, load(), rows)


def _meta(db: sqlite3.Connection, key: str) -> str | None:
    row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return str(row[0]) if row else None


def up_to_date(db: sqlite3.Connection) -> bool:
    """Every record has a vector of the current model (read from meta: no model loaded)."""
    return (
        _meta(db, MODEL_KEY) == MODEL_ID
        and _meta(db, COMPLETE_KEY) == "1"
        and _meta(db, SCHEMA_KEY) == SCHEMA
    )


def catch_up(db: sqlite3.Connection) -> int:
    """In the caller's transaction: the table in place, every vector made again when the
    model changed (or the extra was installed after indexing), the missing ones made."""
    for statement in DDL:
        db.execute(statement)
    db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (SCHEMA_KEY, SCHEMA))
    if _meta(db, MODEL_KEY) != MODEL_ID:
        db.execute("DELETE FROM record_vectors")
        db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (MODEL_KEY, MODEL_ID))
        _bump(db)
    from .model import load

    made = _embed_rows(db, load(), _missing(db, "1", ()))
    db.execute("INSERT OR REPLACE INTO meta VALUES (?, '1')", (COMPLETE_KEY,))
    return made


def mark_incomplete(db: sqlite3.Connection) -> None:
    """Records went in without vectors (semantic search off this pass): the next pass that
    makes vectors looks for every missing one."""
    db.execute("DELETE FROM meta WHERE key = ?", (COMPLETE_KEY,))
