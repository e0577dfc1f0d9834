"""Reading back what a damaged index file still holds into a new one: the forget list first,
then the sessions and the turns only the index held (compacted away in Continue, or of sessions
gone from the store). The pass that follows brings the rest back from the store.

Read from a copy, table by table, so a damaged page stops one table, not the rest; a damaged
header (the first 100 bytes: "file is not a database") is written anew on the copy, as SQLite
would have written it, and the tables read through it."""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import struct
from pathlib import Path
from typing import NamedTuple

from .faults import is_damage

# What only the index holds of a session's turns.
_ONLY_INDEX = "compacted = 1 OR session_id IN (SELECT id FROM sessions WHERE deleted = 1)"
# table, rows, what they are to the user (in the order they are read: the forget list first).
_TABLES = (
    ("tombstones", "1", "forgotten sessions and workspaces"),
    ("sessions", "1", "sessions"),
    ("records", _ONLY_INDEX, "turns only the index held"),
    ("items", _ONLY_INDEX, "the places of those turns"),
)
_PAGE_SIZES = (4096, 1024, 2048, 8192, 16384, 32768, 65536)
_SIDES = ("-wal", "-shm")
# Rows that fail to read one after another, each where a seek reaches it, before the copy of a
# table stops (the damage is then in what the query reads besides the table).
_MAX_STUCK = 64


class Salvaged(NamedTuple):
    kept: str  # what came back, said for the user
    lost: str  # what could not, or "" when nothing was


def salvage(damaged: Path, db: sqlite3.Connection) -> Salvaged:
    """Copy what `damaged` still holds into `db` (a new, empty index)."""
    copy = damaged.with_name(damaged.name + ".salvage")
    try:
        source = _readable_copy(damaged, copy)
        if source is None:
            return Salvaged(
                "",
                "nothing could be read from it: forgotten sessions may come "
                "back and turns only the index held are gone",
            )
        try:
            return _copy_tables(source, db)
        finally:
            source.close()
    finally:
        for suffix in ("", *_SIDES):
            with contextlib.suppress(OSError):
                os.unlink(str(copy) + suffix)


def _copy_tables(source: sqlite3.Connection, db: sqlite3.Connection) -> Salvaged:
    kept: list[str] = []
    lost: list[str] = []
    db.execute("BEGIN IMMEDIATE")
    try:
        for table, where, label in _TABLES:
            count, whole = _copy_table(source, db, table, where)
            if count:
                kept.append(f"{label} ({count})")
            if not whole:
                lost.append(f"{label} past a damaged page")
        # Every file is read again; the turns copied keep their text for FTS5.
        db.execute("UPDATE sessions SET size = -1, mtime_ns = -1")
        db.execute("INSERT INTO records_fts (records_fts) VALUES ('rebuild')")
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    said = "kept from it: " + (", ".join(kept) if kept else "nothing")
    return Salvaged(said, "could not read " + "; ".join(lost) if lost else "")


def _copy_table(
    source: sqlite3.Connection, db: sqlite3.Connection, table: str, where: str
) -> tuple[int, bool]:
    """(rows copied, whether the table was read to its end)."""
    try:
        old = {row[1] for row in source.execute(f"PRAGMA table_info({table})")}
    except sqlite3.DatabaseError:
        return 0, False
    cols = [row[1] for row in db.execute(f"PRAGMA table_info({table})") if row[1] in old]
    if not cols:
        return 0, not old
    insert = (
        f"INSERT OR IGNORE INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})"
    )
    rowid = _has_rowid(source, table)
    conditions = (where,) if where == "1" else (where, "compacted = 1")
    for condition in conditions:  # the second without the sessions it may not read
        select = f"SELECT {'rowid, ' if rowid else ''}{', '.join(cols)} FROM {table}"
        count, whole = _read_around_damage(
            source, f"{select} WHERE ({condition})", table if rowid else None, db, insert
        )
        if count or whole:
            return count, whole
    return 0, False


def _read_around_damage(
    source: sqlite3.Connection, select: str, table: str | None, db: sqlite3.Connection, insert: str
) -> tuple[int, bool]:
    """Copy what `select` reads, row by row so that a damaged page loses only its own rows. In
    a table with rowids (`table` given), the damage is stepped over: the read starts again
    past it; a row that cannot be read where its page can (an overflow page) is skipped alone,
    and so many such in a row means the damage is not the table's: the copy stops there."""
    count, whole, after, stuck = 0, True, 0, 0
    while True:
        start, rows = after, []
        try:
            cursor = source.execute(
                f"{select} AND rowid > ? ORDER BY rowid" if table else select,
                (after,) if table else (),
            )
            for row in cursor:
                rows.append(row[1:] if table else row)
                if table:
                    after = int(row[0])
                if len(rows) == 500:
                    count += _insert(db, insert, rows)
            count += _insert(db, insert, rows)
            return count, whole
        except sqlite3.DatabaseError as error:
            count += _insert(db, insert, rows)
            if not is_damage(error):
                raise
            whole = False
            stuck = stuck + 1 if after == start else 0
            found = (
                None if table is None or stuck > _MAX_STUCK else _past_damage(source, table, after)
            )
            if found is None:
                return count, whole
            after = found


def _insert(db: sqlite3.Connection, insert: str, rows: list[tuple[object, ...]]) -> int:
    db.executemany(insert, rows)
    done = len(rows)
    rows.clear()
    return done


def _past_damage(source: sqlite3.Connection, table: str, bad: int) -> int | None:
    """The bound to read `table` from past the damage met after rowid `bad`: past the first
    row after `bad` when a seek reaches it (the row itself could not be read), else the least
    bound a seek gets past the damaged page from — the stride doubled until one works, then
    halved back to the first that does."""

    def first_after(after: int) -> int | None:
        """The first rowid after `after`, -1 at the end, None when the seek meets damage."""
        try:
            row = source.execute(
                f"SELECT rowid FROM {table} WHERE rowid > ? ORDER BY rowid LIMIT 1", (after,)
            ).fetchone()
        except sqlite3.DatabaseError as error:
            if not is_damage(error):
                raise
            return None
        return -1 if row is None else int(row[0])

    here = first_after(bad)
    if here is not None:
        return None if here == -1 else here
    step = 1
    while first_after(bad + step) is None:
        step *= 2
        if step > 1 << 62:
            return None
    low, high = bad + step // 2, bad + step  # `low` meets the damage (or is `bad`), `high` not
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if first_after(middle) is not None else (middle, high)
    return high


def _has_rowid(source: sqlite3.Connection, table: str) -> bool:
    try:
        source.execute(f"SELECT rowid FROM {table} LIMIT 0")
        return True
    except sqlite3.DatabaseError:
        return False


def _readable_copy(damaged: Path, copy: Path) -> sqlite3.Connection | None:
    """A read-only connection to a copy of `damaged` (its WAL too) that SQLite can open: as it
    is, else with a new header for each page size the file's length allows."""
    try:
        shutil.copyfile(damaged, copy)
        if os.path.exists(str(damaged) + "-wal"):
            shutil.copyfile(str(damaged) + "-wal", str(copy) + "-wal")
    except OSError:
        return None
    opened = _open(copy)
    if opened is not None:
        return opened
    size = copy.stat().st_size
    wal = os.path.exists(str(copy) + "-wal")
    for page_size in _PAGE_SIZES:
        if size < page_size or size % page_size:
            continue
        for mode in (2, 1) if wal else (1,):
            with open(copy, "r+b") as f:
                f.write(_header(page_size, mode))
            opened = _open(copy)
            if opened is not None:
                return opened
    return None


def _header(page_size: int, mode: int) -> bytes:
    """The 100-byte database header SQLite writes (fileformat2 §1.3); the page count left 0
    so SQLite takes it from the file's length. `mode` 2 reads the WAL, 1 does not."""
    return (
        b"SQLite format 3\x00"
        + struct.pack(">HBBBBBB", 1 if page_size == 65536 else page_size, mode, mode, 0, 64, 32, 32)
        + struct.pack(">IIIIIIIIIIII", 1, 0, 0, 0, 1, 4, 0, 0, 1, 0, 0, 0)
        + bytes(20)
        + struct.pack(">II", 0, sqlite3.sqlite_version_info[0] * 1_000_000)
    )


def _open(path: Path) -> sqlite3.Connection | None:
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error:
        return None
    try:
        names = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
        if "tombstones" in names or "sessions" in names:
            return db
    except sqlite3.DatabaseError:
        pass
    db.close()
    return None
