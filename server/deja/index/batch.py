"""Many sessions per write transaction during a pass: a commit costs a WAL sync and an index
page write-back per session otherwise, most of a cold pass over small sessions.

Each transaction holds whole sessions only, so a crash (kill -9 included) still leaves the last
consistent state; it just loses up to one batch of work, redone by the next pass. A batch is
committed after `max_seconds` of work or `max_sessions` sessions, so readers (the sidecar, a
`deja search` in another process) see a long pass progress."""

from __future__ import annotations

import contextlib
import sqlite3
import time
from collections.abc import Iterator

# Bench-tuned: past ~0.25 s a batch gains little and readers wait longer to see new sessions.
BATCH_SECONDS = 0.25
BATCH_SESSIONS = 500


class CommitBatch:
    """`with batch.session() as db:` writes one session inside the open batch, committed once
    the batch is full; `commit()` ends the pass's last batch. A session whose write fails is
    rolled back alone (a savepoint) and the whole sessions before it are committed, as when each
    session was its own transaction."""

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
        self._pending = 0

    @contextlib.contextmanager
    def session(self) -> Iterator[sqlite3.Connection]:
        if not self.db.in_transaction:
            self.db.execute("BEGIN IMMEDIATE")
            self._opened = time.perf_counter()
            self._pending = 0
        self.db.execute("SAVEPOINT one_session")
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK TO one_session")
            self.db.execute("RELEASE one_session")
            self.commit()
            raise
        self.db.execute("RELEASE one_session")
        self._pending += 1
        full = self._pending >= self.max_sessions
        if full or time.perf_counter() - self._opened >= self.max_seconds:
            self.commit()

    def commit(self) -> None:
        if self.db.in_transaction:
            self.db.execute("COMMIT")
