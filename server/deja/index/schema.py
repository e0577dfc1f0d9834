"""The index's SQLite schema, how it is opened, and how an older schema is upgraded."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat

from deja import settings

from . import pack
from .searchable_text import VIEW_BODY_SQL

TYPE_CHECKING = False  # not `typing`'s: start-up (tests/cli/test_cli_startup.py)
if TYPE_CHECKING:
    # The index's folder and file are given as text on a quiet `deja index`'s path (no
    # `pathlib` loaded), as `Path`s elsewhere.
    StrPath = str | os.PathLike[str]

SCHEMA_VERSION = 3
DB_NAME = "index.sqlite3"
BUSY_TIMEOUT_MS = 30_000
# The page size a new index file is made with (an existing one keeps its own: SQLite changes it
# only by a VACUUM, and never in WAL mode). Larger than SQLite's 4 KiB default: most records
# with a packed output then fit one page instead of an overflow chain, so a cold pass's inserts
# touch fewer pages (bench/RESULTS.md has the A/B) and the file is smaller.
PAGE_SIZE = 16_384
# SQLite checkpoints the WAL after a number of pages: its default's bytes at its default page
# size, so an index of either page size keeps the same WAL between checkpoints.
CHECKPOINT_BYTES = 1000 * 4096

DDL = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    workspace TEXT NOT NULL,
    project TEXT NOT NULL,
    started REAL NOT NULL,
    last_active REAL NOT NULL,
    source TEXT NOT NULL,
    file TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    message_count INTEGER NOT NULL,
    compacted_on_disk INTEGER NOT NULL,
    -- history items that only the index still holds (compaction removed them from the file)
    kept_items INTEGER NOT NULL DEFAULT 0,
    -- turn number of the file's first history item: turns before it were compacted away
    base_turn INTEGER NOT NULL DEFAULT 0,
    deleted INTEGER NOT NULL DEFAULT 0,
    first_user TEXT NOT NULL DEFAULT '',
    last_user TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS sessions_workspace ON sessions(workspace);
CREATE INDEX IF NOT EXISTS sessions_last_active ON sessions(last_active);
CREATE TABLE IF NOT EXISTS items (
    session_id TEXT NOT NULL,
    turn INTEGER NOT NULL,
    fingerprint TEXT NOT NULL,
    role TEXT NOT NULL,
    is_summary INTEGER NOT NULL,
    compacted INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (session_id, turn)
) WITHOUT ROWID;
-- a fork's copy starts at its parent's first item or at a compaction summary (forks.py): only
-- those are looked up by fingerprint (schema 2 indexed every item's: 6 MB of a 1 GB store's)
CREATE INDEX IF NOT EXISTS items_opening ON items(fingerprint) WHERE turn = 0 OR is_summary = 1;
-- a fork's turns before fork_turn are a copy of its parent's from parent_turn (index/forks.py)
CREATE TABLE IF NOT EXISTS forks (
    session_id TEXT PRIMARY KEY,
    parent_id TEXT NOT NULL,
    fork_turn INTEGER NOT NULL,
    parent_turn INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS forks_parent ON forks(parent_id);
-- A fork as the queries show it: the view has no `id`, so a subquery over it inside a SELECT
-- from `sessions` reads the outer row's id.
CREATE VIEW IF NOT EXISTS fork_of AS
    SELECT k.session_id AS fork_id, k.parent_id, k.fork_turn, p.title AS parent_title
    FROM forks k JOIN sessions p ON p.id = k.parent_id;
CREATE TABLE IF NOT EXISTS records (
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL,
    turn INTEGER NOT NULL,
    role TEXT NOT NULL,
    time REAL NOT NULL,
    tool TEXT,
    status TEXT,
    path TEXT,
    exit_code INTEGER,
    output TEXT,
    args TEXT,
    hunks TEXT,
    compacted INTEGER NOT NULL DEFAULT 0,
    -- the searchable text, NULL when `record_texts` makes it from the columns above (one_line.py);
    -- output, hunks and body hold long text packed (a BLOB: pack.py), read through `unpack`
    body TEXT,
    -- the extra tokens that make code identifiers searchable by their pieces (parseConfig →
    -- parse config)
    parts TEXT
);
CREATE INDEX IF NOT EXISTS records_session ON records(session_id, turn);
CREATE INDEX IF NOT EXISTS records_path ON records(path, role) WHERE path IS NOT NULL;
-- failed calls (`deja fix` reads only these); created on the next open of an older index
CREATE INDEX IF NOT EXISTS records_failed ON records(session_id, turn)
    WHERE status = 'errored' OR (exit_code IS NOT NULL AND exit_code != 0);
-- sessions the exclude list keeps out, remembered so an unchanged file is not read again
CREATE TABLE IF NOT EXISTS excluded (
    id TEXT PRIMARY KEY,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL
);
-- files that could not be read, remembered so an unchanged broken file is not retried each pass
CREATE TABLE IF NOT EXISTS unreadable (
    id TEXT PRIMARY KEY,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    path TEXT NOT NULL,
    message TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS tombstones (
    kind TEXT NOT NULL,
    value TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (kind, value)
);
"""

# What FTS5 indexes, with the text kept once: `records_fts` is an external-content table over
# `record_texts` (a command's text is its command line and output, already in `records`).
# Created only on an index of the current schema: an older one is upgraded first (recovery.py).
VIEW_DDL = f"""
CREATE VIEW IF NOT EXISTS record_texts AS
    SELECT id, {VIEW_BODY_SQL} AS body, parts FROM records;
"""
TEXT_DDL = f"""{VIEW_DDL}
CREATE VIRTUAL TABLE IF NOT EXISTS records_fts USING fts5(
    body, parts, content = 'record_texts', content_rowid = 'id',
    tokenize = "unicode61 remove_diacritics 2"
);
CREATE VIRTUAL TABLE IF NOT EXISTS records_vocab USING fts5vocab(records_fts, 'row');
"""


class IndexCorrupt(RuntimeError):
    """The index file cannot be opened as a Deja index."""


# Where the index lives: `DEJA_HOME`, else `$XDG_DATA_HOME/deja`, else `~/.local/share/deja`.
default_home = settings.deja_home


def prepare_home(home: StrPath) -> None:
    """A 0700 folder: the index holds the user's conversations."""
    os.makedirs(home, mode=0o700, exist_ok=True)
    _private(home, 0o700)


def _private(path: StrPath, mode: int) -> None:
    """`chmod` only when needed: a read-only home (or one another user owns) still opens,
    read-only (recovery.py)."""
    if stat.S_IMODE(os.stat(path).st_mode) != mode:
        with contextlib.suppress(OSError):
            os.chmod(path, mode)


def connect(path: StrPath) -> sqlite3.Connection:
    """Open (creating 0600) with WAL, a busy timeout, the schema in place and `unpack`."""
    if not os.path.exists(path):
        fd = os.open(path, os.O_CREAT | os.O_WRONLY, 0o600)
        os.close(fd)
    _private(path, 0o600)
    db = sqlite3.connect(
        path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
    )
    pack.register(db)
    try:
        db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if os.stat(path).st_size == 0:  # before WAL mode, which fixes it
            db.execute(f"PRAGMA page_size = {PAGE_SIZE}")
        db.execute("PRAGMA journal_mode = WAL")
        db.execute(f"PRAGMA wal_autocheckpoint = {wal_pages(db, CHECKPOINT_BYTES)}")
        db.execute("PRAGMA synchronous = NORMAL")
        db.execute("PRAGMA foreign_keys = OFF")
        db.executescript(DDL)
        version = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        if version is None:
            db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        if version is None or version[0] == str(SCHEMA_VERSION):
            db.executescript(TEXT_DDL)
    except sqlite3.DatabaseError as error:
        db.close()
        raise IndexCorrupt(f"{path}: {error}") from error
    for suffix in ("-wal", "-shm"):
        side = f"{os.fspath(path)}{suffix}"
        if os.path.exists(side):
            _private(side, 0o600)
    return db


def wal_pages(db: sqlite3.Connection, size: int) -> int:
    """How many of `db`'s pages make `size` bytes (a WAL threshold is set in pages)."""
    (page,) = db.execute("PRAGMA page_size").fetchone()
    return max(1, size // int(page))


def connect_read_only(path: StrPath) -> sqlite3.Connection:
    """The index opened for reading only, where it cannot be written. WAL needs its `-shm`
    file, which a read-only folder may lack: then the file is read as immutable (what the
    last writer checkpointed; nothing here can write it anyway)."""
    from pathlib import Path

    uri = Path(path).resolve().as_uri()
    for query in ("mode=ro", "immutable=1"):
        db = sqlite3.connect(
            f"{uri}?{query}",
            uri=True,
            timeout=BUSY_TIMEOUT_MS / 1000,
            isolation_level=None,
            check_same_thread=False,
        )
        pack.register(db)
        try:
            db.execute("SELECT id FROM sessions LIMIT 1").fetchone()
            return db
        except sqlite3.OperationalError:
            db.close()
            if query == "immutable=1":
                raise
    raise AssertionError("unreachable")


def schema_version(db: sqlite3.Connection) -> int:
    row = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
    return int(row[0]) if row else 0
