"""`History`'s forgetting: what a forget would remove, the forget itself, its tombstones and
their undo. A part of the one query API (`History` is this class with the questions), kept in
its own module for length."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

TYPE_CHECKING = False  # not `typing`'s: start-up (tests/cli/test_cli_startup.py)
if TYPE_CHECKING:
    from deja.index import Index, Tombstone

    from . import sessions as session_queries


class Forgetting:
    _index: Index

    def resolve_session(self, given: str) -> str:
        """The id the index holds for `given` (an id or a unique start of one); raises
        `UnknownSession`."""
        from . import sessions as session_queries

        return session_queries.resolve_session_id(self._index.db, given)

    def forget_preview(
        self, *, session: str | None = None, workspace: str | None = None
    ) -> list[session_queries.SessionSummary]:
        """What `forget_session(session)` or `forget_workspace(workspace)` would remove, newest
        first; nothing changes. Raises `UnknownSession` when the index holds none of it."""
        from . import sessions as session_queries

        if session is not None:
            return [session_queries.session_summary(self._index.db, self.resolve_session(session))]
        if workspace is None:
            raise ValueError("forget_preview needs a session or a workspace")
        with self._nothing_indexed():
            ids = self._index.workspace_sessions(os.path.abspath(workspace))
        return session_queries.summaries_of(self._index.db, ids)

    def forget_session(self, session_id: str) -> session_queries.SessionSummary:
        """Remove a session from the index for good (a tombstone keeps later passes from
        bringing it back); returns what it was. Raises `UnknownSession`."""
        from . import sessions as session_queries

        summary = session_queries.session_summary(self._index.db, self.resolve_session(session_id))
        with self._nothing_indexed():
            self._index.forget_session(summary.id)
        self._prune_restore_cache()
        return summary

    def forget_workspace(self, directory: str) -> int:
        """Remove a workspace's sessions (and keep its later ones out); how many went. Raises
        `UnknownSession` when the index holds no session of it."""
        with self._nothing_indexed():
            count = self._index.forget_workspace(os.path.abspath(directory))
        self._prune_restore_cache()
        return count

    def tombstones(self) -> list[Tombstone]:
        return self._index.tombstones()

    def unforget(self, given: str) -> Tombstone:
        """Undo a forget: a forgotten session id (8+ characters) or workspace directory. The next
        pass indexes it again from Continue's store (what only Deja had kept is gone)."""
        with self._nothing_indexed():
            return self._index.undo_forget(given, os.path.abspath(given))

    @contextlib.contextmanager
    def _nothing_indexed(self) -> Iterator[None]:
        """The index's `NotIndexed` as the query layer's user error."""
        from deja.index.tombstones import NotIndexed

        from . import sessions as session_queries

        try:
            yield
        except NotIndexed as error:
            raise session_queries.UnknownSession(str(error)) from None

    def _prune_restore_cache(self) -> None:
        """A forgotten session's restore transcript must not outlive it on disk."""
        from . import restore as restore_queries

        restore_queries.prune_cache(self._index.db, self._index.home)
