"""The one query API every front door (CLI, sidecar, MCP, team push, doctor) calls: it alone holds
the index's connection (private), as datasette's `Database` does. Outside `index/`, `query/` and
`semantic/` nothing opens SQLite or names an index table
(`tests/contract/test_import_rules.py`), and front doors never read the store themselves."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable, Sequence

from deja import settings
from deja.errors import DejaError
from deja.index import Index

from .deep_reading import DeepReading
from .forgetting import Forgetting

TYPE_CHECKING = False  # not `typing`'s: start-up (tests/cli/test_cli_startup.py)
if TYPE_CHECKING:
    from pathlib import Path

    from deja.index import PassReport, Progress, Recovery
    from deja.index.exclude import ExcludeList

    from . import blame
    from . import restore as restore_queries
    from . import sessions as session_queries
    from .files import FilesResult
    from .fix import FixResult
    from .fork_command import ForkCommand
    from .lost import LostSession
    from .provenance import Provenance
    from .recover import Recovered, RecoverOutcome
    from .scope import Scope, ScopeChoice
    from .search import SearchQuery, SearchResult
    from .session_page import SessionPage
    from .shared import IndexedRecord, IndexedSession
    from .stats import IndexHealth, Stats

# What opening the index may raise: a door that must not fail on it (`deja doctor`) catches
# these without naming SQLite.
OPEN_ERRORS = (OSError, sqlite3.Error, DejaError)

# Each question beyond search imports its module when first asked (`deja search`'s start-up).


class History(Forgetting, DeepReading):
    def __init__(
        self,
        home: Path | None = None,
        root: Path | None = None,
        exclude_path: Path | None = None,
        *,
        for_reading: bool = False,
    ) -> None:
        """`for_reading`: open the index read-only (a thread beside the sidecar's own pass)."""
        # As text: `pathlib` is not on a quiet `deja index`'s path (`root`, `home` give Paths).
        self.root_dir = os.fspath(root) if root else settings.continue_root_text()
        self.home_dir = os.fspath(home) if home else settings.deja_home_text()
        self._index = Index(self.home_dir, self.root_dir, exclude_path, for_reading=for_reading)

    @property
    def root(self) -> Path:
        """Continue's folder this history reads."""
        return self._index.root

    @property
    def home(self) -> Path:
        """The folder holding the index."""
        return self._index.home

    @property
    def _db(self) -> sqlite3.Connection:
        """The index's connection (a new one after `refresh(rebuild=True)` recovered it)."""
        return self._index.db

    @property
    def index_path(self) -> Path:
        return self._index.path

    def close(self) -> None:
        self._index.close()

    def exclude_list(self) -> ExcludeList:
        """The exclude list this index applies."""
        from deja.index.exclude import load_exclude_list

        return load_exclude_list(self._index.exclude_path)

    @property
    def read_only(self) -> str | None:
        """Why the index cannot be written (full disk, read-only home), when it cannot: it was
        opened read-only, questions answer, `refresh` raises `IndexUnwritable`."""
        return self._index.read_only

    def raise_noted_damage(self) -> None:
        """`IndexDamaged` when a command met damage in the index file (until a rebuild)."""
        self._index.raise_noted_damage()

    def user_error(self, error: BaseException) -> Exception | None:
        """An error a question or a pass raised, as one line for the user when it is about
        the index file (damaged, cannot be written); None otherwise."""
        return self._index.user_error(error)

    @property
    def recovery(self) -> Recovery | None:
        """Set when opening found the index file unreadable and started a new one."""
        return self._index.recovery

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
        return self._index.refresh(
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
        from deja.index.plan import quiet_report

        return quiet_report(self._index)

    def store_unchanged(self) -> bool:
        """True when the last pass saw the store as it is now (a pass would do nothing)."""
        return self._index.store_unchanged()

    # Scope ----------------------------------------------------------------------------------

    def scope_for(
        self, *, all_workspaces: bool = False, workspace: str | None = None, cwd: str | None = None
    ) -> ScopeChoice:
        """`workspace` as the user names it (`scope.named_scope`; raises `WorkspaceError`), else
        the workspace holding `cwd` (all of them, with a note, when none does)."""
        # Here: the workspace rules (`re`, `urllib`) are not on a quiet `deja index`'s path.
        from .scope import Scope, ScopeChoice, current_scope, named_scope

        if all_workspaces:
            return ScopeChoice(Scope())
        if workspace:
            return ScopeChoice(named_scope(self._db, workspace, cwd or os.getcwd()))
        return current_scope(self._db, cwd or os.getcwd())

    def scope_for_folders(self, folders: Sequence[str]) -> ScopeChoice:
        """An editor's workspace folders (URIs or paths): for each, the innermost Continue
        workspace holding it (or the folder itself) and every workspace inside that; all
        workspaces, with a note, when no session belongs to any folder."""
        from .scope import folders_scope

        return folders_scope(self._db, folders)

    # Questions ------------------------------------------------------------------------------

    def search(self, query: SearchQuery, *, scope_notes: Sequence[str] = ()) -> SearchResult:
        """The hits, with the notes the answer carries in `.notes`: `scope_notes` (those of the
        `ScopeChoice` the query's scope came from) and, when no hit matched exactly, which
        words were corrected. Doors show the notes as they are."""
        from .search import search  # not on a quiet `deja index`'s path

        result = search(self._db, query)
        result.notes = [*scope_notes]
        if result.approximate:
            fixes = ", ".join(f"{a} → {b}" for a, b in result.corrections.items())
            result.notes.append(f"no exact match; approximate hits ({fixes})")
        return result

    def sessions(
        self, scope: Scope, limit: int = 50, offset: int = 0
    ) -> list[session_queries.SessionSummary]:
        from . import sessions as session_queries

        return session_queries.list_sessions(self._db, scope, limit, offset)

    def summaries(self, session_ids: Iterable[str]) -> list[session_queries.SessionSummary]:
        """These sessions (ids as the index holds them), newest first; unknown ids left out."""
        from . import sessions as session_queries

        return session_queries.summaries_of(self._db, list(session_ids))

    def lost_sessions(self, scope: Scope) -> list[LostSession]:
        """Sessions whose file is gone or lost turns to compaction (`deja sessions --lost`)."""
        from .lost import lost_sessions

        return lost_sessions(self._db, scope)

    def count_sessions(self, scope: Scope) -> int:
        """How many sessions `sessions` pages through in `scope`."""
        from . import sessions as session_queries

        return session_queries.count_sessions(self._db, scope)

    def show(
        self, session_id: str, turn: int | None = None, *, inherited: bool = False
    ) -> session_queries.SessionView:
        """A session's records; a fork's copy of its parent's turns only with `inherited`."""
        from . import sessions as session_queries

        return session_queries.show_session(
            self._db, self.resolve_session(session_id), turn, inherited=inherited
        )

    def session_page(
        self, session_id: str, *, offset: int | None, limit: int, at_turn: int | None
    ) -> SessionPage:
        """A page of a session's turns for a view that loads them as they scroll in."""
        from .session_page import session_page

        return session_page(
            self._db, self.resolve_session(session_id), offset=offset, limit=limit, at_turn=at_turn
        )

    def fork_command(self, session_id: str) -> ForkCommand:
        from . import sessions as session_queries
        from .fork_command import fork_command

        return fork_command(
            session_queries.session_summary(self._db, self.resolve_session(session_id))
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

        return recovered_session(self._db, self.resolve_session(session_id))

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
            self._db,
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

        paths = blame.resolve_file(self._db, path, cwd=cwd or os.getcwd())
        events = blame.file_history(self._db, paths, limit=limit)
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

        return find_fixes(self._db, error, scope, limit)

    def files(self, topic: str, scope: Scope, limit: int = 20) -> FilesResult:
        """The files the sessions matching `topic` edited, wrote or read (`deja files`)."""
        from .files import files_for_topic

        return files_for_topic(self._db, topic, scope, limit)

    def most_edited_file(self) -> str:
        from . import blame

        return blame.most_edited_file(self._db)

    def stats(self) -> Stats:
        from .stats import index_stats

        return index_stats(self._db, self._index.path, self.root)

    def health(self, *, check_pages: bool = False) -> IndexHealth:
        """The index file's schema, what it keeps out, and with `check_pages` SQLite's check of
        every page (reads the whole file: `deja doctor`)."""
        from .stats import index_health

        return index_health(self._db, check_pages=check_pages)

    def known_workspaces(self) -> list[str]:
        from .scope import known_workspaces

        return known_workspaces(self._db)

    def indexed_sessions(self) -> list[IndexedSession]:
        """Every session the index holds, as a team push reads them (`deja.team.local`)."""
        from .shared import indexed_sessions

        return indexed_sessions(self._db)

    def indexed_records(self, session_id: str) -> list[IndexedRecord]:
        from .shared import indexed_records

        return indexed_records(self._db, session_id)

    def forks_of(self, session_id: str) -> list[session_queries.SessionSummary]:
        """The sessions forked from this one, newest first (each holds a copy of its turns)."""
        from . import sessions as session_queries

        return session_queries.forks_of(self._db, self.resolve_session(session_id))
