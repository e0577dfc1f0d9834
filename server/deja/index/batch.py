"""Many sessions per write transaction during a pass: a commit costs a WAL sync and an index
page write-back per session otherwise, most of a cold pass over small sessions.

Each transaction holds whole sessions only, so a crash (kill -9 included) still leaves the last
consistent state; it just loses up to one batch of work, redone by the next pass. A batch is
committed after `max_seconds` of work or `max_sessions` sessions, so readers (the sidecar, a
`deja search` in another process) see a long pass progress.

No savepoint per session: releasing one made FTS5 write its pending terms out as a new segment
for every session (an eighth of a cold pass's writer CPU). A session whose write fails is
rolled back alone all the same: the batch is rolled back and the sessions before it in the
batch are written again and committed, which costs only when a write fails."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from typing import TypeVar

# Bench-tuned: past ~0.25 s a batch gains little and readers wait longer to see new sessions.
BATCH_SECONDS = 0.25
BATCH_SESSIONS = 500

T = TypeVar("T")
# One session's writes: run again as they are when a later session of its batch fails, so it
# must depend only on what it captured and on the index (no clock, no counters).
SessionWrite = Callable[[sqlite3.Connection], T]


class CommitBatch:
    """`batch.write(session_write)` runs one session's writes inside the open batch, committed
    once the batch is full; `commit()` ends the pass's last batch. A session whose write fails
    is rolled back alone and the whole sessions before it are committed, as when each session
    was its own transaction; the failure is raised."""

    def __init__(
        self,
        db: sqlite3.Connection,
        *,
        max_seconds: float | None = None,
        max_sessions: int | None = None,
    ) -> None:
        self.db = db
        self.max_seconds = BATCH_SECONDS if max_seconds is None else max_seconds
        self.max_sessions = BATCH_SESSIONS if max_sessions is None else max_sessions
        self._opened = 0.0
        self._written: list[SessionWrite[object]] = []

    def write(self, session_write: SessionWrite[T]) -> T:
        if not self.db.in_transaction:
            self.db.execute("BEGIN IMMEDIATE")
            self._opened = time.perf_counter()
            self._written = []
        try:
            result = session_write(self.db)
        except BaseException:
            self._keep_those_before()
            raise
        self._written.append(session_write)
        full = len(self._written) >= self.max_sessions
        if full or time.perf_counter() - self._opened >= self.max_seconds:
            self.commit()
        return result

    def commit(self) -> None:
        if self.db.in_transaction:
            self.db.execute("COMMIT")
        self._written = []

    def _keep_those_before(self) -> None:
        """After a failed write: the batch rolled back, its whole sessions written again in one
        transaction and committed (none of them if writing them fails this time)."""
        written, self._written = self._written, []
        if self.db.in_transaction:  # SQLite may have rolled back already (a full disk)
            self.db.execute("ROLLBACK")
        if not written:
            return
        self.db.execute("BEGIN IMMEDIATE")
        try:
            for session_write in written:
                session_write(self.db)
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")
