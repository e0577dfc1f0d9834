"""Record vectors in the index file: one float32 blob per record of the roles that say what a
session was about, in one table per set (`VectorSet`): the static model's, made by the pass, and
the deep model's, made by a background pass in the long-running doors (`deep_pass.py`). A
trigger drops a record's vector with the record, whatever deletes it (re-ingest, forget,
exclude), so no writer needs to know vectors exist; the pass embeds each session's new records
in that session's own transaction."""

from __future__ import annotations

import sqlite3

from .identity import DEEP_DIMENSIONS, DEEP_MODEL_ID, DIMENSIONS, MODEL_ID

TYPE_CHECKING = False  # not `typing`'s: a quiet `deja index` reads this module
if TYPE_CHECKING:
    from .model import Embedder

EMBEDDED_ROLES = ("user", "assistant", "summary", "reasoning")
_ROLES_SQL = ",".join(f"'{role}'" for role in EMBEDDED_ROLES)


class VectorSet:
    """One model's vectors: their table, the log of what changed in it, their keys in `meta`
    (the model they came from, a counter bumped by every write, whether every record has one),
    and the name of the matrix file beside the index that searches map (`nearest.py`)."""

    __slots__ = (
        "changes",
        "changes_since_key",
        "complete_key",
        "dimensions",
        "generation_key",
        "infix",
        "model_id",
        "model_key",
        "schema_key",
        "table",
    )

    def __init__(self, name: str, model_id: str, dimensions: int, *, since_key: str) -> None:
        prefix = f"{name}_" if name else ""
        self.table = f"record_vectors{'_' + name if name else ''}"
        self.changes = f"record_vector_changes{'_' + name if name else ''}"
        self.model_id = model_id
        self.dimensions = dimensions
        self.model_key = f"{prefix}vectors_model"
        self.generation_key = f"{prefix}vectors_generation"
        self.complete_key = f"{prefix}vectors_complete"
        self.schema_key = f"{prefix}vectors_schema"
        self.changes_since_key = since_key
        self.infix = f".{prefix.replace('_', '-')}vectors-"

    def ddl(self) -> tuple[str, ...]:
        table, changes = self.table, self.changes
        now = f"coalesce((SELECT value FROM meta WHERE key = '{self.generation_key}'), 0)"
        return (
            f"CREATE TABLE IF NOT EXISTS {table}"
            " (record_id INTEGER PRIMARY KEY, vector BLOB NOT NULL)",
            f"CREATE TRIGGER IF NOT EXISTS {table}_follow AFTER DELETE ON records BEGIN"
            f" DELETE FROM {table} WHERE record_id = old.id; END",
            # Every vector made or gone is logged with the generation it happened in, and a
            # vector gone moves the generation too: a search holding the matrix of an earlier
            # generation (in memory, or the file beside the index, `nearest.py`) reads only what
            # changed since.
            f"CREATE TABLE IF NOT EXISTS {changes}"
            " (record_id INTEGER NOT NULL, generation INTEGER NOT NULL)",
            # No index on it: a search reads at most `CHANGES_KEPT` rows of it, the pass writes
            # one a vector.
            f"DROP INDEX IF EXISTS {changes}_since",
            f"DROP TRIGGER IF EXISTS {table}_gone",
            f"CREATE TRIGGER {table}_gone AFTER DELETE ON {table} BEGIN"
            f" INSERT INTO {changes} VALUES (old.record_id, {now});"
            f" UPDATE meta SET value = value + 1 WHERE key = '{self.generation_key}'; END",
            f"CREATE TRIGGER IF NOT EXISTS {table}_made AFTER INSERT ON {table} BEGIN"
            f" INSERT INTO {changes} VALUES (new.record_id, {now}); END",
        )


# The static model's set, made by every pass (its keys are the ones indexes have always had).
LIGHT = VectorSet("", MODEL_ID, DIMENSIONS, since_key="vector_changes_since")
# The deep model's, made in the background by the long-running doors.
DEEP = VectorSet("deep", DEEP_MODEL_ID, DEEP_DIMENSIONS, since_key="deep_vector_changes_since")
# Bumped when `VectorSet.ddl` changes: an index made before gets it at the next pass.
SCHEMA = "3"
# Changes logged past this many, the log starts again: a search whose matrix is older than the
# log reads every vector once more.
CHANGES_KEPT = 20_000
_BATCH = 2048


def generation(db: sqlite3.Connection, vectors: VectorSet = LIGHT) -> int:
    row = db.execute("SELECT value FROM meta WHERE key = ?", (vectors.generation_key,)).fetchone()
    return int(row[0]) if row else 0


def _bump(db: sqlite3.Connection, vectors: VectorSet) -> None:
    db.execute(
        "INSERT INTO meta VALUES (?, '1') ON CONFLICT(key) DO UPDATE SET value = value + 1",
        (vectors.generation_key,),
    )


def changes_since(db: sqlite3.Connection, vectors: VectorSet = LIGHT) -> int | None:
    """The generation from which every vector made or gone is in the log (None: no log yet)."""
    value = _meta(db, vectors.changes_since_key)
    return int(value) if value is not None else None


def _trim_changes(db: sqlite3.Connection, vectors: VectorSet) -> None:
    """Before this transaction writes a vector: a long log starts again from here."""
    # Two lookups, not `min(rowid), max(rowid)` in one: that form scans the table.
    first, last = db.execute(
        f"SELECT (SELECT min(rowid) FROM {vectors.changes}),"
        f" (SELECT max(rowid) FROM {vectors.changes})"
    ).fetchone()
    if changes_since(db, vectors) is not None and (first is None or last - first < CHANGES_KEPT):
        return
    db.execute(f"DELETE FROM {vectors.changes}")
    db.execute(
        "INSERT OR REPLACE INTO meta VALUES (?, ?)",
        (vectors.changes_since_key, str(generation(db, vectors))),
    )


def store(db: sqlite3.Connection, vectors: VectorSet, rows: list[tuple[int, bytes]]) -> None:
    """In the caller's transaction: these records' vectors written, the change logged."""
    if not rows:
        return
    _trim_changes(db, vectors)
    db.executemany(f"INSERT OR REPLACE INTO {vectors.table} VALUES (?, ?)", rows)
    _bump(db, vectors)


def _embed_rows(db: sqlite3.Connection, model: Embedder, rows: list[tuple[int, str]]) -> int:
    for start in range(0, len(rows), _BATCH):
        batch = rows[start : start + _BATCH]
        vectors = model.embed([text for _, text in batch])
        made = [(rid, vector.tobytes()) for (rid, _), vector in zip(batch, vectors, strict=True)]
        store(db, LIGHT, made)
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


def up_to_date(db: sqlite3.Connection, vectors: VectorSet = LIGHT) -> bool:
    """Every record has a vector of the set's model (read from meta: no model loaded)."""
    return (
        _meta(db, vectors.model_key) == vectors.model_id
        and _meta(db, vectors.complete_key) == "1"
        and _meta(db, vectors.schema_key) == SCHEMA
    )


def prepare(db: sqlite3.Connection, vectors: VectorSet) -> None:
    """In the caller's transaction: the set's tables in place, and emptied when its vectors
    came from another model (they are made again)."""
    if _meta(db, vectors.schema_key) != SCHEMA:
        for statement in vectors.ddl():
            db.execute(statement)
        db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (vectors.schema_key, SCHEMA))
    if _meta(db, vectors.model_key) != vectors.model_id:
        db.execute(f"DELETE FROM {vectors.table}")
        db.execute(
            "INSERT OR REPLACE INTO meta VALUES (?, ?)", (vectors.model_key, vectors.model_id)
        )
        db.execute("DELETE FROM meta WHERE key = ?", (vectors.complete_key,))
        _bump(db, vectors)


def catch_up(db: sqlite3.Connection) -> int:
    """In the caller's transaction: the static model's table in place, every vector made again
    when the model changed (or the extra was installed after indexing), the missing ones made."""
    prepare(db, LIGHT)
    from .model import load

    made = _embed_rows(db, load(), _missing(db, "1", ()))
    db.execute("INSERT OR REPLACE INTO meta VALUES (?, '1')", (LIGHT.complete_key,))
    return made


def mark_incomplete(db: sqlite3.Connection) -> None:
    """Records went in without vectors (semantic search off this pass): the next pass that
    makes vectors looks for every missing one."""
    db.execute("DELETE FROM meta WHERE key = ?", (LIGHT.complete_key,))
