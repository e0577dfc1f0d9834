"""Opening the index file: a damaged file is moved aside, what it still holds salvaged and the
rest rebuilt from the store; an old schema is upgraded keeping what only the index holds; a file
that cannot be written (full disk, read-only home) is opened read-only, for queries."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time

from deja.plain_record import NamedTuple

from .faults import clear_damage, is_damage, is_write_failure, root_cause, why_unwritable
from .lock import LOCK_NAME, writer_lock
from .pack import PACK_MIN_BYTES, failed_sql
from .schema import (
    DB_NAME,
    SCHEMA_VERSION,
    VIEW_DDL,
    IndexCorrupt,
    connect,
    connect_read_only,
    schema_version,
)

TYPE_CHECKING = False  # not `typing`'s: start-up (tests/cli/test_cli_startup.py)
if TYPE_CHECKING:
    from pathlib import Path

    from .schema import StrPath

# A WAL keeps the size of the most it held (a cold pass's biggest batch) until the file is
# closed; cut back to this whenever it restarts after a checkpoint.
WAL_KEEP_BYTES = 1 << 20


class Recovery(NamedTuple):
    """What happened when the index file could not be opened."""

    message: str
    lost: str

    def said(self) -> str:
        return f"{self.message}; {self.lost}"


class Opened(NamedTuple):
    db: sqlite3.Connection
    recovery: Recovery | None
    read_only: str | None  # why the index cannot be written, when it cannot


def open_index(path: StrPath) -> Opened:
    """The connection to the index at `path`, the recovery it took, if any, and why it was
    opened read-only, if it was."""
    try:
        db, recovery = _open(path)
    except (IndexCorrupt, sqlite3.Error, OSError) as error:
        if not is_write_failure(error) or not os.path.exists(path):
            raise
        # Queries still answer from what the file holds; `deja index` says it cannot write.
        home = _as_path(path).parent
        return Opened(connect_read_only(path), None, why_unwritable(error, home))
    db.execute(f"PRAGMA journal_size_limit = {WAL_KEEP_BYTES}")
    return Opened(db, recovery, None)


def _as_path(path: StrPath) -> Path:
    """Off the quiet path (a recovery, an upgrade, a read-only home): `pathlib` may load."""
    from pathlib import Path

    return Path(path)


def _open(path: StrPath) -> tuple[sqlite3.Connection, Recovery | None]:
    db = None
    try:
        db = connect(path)
        # Reading the schema and a row catches a file that is not a database; a full
        # integrity check would read the whole index on every start.
        db.execute("SELECT id FROM sessions LIMIT 1").fetchone()
    except (IndexCorrupt, sqlite3.DatabaseError) as error:
        if db is not None:
            db.close()
        if not is_damage(error):  # busy, full, read-only: never a reason to move it aside
            raise
        return recover(_as_path(path), str(root_cause(error)))
    version = schema_version(db)
    if version == 2:
        _upgrade_in_place(db)
    elif version != SCHEMA_VERSION:
        db = _upgrade(_as_path(path), db)
    return db, None


def _upgrade_in_place(db: sqlite3.Connection) -> None:
    """Schema 2 → 3 in place: the view reading text through `unpack`, the index of every item's
    fingerprint dropped. What is stored stays as it is (a text is its own text), so the view
    gives back the same text and FTS5's index stays as it is; sessions written from now on are
    packed. Packing every row here would stall the first open for seconds on a big index (and
    hold a lock others wait on), to free pages inside a file that does not shrink."""
    db.execute("BEGIN IMMEDIATE")
    try:
        if schema_version(db) == 2:  # another process may have upgraded it meanwhile
            db.execute("DROP INDEX IF EXISTS items_fingerprint")  # `items_opening` instead
            db.execute("DROP VIEW record_texts")
            db.execute(VIEW_DDL)
            db.execute("UPDATE meta SET value = ? WHERE key = 'schema'", (str(SCHEMA_VERSION),))
        db.execute("COMMIT")
    except sqlite3.DatabaseError:
        db.execute("ROLLBACK")
        raise


def _pack_rows(db: sqlite3.Connection, table: str) -> None:
    """Pack the long text of rows copied as text (`ingest` packs what it writes)."""
    db.execute(
        f"UPDATE {table} SET output = CASE WHEN {failed_sql()} THEN output ELSE pack(output) END,"
        " hunks = pack(hunks), body = pack(body)"
        " WHERE length(output) >= ?1 OR length(hunks) >= ?1 OR length(body) >= ?1",
        (PACK_MIN_BYTES,),
    )


def recover(
    path: Path, reason: str, *, checked: bool = False
) -> tuple[sqlite3.Connection, Recovery | None]:
    """A damaged index is moved aside (its WAL with it), what it still holds salvaged into a
    new file, and the rest rebuilt from the store by the next pass; says what cannot return.
    Under the writer lock: another process may have recovered it meanwhile (unless `checked`:
    the caller found damage a plain open does not see)."""
    from .salvage import salvage

    with writer_lock(path.parent / LOCK_NAME):
        if not checked and path.exists() and _sound(path):
            return connect(path), None
        aside = path.with_name(f"{DB_NAME}.corrupt-{int(time.time())}")
        with contextlib.suppress(OSError):
            os.replace(path, aside)
        for suffix in ("-wal", "-shm"):
            with contextlib.suppress(OSError):
                os.replace(str(path) + suffix, str(aside) + suffix)
        db = connect(path)
        saved = salvage(aside, db)
        clear_damage(path.parent)
    lost = saved.lost or "nothing else is lost"
    recovery = Recovery(
        message=f"the index was damaged ({reason}); it was moved to {aside.name} and is "
        "rebuilt from Continue's store",
        lost=f"{saved.kept}; {lost}" if saved.kept else lost,
    )
    return db, recovery


def _sound(path: Path) -> bool:
    try:
        db = connect(path)
    except (IndexCorrupt, sqlite3.DatabaseError):
        return False
    try:
        db.execute("SELECT id FROM sessions LIMIT 1").fetchone()
        return True
    except sqlite3.DatabaseError:
        return False
    finally:
        db.close()


def _upgrade(path: Path, old: sqlite3.Connection) -> sqlite3.Connection:
    """A new schema starts from an empty file, carrying over what only the index holds: the
    sessions, the compacted records and items, and the tombstones. The store gives the rest."""
    old.close()
    previous = path.with_name(f"{DB_NAME}.upgrading")
    os.replace(path, previous)
    for suffix in ("-wal", "-shm"):
        with contextlib.suppress(OSError):
            os.replace(str(path) + suffix, str(previous) + suffix)
    db = connect(path)
    db.execute("ATTACH DATABASE ? AS old", (str(previous),))
    try:
        db.execute("BEGIN IMMEDIATE")
        _copy_common(db, "sessions", "1")
        db.execute("UPDATE sessions SET size = -1, mtime_ns = -1")  # re-read every file
        _copy_common(db, "items", "compacted = 1")
        _copy_common(db, "records", "compacted = 1")
        # The text as the old index gave it, whatever its schema kept (schema 1: only FTS5's
        # own content table), then the FTS index made from it.
        db.execute(
            "UPDATE main.records SET body = o.body, parts = o.parts FROM old.records_fts AS o"
            " WHERE o.rowid = main.records.id"
        )
        _pack_rows(db, "main.records")
        db.execute("INSERT INTO records_fts (records_fts) VALUES ('rebuild')")
        _copy_common(db, "tombstones", "1")
        db.execute("COMMIT")
    except sqlite3.DatabaseError:
        db.execute("ROLLBACK")
        raise
    finally:
        db.execute("DETACH DATABASE old")
    for suffix in ("", "-wal", "-shm"):
        with contextlib.suppress(OSError):
            os.unlink(str(previous) + suffix)
    return db


def _copy_common(db: sqlite3.Connection, table: str, where: str) -> None:
    """Copy the columns both schemas share, so an upgrade survives added or dropped columns."""
    new_cols = [row[1] for row in db.execute(f"PRAGMA main.table_info({table})")]
    old_cols = {row[1] for row in db.execute(f"PRAGMA old.table_info({table})")}
    cols = ", ".join(col for col in new_cols if col in old_cols)
    if cols:
        db.execute(
            f"INSERT OR IGNORE INTO main.{table} ({cols}) SELECT {cols} FROM old.{table}"
            f" WHERE {where}"
        )
