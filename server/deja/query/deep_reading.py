"""`History`'s part in the deep model's background pass (`deja.semantic.deep_pass`), which the
long-running doors run (`deja.live_deep`): the work read (on a connection of its own: looking
for it may take a while in a large index), the lease taken, the records embedded outside any
lock, each part saved. A part of the one query API, kept in its own module for length."""

from __future__ import annotations

from collections.abc import Sequence

TYPE_CHECKING = False  # not `typing`'s: start-up (tests/cli/test_cli_startup.py)
if TYPE_CHECKING:
    from deja.index import Index
    from deja.semantic.deep_pass import DeepWork


class DeepReading:
    _index: Index

    def deep_prepare(self) -> None:
        """The deep set's tables in place for the current model (a write only the first time)."""
        from deja.semantic import deep_pass

        if not deep_pass.ready(self._index.db):
            with self._index.writer(wait=False), self._index.transaction() as db:
                deep_pass.begin(db)

    def deep_work(self) -> DeepWork | None:
        """The most recently active session's records that have no deep vector yet (None when
        every record has one, or the deep set is not prepared)."""
        from deja.semantic import deep_pass

        return deep_pass.next_work(self._index.db) if deep_pass.ready(self._index.db) else None

    def take_deep_lease(self) -> bool:
        """Whether this process does the deep work (no other process does); `IndexBusy` when a
        pass elsewhere keeps the index."""
        from deja.semantic import deep_pass

        with self._index.writer(wait=False), self._index.transaction() as db:
            return deep_pass.take_lease(db)

    def save_deep(self, work: DeepWork, vectors: Sequence[bytes]) -> int:
        """The vectors of `work`'s records still as they were read; how many were written.
        `IndexBusy` when another process took the work meanwhile or keeps the index."""
        from deja.index import IndexBusy
        from deja.semantic import deep_pass

        with self._index.writer(wait=False), self._index.transaction() as db:
            if not deep_pass.take_lease(db):
                raise IndexBusy
            return deep_pass.save(db, work, list(vectors))

    def end_deep(self) -> None:
        """This process no longer does the deep work (another may take it at once)."""
        from deja.semantic import deep_pass

        with self._index.writer(wait=False), self._index.transaction() as db:
            deep_pass.give_up_lease(db)

    def deep_pending(self) -> int | None:
        """Records without a deep vector; None when the deep pass never ran on this index."""
        from deja.semantic import deep_pass

        return deep_pass.pending(self._index.db) if deep_pass.ready(self._index.db) else None
