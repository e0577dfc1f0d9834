"""SQLite settings for a large pass, put back once it is over.

SQLite's default page cache (2 MB) is far smaller than a large index: each session's rows go to
random places in the indexes keyed by session id (`records_session`, `items`) and by
fingerprint (`items_fingerprint`), so as the index grows, more of those inserts read their page
back from the file and write it again at the next commit. A larger cache for the pass, and a
checkpoint every few tens of MB of WAL instead of every 4 MB (fewer copies of the same hot
pages into the database file), leave each transaction as whole as before: only when pages
reach the file changes. The cache's memory is given back after the pass (a sidecar lives on
after its first one)."""

from __future__ import annotations

import contextlib
import sqlite3
import sys
from collections.abc import Iterator, Sequence

from deja.continue_store import SessionRef

from .schema import wal_pages

LARGE_PASS_BYTES = 64 * 1024 * 1024
CACHE_KIB = 32 * 1024
CHECKPOINT_BYTES = 8000 * 4096  # in pages of the index's size (schema.wal_pages)


@contextlib.contextmanager
def large_pass(db: sqlite3.Connection, todo: Sequence[SessionRef]) -> Iterator[None]:
    """The pass's settings while it writes `todo`, when it has more than `LARGE_PASS_BYTES`."""
    if sum(ref.size for ref in todo) <= LARGE_PASS_BYTES:
        yield
        return
    (cache,) = db.execute("PRAGMA cache_size").fetchone()
    (checkpoint,) = db.execute("PRAGMA wal_autocheckpoint").fetchone()
    db.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
    db.execute(f"PRAGMA wal_autocheckpoint = {wal_pages(db, CHECKPOINT_BYTES)}")
    try:
        yield
    finally:
        db.execute(f"PRAGMA cache_size = {int(cache)}")
        db.execute(f"PRAGMA wal_autocheckpoint = {int(checkpoint)}")
        _give_back_memory(db)


def _give_back_memory(db: sqlite3.Connection) -> None:
    """SQLite frees the cache's pages, but glibc keeps freed heap pages mapped: without
    `malloc_trim` a long-running process would keep the cache's size after every big pass."""
    db.execute("PRAGMA shrink_memory")
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    with contextlib.suppress(OSError, AttributeError):  # not glibc: musl's free gives them back
        ctypes.CDLL("libc.so.6").malloc_trim(0)
