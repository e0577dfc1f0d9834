"""The index's cross-process writer lock, on every system Deja runs on.

SQLite's own file locking does the work (POSIX advisory locks on Unix, `LockFileEx` on
Windows): an exclusive transaction on an empty lock file, never written to. Python's `fcntl` is
not needed, so nothing here is POSIX-only, and the system releases the lock when its holder dies,
as `flock` did (a lock file with nothing in it cannot go stale)."""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterator

TYPE_CHECKING = False  # not `typing`'s: start-up (tests/cli/test_cli_startup.py)
if TYPE_CHECKING:
    from .schema import StrPath

LOCK_NAME = "index.lock"

# One attempt waits this long inside SQLite's busy handler before the loop tries again; a pass
# may hold the lock for minutes, and waiting for it has no end, as with a blocking `flock`.
_ATTEMPT_SECONDS = 5.0
# A pass that must not keep an answer waiting gives up after this long (a quick pass elsewhere
# ends within it; another process's first index does not).
NO_WAIT_SECONDS = 0.2


class IndexBusy(Exception):
    """Another process holds the writer lock (e.g. its first index); the index is read as it is."""


@contextlib.contextmanager
def writer_lock(path: StrPath, *, wait: bool = True) -> Iterator[None]:
    """Hold the lock at `path` (created 0600 when missing) until the block ends. Without
    `wait`, `IndexBusy` when another holder keeps it past `NO_WAIT_SECONDS`."""
    os.close(os.open(path, os.O_CREAT | os.O_RDWR, 0o600))
    timeout = _ATTEMPT_SECONDS if wait else NO_WAIT_SECONDS
    db = sqlite3.connect(path, timeout=timeout, isolation_level=None)
    try:
        _acquire(db, wait=wait)
        try:
            yield
        finally:
            db.execute("ROLLBACK")
    finally:
        db.close()


def _acquire(db: sqlite3.Connection, *, wait: bool) -> None:
    while True:
        try:
            # No journal: the lock file stays the only file and is never written.
            db.execute("PRAGMA journal_mode=OFF")
            db.execute("BEGIN EXCLUSIVE")
            return
        except sqlite3.OperationalError as error:
            if getattr(error, "sqlite_errorcode", None) != sqlite3.SQLITE_BUSY:
                raise
            if not wait:
                raise IndexBusy from None
