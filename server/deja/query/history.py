"""The one query API every front door (CLI, sidecar, MCP) calls. Front doors never open SQLite
and never read the store themselves."""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from deja import settings
from deja.index import Index, default_home

from .scope import Scope, ScopeChoice, current_scope, folders_scope, named_scope
from .search import SearchQuery, SearchResult, search

if TYPE_CHECKING:
    from deja.index import PassReport, Progress, Recovery, Tombstone

    from . import blame
    from . import restore as restore_queries
    from . import sessions as session_queries
    from .files import FilesResult
    from .fix import FixResult
    from .fork import ForkCommand
    from .lost import LostSession
    from .provenance import Provenance
    from .recover import Recovered, RecoverOutcome
    from .session_page import SessionPage
    from .stats import Stats

# Each question beyond search imports its module when first asked (`deja search`'s start-up).


class History:
    def __init__(
        self, home: Path | None = None, root: Path | None = None, exclude_path: Path | None = None
    ) -> None:
        self.root = root or settings.continue_root()
        self.home = home or default_home()
        self.index = Index(self.home, self.root, exclude_path)

    @property
    def db(self) -> sqlite3.Connection:
        """The index's connection (a new one after `refresh(rebuild=True)` recovered it)."""
        return self.index.db

    def close(self) -> None:
        self.index.close()

    @property
    def read_only(self) -> str | None:
        """Why the index cannot be written (full disk, read-only home), when it cannot: it was
        opened read-only, questions answer, `refresh` raises `IndexUnwritable`."""
        return self.index.read_only

    def raise_noted_damage(self) -> None:
        """`IndexDamaged` when a command met damage in the index file (until a rebuild)."""
        self.index.raise_noted_damage()

    def user_error(self, error: BaseException) -> Exception | None:
        """An error a question or a pass raised, as one line for the user when it is about
        the index file (damaged, cannot be written); None otherwise."""
        return self.index.user_error(error)

    @property
    def recovery(self) -> Recovery | None:
        """Set when opening found the index file unreadable and started a new one."""
        return self.index.recovery

    def refresh(
        self,
        *,
        rebuild: bool = False,
        progress: Progress | None = None,
        only: set[str] | None = None,
        accept_empty: bool = False,
        switch_store: bool = False,
        wait: bool = True,
    ) -> PassReport:
        """A pass; a missing or emptied store, or another store than the index's own (unless
        `switch_store`), is not applied (see `PassReport.refused`). Without `wait`,
        `deja.index.IndexBusy` when another process is running one."""
        return self.index.refresh(
            rebuild=rebuild,
            progress=progress,
            only=only,
            accept_empty=accept_empty,
            switch_store=switch_store,
            wait=wait,
        )

    def quiet_pass(self) -> PassReport | None:
        """A pass's report, told without running it, when it would find nothing to do (the
        store as the last whole pass saw it); None when it would (`deja index`'s start-up)."""
        from deja.index.quiet import quiet_report

        return quiet_report(self.index)

    def store_unchanged(self) -> bool:
        """True when the last pass saw the store as it is now (a pass would do nothing)."""
        return self.index.store_unchanged()

    # Scope ----------------------------------------------------------------------------------

    def scope_for(
        self, *, all_workspaces: bool = False, workspace: str | None = None, cwd: str | None = None
    ) -> ScopeChoice:
        """`workspace` as the user names it (`scope.named_scope`; raises `WorkspaceError`), else
        the workspace holding `cwd` (all of them, with a note, when none does)."""
        if all_workspaces:
            return ScopeChoice(Scope())
        if workspace:
            return ScopeChoice(named_scope(self.db, workspace, cwd or os.getcwd()))
        return current_scope(self.db, cwd or os.getcwd())

    def scope_for_folders(self, folders: Sequence[str]) -> ScopeChoice:
        """An editor's workspace folders (URIs or paths): for each, the innermost Continue
        workspace holding it (or the folder itself) and every workspace inside that; all
        workspaces, with a note, when no session belongs to any folder."""
        return folders_scope(self.db, folders)

    # Questions ------------------------------------------------------------------------------

    def search(self, query: SearchQuery, *, scope_notes: Sequence[str] = ()) -> SearchResult:
        """The hits, with the notes the answer carries in `.notes`: `scope_notes` (those of the
        `ScopeChoice` the query's scope came from) and, when no hit matched exactly, which
        words were corrected. Doors show the notes as they are."""
        result = search(self.db, query)
        result.notes = [*scope_notes]
        if result.approximate:
            fixes = ", ".join(f"{a} → {b}" for a, b in result.corrections.items())
            result.notes.append(f"no exact match; approximate hits ({fixes})")
        return result

    def sessions(
        self, scope: Scope, limit: int = 50, offset: int = 0
    ) -> list[session_queries.SessionSummary]:
        from . import sessions as session_queries

        return session_queries.list_sessions(self.db, scope, limit, offset)

    def summaries(self, session_ids: Iterable[str]) -> list[session_queries.SessionSummary]:
        """These sessions (ids as the index holds them), newest first; unknown ids left out."""
        from . import sessions as session_queries

        return session_queries.summaries_of(self.db, list(session_ids))

    def lost_sessions(self, scope: Scope) -> list[LostSession]:
        """Sessions whose file is gone or lost turns to compaction (`deja sessions --lost`)."""
        from .lost import lost_sessions

        return lost_sessions(self.db, scope)

    def count_sessions(self, scope: Scope) -> int:
        """How many sessions `sessions` pages through in `scope`."""
        from . import sessions as session_queries

        return session_queries.count_sessions(self.db, scope)

    def resolve_session(self, given: str) -> str:
        from . import sessions as session_queries

        return session_queries.resolve_session_id(self.db, given)

    def show(
        self, session_id: str, turn: int | None = None, *, inherited: bool = False
    ) -> session_queries.SessionView:
        """A session's records; a fork's copy of its parent's turns only with `inherited`."""
        from . import sessions as session_queries

        return session_queries.show_session(
            self.db, self.resolve_session(session_id), turn, inherited=inherited
        )

    def session_page(
        self, session_id: str, *, offset: int | None, limit: int, at_turn: int | None
    ) -> SessionPage:
        """A page of a session's turns for a view that loads them as they scroll in."""
        from .session_page import session_page

        return session_page(
            self.db, self.resolve_session(session_id), offset=offset, limit=limit, at_turn=at_turn
        )

    def fork_command(self, session_id: str) -> ForkCommand:
        from . import sessions as session_queries
        from .fork import fork_command

        return fork_command(
            session_queries.session_summary(self.db, self.resolve_session(session_id))
        )

    def recover(
        self, session_id: str, *, copy: bool = False, dry_run: bool = False
    ) -> RecoverOutcome:
        """Write what the index holds of a session back into Continue's store as a new session
        (`deja recover`; the one call that writes into the store: `deja.continue_write`).
        Raises `NothingToRecover` when Continue still holds it whole (unless `copy`) and
        `StoreWriteRefused` when the store cannot take it; with `dry_run` nothing is written."""
        from deja import continue_write

        from .recover import RecoverOutcome, check_recoverable

        recovered = self.recovered(session_id)
        check_recoverable(recovered, copy=copy)
        new = continue_write.plan_new_session(
            self.root, recovered.document(""), message_count=recovered.message_count
        )
        if not dry_run:
            continue_write.write_new_session(new)
        return RecoverOutcome(recovered, new, written=not dry_run)

    def recovered(self, session_id: str) -> Recovered:
        """A session as Continue's document, from the index (nothing written)."""
        from .recover import recovered_session

        return recovered_session(self.db, self.resolve_session(session_id))

    def restore(
        self,
        selection: str = "",
        *,
        cwd: str | None = None,
        all_workspaces: bool = False,
        session: str | None = None,
        topic: str | None = None,
        limit: int = 20,
        offset: int = 0,
    ) -> restore_queries.RestoreResult:
        """Earlier context as a compact transcript (`deja restore`), from the index alone.

        `selection`: "" (nothing: the listing), "1,3", "1-4", "0" (the current session, when it
        lost context), "last", each optionally followed by ": topic". `session` (an id or 8+
        characters of one) restores that session instead of numbers. `topic` is the same as
        ": topic" (give it one way only): the ~20 turns the index ranks most relevant to it are
        shown in full. Numbers are those of the listing of the workspace containing `cwd`
        (default: the process's directory; every workspace with `all_workspaces`): newest first,
        the current session left out, or shown as #0 when it lost context to compaction.
        `limit`/`offset` page the listing. The current session is restored only up to its last
        compaction (to just after its summary when Deja holds nothing older); a fork carries its
        parent's turns unless the parent is restored too. Does not refresh the index.

        Returns a `RestoreResult`: `.text` is the transcript (first line
        `# deja-restore-format: 1`) and its closing block when something was restored, with
        `.restored` saying what; else `.listing` (`ListedSession(number, session)`, `.total`
        numbered sessions in scope) and `.message` when there is nothing to list or select.
        Raises `RestoreError` (bad selection, number out of range), `UnknownSession`, or
        `QueryError` (a topic with no word to search).
        """
        # Imported here: the restore machinery costs every other command's start-up.
        from . import restore as restore_queries

        return restore_queries.restore(
            self.db,
            self.home,
            selection,
            cwd=cwd,
            all_workspaces=all_workspaces,
            session=session,
            topic=topic,
            limit=limit,
            offset=offset,
        )

    def file_history(
        self, path: str, *, cwd: str | None = None, limit: int = 200, document: str | None = None
    ) -> list[blame.FileEvent]:
        """Events for `path` (a file:// URI, absolute, relative to `cwd`, relative to a workspace
        or the end of a path: `blame.resolve_file`), ranges placed in `document` (where each
        hunk's lines stand by `provenance`)."""
        from . import blame

        paths = blame.resolve_file(self.db, path, cwd=cwd or os.getcwd())
        events = blame.file_history(self.db, paths, limit=limit)
        if document is not None:
            self.provenance(events, document).place()
        return events

    def provenance(self, events: list[blame.FileEvent], document: str) -> Provenance:
        """Which of `file_history`'s events wrote each line of `document`, and which lines
        were changed since (`provenance.py`). Pure: no query."""
        from .provenance_match import provenance as line_provenance

        return line_provenance(events, document)

    def fix(self, error: str, scope: Scope, limit: int = 10) -> FixResult:
        """Past failures with the same or a close error signature as `error` (`deja fix`), each
        with what made it go away in its session or `fixed=False`, best first."""
        from .fix import find_fixes

        return find_fixes(self.db, error, scope, limit)

    def files(self, topic: str, scope: Scope, limit: int = 20) -> FilesResult:
        """The files the sessions matching `topic` edited, wrote or read (`deja files`)."""
        from .files import files_for_topic

        return files_for_topic(self.db, topic, scope, limit)

    def most_edited_file(self) -> str:
        from . import blame

        return blame.most_edited_file(self.db)

    def stats(self) -> Stats:
        from .stats import index_stats

        return index_stats(self.db, self.index.path, self.root)

    def forget_preview(
        self, *, session: str | None = None, workspace: str | None = None
    ) -> list[session_queries.SessionSummary]:
        """What `forget_session(session)` or `forget_workspace(workspace)` would remove, newest
        first; nothing changes. Raises `UnknownSession` when the index holds none of it."""
        from . import sessions as session_queries

        if session is not None:
            return [session_queries.session_summary(self.db, self.resolve_session(session))]
        if workspace is None:
            raise ValueError("forget_preview needs a session or a workspace")
        with self._nothing_indexed():
            ids = self.index.workspace_sessions(os.path.abspath(workspace))
        return session_queries.summaries_of(self.db, ids)

    def forks_of(self, session_id: str) -> list[session_queries.SessionSummary]:
        """The sessions forked from this one, newest first (each holds a copy of its turns)."""
        from . import sessions as session_queries

        return session_queries.forks_of(self.db, self.resolve_session(session_id))

    def forget_session(self, session_id: str) -> session_queries.SessionSummary:
        """Remove a session from the index for good (a tombstone keeps later passes from
        bringing it back); returns what it was. Raises `UnknownSession`."""
        from . import sessions as session_queries

        summary = session_queries.session_summary(self.db, self.resolve_session(session_id))
        with self._nothing_indexed():
            self.index.forget_session(summary.id)
        self._prune_restore_cache()
        return summary

    def forget_workspace(self, directory: str) -> int:
        """Remove a workspace's sessions (and keep its later ones out); how many went. Raises
        `UnknownSession` when the index holds no session of it."""
        with self._nothing_indexed():
            count = self.index.forget_workspace(os.path.abspath(directory))
        self._prune_restore_cache()
        return count

    def tombstones(self) -> list[Tombstone]:
        return self.index.tombstones()

    def unforget(self, given: str) -> Tombstone:
        """Undo a forget: a forgotten session id (8+ characters) or workspace directory. The next
        pass indexes it again from Continue's store (what only Deja had kept is gone)."""
        with self._nothing_indexed():
            return self.index.undo_forget(given, os.path.abspath(given))

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

        restore_queries.prune_cache(self.db, self.home)
