"""The store's stamp: whether a pass would find anything to do, told without one.

A pass that saw a listing records its stamp (`meta.store_stamp`): every session file's (id,
size, mtime_ns), in listing order, and what else decides what a pass reads (the schema version,
the store's root, the exclude list's text, the size cap, the redaction switch, whether search by
meaning is on), kept as text rather than hashed (exact, and no hash library to load: ~70 bytes
a session). `unchanged` lists the folder again (one `scandir` and one stat per file, no file
opened, none of the reader imported) and compares. Exact as the pass's own test is, with one
rule from git's "racy clean": no stamp is recorded while a file's mtime is within
`RACY_WINDOW_NS` of the listing, since a second write in the same mtime tick with the same size
would not show (mtimes tick every few ms on Linux; NTFS keeps 100 ns; `scandir` on Windows
reads them from the directory, as the pass does). Anything else that writes the index (forget,
undo) clears it.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Iterable
from pathlib import Path

from deja import semantic, settings

from .schema import SCHEMA_VERSION

# The same window the pass uses to re-read a file written just before it looked.
RACY_WINDOW_NS = 100_000_000
_LIST_NAME = "sessions.json"
_KEY = "store_stamp"


def listing_time() -> int:
    """Taken before a listing: the instant its mtimes are judged against."""
    return time.time_ns()


def stamp_of(
    root: Path, exclude_path: Path | None, files: Iterable[tuple[str, int, int]], listed_at: int
) -> str | None:
    """The stamp of a listing of (id, size, mtime_ns); None when a file is too fresh to trust.
    In listing order, not sorted: the pass and `current_stamp` both list with one `scandir`,
    which yields an unchanged folder's entries in the same order, and a listing in another
    order only makes an unchanged store look changed (a pass that finds nothing: safe)."""
    fields: list[str] = []
    for session_id, size, mtime_ns in files:
        if listed_at - mtime_ns < RACY_WINDOW_NS:
            return None
        fields.append(f"{session_id} {size} {mtime_ns}")
    # No file name holds a `/` or a space, and the context (a repr) no newline: the text reads
    # one way.
    return _context(root, exclude_path) + "\n" + "/".join(fields)


def current_stamp(root: Path, exclude_path: Path | None) -> str | None:
    """The stamp of the store as it is now; None when anything in it would make a pass speak
    (no folder, a symlink or other odd entry among the session files) or a file is too fresh."""
    listed_at = listing_time()
    files: list[tuple[str, int, int]] = []
    try:
        with os.scandir(root / "sessions") as entries:
            for entry in entries:
                name = entry.name
                if not name.endswith(".json") or name == _LIST_NAME:
                    continue
                if not entry.is_file(follow_symlinks=False):
                    return None
                info = entry.stat(follow_symlinks=False)
                files.append((name[:-5], info.st_size, info.st_mtime_ns))
    except OSError:
        return None
    return stamp_of(root, exclude_path, files, listed_at)


def recorded(db: sqlite3.Connection) -> str | None:
    row = db.execute("SELECT value FROM meta WHERE key = ?", (_KEY,)).fetchone()
    return str(row[0]) if row else None


def record(db: sqlite3.Connection, stamp: str | None) -> None:
    """In the caller's write transaction, after everything the listing showed is committed."""
    if stamp is None:
        clear(db)
    else:
        db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (_KEY, stamp))


def clear(db: sqlite3.Connection) -> None:
    db.execute("DELETE FROM meta WHERE key = ?", (_KEY,))


def unchanged(db: sqlite3.Connection, root: Path, exclude_path: Path | None) -> bool:
    """True when the last pass saw the store exactly as it is now: a pass would do nothing."""
    known = recorded(db)
    return known is not None and current_stamp(root, exclude_path) == known


def _context(root: Path, exclude_path: Path | None) -> str:
    path = exclude_path or settings.exclude_file()
    try:
        excluded = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        excluded = "\0none"
    parts = (
        str(SCHEMA_VERSION),
        str(root.resolve()),
        os.path.expanduser("~"),
        str(settings.max_session_bytes()),
        str(settings.redact_secrets()),
        # Installing the semantic extra (or turning it off) gives a pass vectors to make.
        str(semantic.enabled()),
    )
    return repr((*parts, excluded))
