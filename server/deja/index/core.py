"""The durable index: one SQLite file in DEJA_HOME, kept in step with Continue's store by passes.
A pass re-reads only sessions whose file changed and commits each in its own transaction, so a
crash at any point leaves the last consistent state."""

from __future__ import annotations

import contextlib
import fcntl
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from deja import settings
from deja.continue_store import Diagnostic, SessionRead, SessionRef, read_session
from deja.continue_store.store import SessionFile, read_session_list, scan_session_files
from deja.continue_store.workspace import normalize_workspace, workspace_contains
from deja.errors import DejaError

from .exclude import ExcludeList, load_exclude_list
from .ingest import forget_session, ingest_session
from .schema import (
    DB_NAME,
    SCHEMA_VERSION,
    IndexCorrupt,
    connect,
    prepare_home,
    schema_version,
)

Progress = Callable[[int, int], None]
MIN_UNDO_PREFIX = 8  # characters of a forgotten session's id that `undo_forget` accepts
RACY_WINDOW_NS = 100_000_000
# A store listing no session file while the index holds this many live sessions is reported,
# not applied: an unmounted home looks just like that. One session deleted is just a delete.
EMPTIED_STORE_SESSIONS = 2


StoreProblem = Literal["missing", "unreadable", "empty"]


@dataclass(frozen=True, slots=True)
class StoreRefusal:
    """Why a pass left the index as it was: applying this store would mark every session it
    holds deleted, and a wrong setting or an unmounted home looks just like that."""

    problem: StoreProblem
    message: str


@dataclass(slots=True)
class PassReport:
    sessions: int = 0
    read: int = 0
    changed: int = 0
    kept: int = 0
    deleted: int = 0
    errors: list[Diagnostic] = field(default_factory=list)
    notes: list[Diagnostic] = field(default_factory=list)
    changed_ids: list[str] = field(default_factory=list)
    seconds: float = 0.0
    refused: StoreRefusal | None = None


class NotIndexed(DejaError, LookupError):
    """`forget` (or its undo) of something the index does not hold: nothing changes."""


@dataclass(frozen=True, slots=True)
class Tombstone:
    """What `forget` left so later passes do not bring it back: a session id or a workspace."""

    kind: str  # "session" | "workspace"
    value: str
    created: float


# A session left out because its workspace was forgotten: kept apart from the sessions forgotten
# one by one, so that undoing the workspace brings them back.
_SWEPT = "workspace-session"


@dataclass(slots=True)
class Recovery:
    """What happened when the index file could not be opened."""

    message: str
    lost: str


class Index:
    """Owns the SQLite file. Writers take `index.lock` so only one pass runs at a time; readers
    never wait for a pass (WAL)."""

    def __init__(self, home: Path, root: Path, exclude_path: Path | None = None) -> None:
        self.home = home
        self.root = root
        self.exclude_path = exclude_path
        self.path = home / DB_NAME
        self.recovery: Recovery | None = None
        prepare_home(home)
        self.db = self._open()

    def _open(self) -> sqlite3.Connection:
        try:
            db = connect(self.path)
            # Reading the schema and a row catches a file that is not a database; a full
            # integrity check would read the whole index on every start.
            db.execute("SELECT id FROM sessions LIMIT 1").fetchone()
        except (IndexCorrupt, sqlite3.DatabaseError) as error:
            return self._recover(str(error))
        if schema_version(db) != SCHEMA_VERSION:
            db = self._upgrade(db)
        return db

    def _recover(self, reason: str) -> sqlite3.Connection:
        """A corrupt index is moved aside and rebuilt from the store; say what cannot return."""
        aside = self.path.with_name(f"{DB_NAME}.corrupt-{int(time.time())}")
        with contextlib.suppress(OSError):
            os.replace(self.path, aside)
        for suffix in ("-wal", "-shm"):
            with contextlib.suppress(OSError):
                os.unlink(str(self.path) + suffix)
        self.recovery = Recovery(
            message=f"the index could not be opened ({reason}); it was moved to {aside.name} "
            "and is rebuilt from Continue's store",
            lost="turns that Continue's compaction removed and only the old index held cannot "
            "be recovered; forgotten sessions are forgotten again only if they are in the store",
        )
        return connect(self.path)

    def _upgrade(self, old: sqlite3.Connection) -> sqlite3.Connection:
        """A new schema starts from an empty file, carrying over what only the index holds: the
        sessions, the compacted records and items, and the tombstones. The store gives the rest."""
        old.close()
        previous = self.path.with_name(f"{DB_NAME}.upgrading")
        os.replace(self.path, previous)
        for suffix in ("-wal", "-shm"):
            with contextlib.suppress(OSError):
                os.replace(str(self.path) + suffix, str(previous) + suffix)
        db = connect(self.path)
        db.execute("ATTACH DATABASE ? AS old", (str(previous),))
        try:
            db.execute("BEGIN IMMEDIATE")
            _copy_common(db, "sessions", "1")
            db.execute("UPDATE sessions SET size = -1, mtime_ns = -1")  # re-read every file
            _copy_common(db, "items", "compacted = 1")
            _copy_common(db, "records", "compacted = 1")
            db.execute(
                "INSERT INTO records_fts (rowid, body, parts) SELECT rowid, body, parts"
                " FROM old.records_fts WHERE rowid IN (SELECT id FROM records)"
            )
            _copy_common(db, "tombstones", "1")
            db.execute("COMMIT")
        except sqlite3.DatabaseError:
            db.execute("ROLLBACK")
            raise
        finally:
            db.execute("DETACH DATABASE old")
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(OSError):
                os.unlink(str(previous) + suffix)
        return db

    def close(self) -> None:
        self.db.close()

    @contextlib.contextmanager
    def writer(self) -> Iterator[None]:
        """One writer across processes (CLI and sidecar share DEJA_HOME)."""
        fd = os.open(self.home / "index.lock", os.O_CREAT | os.O_RDWR, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    # Tombstones -----------------------------------------------------------------------------

    def _tombstones(self) -> tuple[set[str], list[str]]:
        sessions: set[str] = set()
        workspaces: list[str] = []
        for kind, value in self.db.execute("SELECT kind, value FROM tombstones"):
            if kind == "workspace":
                workspaces.append(value)
            else:
                sessions.add(value)
        return sessions, workspaces

    def tombstones(self) -> list[Tombstone]:
        """What was forgotten, oldest first (sessions left out with their workspace are the
        workspace's)."""
        return [
            Tombstone(kind, value, created)
            for kind, value, created in self.db.execute(
                "SELECT kind, value, created FROM tombstones WHERE kind != ?"
                " ORDER BY created, kind, value",
                (_SWEPT,),
            )
        ]

    def workspace_sessions(self, directory: str) -> list[str]:
        """The indexed sessions of a workspace: those in it or in a folder inside it. Raises
        `NotIndexed` (saying why) when there are none."""
        workspace = normalize_workspace(directory)
        ids = [
            row[0]
            for row in self.db.execute("SELECT id, workspace FROM sessions")
            if workspace_contains(workspace, row[1])
        ]
        if not ids:
            raise NotIndexed(self._nothing_in(workspace))
        return ids

    def forget_session(self, session_id: str) -> None:
        with self.writer(), self.transaction() as db:
            if db.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone() is None:
                raise NotIndexed(f"no session {session_id!r} in the index: nothing to forget")
            forget_session(db, session_id)
            db.execute(
                "INSERT OR REPLACE INTO tombstones VALUES ('session', ?, ?)",
                (session_id, time.time()),
            )

    def forget_workspace(self, directory: str) -> int:
        workspace = normalize_workspace(directory)
        with self.writer(), self.transaction() as db:
            ids = self.workspace_sessions(workspace)
            for session_id in ids:
                forget_session(db, session_id)
            db.execute(
                "INSERT OR REPLACE INTO tombstones VALUES ('workspace', ?, ?)",
                (workspace, time.time()),
            )
        return len(ids)

    def _nothing_in(self, workspace: str) -> str:
        if any(t.kind == "workspace" and t.value == workspace for t in self.tombstones()):
            return f"{workspace} is already forgotten (deja forget --list)"
        return (
            f"no indexed session belongs to {workspace}: nothing to forget (to keep a workspace"
            " out of the index before it has sessions, add it to the exclude list)"
        )

    def undo_forget(self, session_or_workspace: str, directory: str | None = None) -> Tombstone:
        """Remove one tombstone so the next pass indexes what Continue's store still holds of
        it. `session_or_workspace`: a forgotten session id (or 8+ characters of one) or a
        forgotten workspace; `directory`: the same as an absolute path, when it is one."""
        given = session_or_workspace
        folders = {normalize_workspace(w) for w in (given, directory) if w}
        tombs = self.tombstones()
        found = (
            [t for t in tombs if t.kind == "workspace" and t.value in folders]
            or [t for t in tombs if t.kind == "session" and t.value == given]
            or [
                t
                for t in tombs
                if t.kind == "session"
                and len(given) >= MIN_UNDO_PREFIX
                and t.value.startswith(given)
            ]
        )
        if not found:
            raise NotIndexed(f"nothing forgotten matches {given!r} (deja forget --list)")
        if len(found) > 1:
            raise NotIndexed(f"{given!r} matches more than one forgotten session; give more of it")
        (tomb,) = found
        with self.writer(), self.transaction() as db:
            db.execute(
                "DELETE FROM tombstones WHERE kind = ? AND value = ?", (tomb.kind, tomb.value)
            )
            if tomb.kind == "workspace":
                # Re-derived by the next pass for the workspaces that stay forgotten.
                db.execute("DELETE FROM tombstones WHERE kind = ?", (_SWEPT,))
        return tomb

    # Passes ---------------------------------------------------------------------------------

    def refresh(
        self,
        *,
        rebuild: bool = False,
        progress: Progress | None = None,
        only: set[str] | None = None,
        accept_empty: bool = False,
    ) -> PassReport:
        """One pass: read what changed (everything with `rebuild`), keep what compaction took.
        A store folder that is missing or unreadable, or that lists no session file while the
        index holds live sessions (unless `accept_empty`), is not applied: the report says why
        in `refused` and the index is left as it was."""
        started = time.perf_counter()
        cap = settings.max_session_bytes()
        redact = settings.redact_secrets()
        report = PassReport()
        files, scan_notes = scan_session_files(self.root)
        report.notes.extend(scan_notes)
        with self.writer():
            known = {
                row[0]: (row[1], row[2], row[3])
                for row in self.db.execute("SELECT id, size, mtime_ns, deleted FROM sessions")
            }
            live = sum(1 for state in known.values() if state[2] == 0)
            report.refused = self._refusal(files, scan_notes, live, accept_empty)
            if report.refused is not None:
                report.seconds = time.perf_counter() - started
                return report
            self._judge_unreadable_under(cap)
            dead_ids, dead_workspaces = self._tombstones()
            exclude = self._apply_exclude_list(report)
            skipped = {
                row[0]: (row[1], row[2])
                for row in self.db.execute("SELECT id, size, mtime_ns FROM excluded")
            }
            broken = {
                row[0]: (row[1], row[2], Diagnostic(row[3], row[4]))
                for row in self.db.execute(
                    "SELECT id, size, mtime_ns, path, message FROM unreadable"
                )
            }
            changed: list[SessionFile] = []
            present: set[str] = set()
            for file in files or ():
                if file.id in dead_ids:
                    continue
                present.add(file.id)
                if only is not None and file.id not in only:
                    continue
                stat = (file.size, file.mtime_ns)
                if not rebuild and known.get(file.id) == (*stat, 0):
                    continue
                if skipped.get(file.id) == stat:
                    continue
                known_broken = broken.get(file.id)
                if not rebuild and known_broken and known_broken[:2] == stat:
                    report.errors.append(known_broken[2])
                    continue
                changed.append(file)
            report.sessions = len(present)
            todo: list[SessionRef] = []
            if changed:
                # The list is read only when a file must be: its titles and start dates matter
                # to new sessions, and parsing it is most of what a quiet pass would cost.
                entries, list_notes = read_session_list(self.root, max_bytes=cap)
                report.notes.extend(list_notes)
                todo = [
                    SessionRef(f.id, Path(f.path), entries.get(f.id), f.size, f.mtime_ns)
                    for f in changed
                ]
            for done, ref in enumerate(todo, 1):
                read = read_session(ref, redact_secrets=redact, max_bytes=cap)
                self._refresh_one(ref, read, dead_workspaces, exclude, report)
                if progress:
                    progress(done, len(todo))
            gone = [sid for sid, state in known.items() if sid not in present and state[2] == 0]
            if only is not None:
                gone = [sid for sid in gone if sid in only]
            if gone:
                with self.transaction() as db:
                    db.executemany(
                        "UPDATE sessions SET deleted = 1 WHERE id = ?", [(s,) for s in gone]
                    )
                report.deleted = len(gone)
                report.changed_ids.extend(gone)
            if report.changed or report.deleted or rebuild:
                # A quiet pass writes nothing: no write lock, no WAL to checkpoint on close.
                with self.transaction() as db:
                    db.execute(
                        "INSERT OR REPLACE INTO meta VALUES ('last_pass', ?)", (str(time.time()),)
                    )
        report.seconds = time.perf_counter() - started
        return report

    def _refusal(
        self,
        files: list[SessionFile] | None,
        scan_notes: list[Diagnostic],
        live: int,
        accept_empty: bool,
    ) -> StoreRefusal | None:
        folder = self.root / "sessions"
        kept = "not applied"
        if live:
            kept += f": the index keeps its {live} session{'s' * (live != 1)} as they were"
        if files is None:
            try:
                os.lstat(folder)
            except FileNotFoundError:
                return StoreRefusal(
                    "missing",
                    f"there is no Continue session store at {folder}; {kept} (set "
                    "DEJA_CONTINUE_ROOT or CONTINUE_GLOBAL_DIR to where Continue keeps it)",
                )
            except OSError:
                pass
            reason = scan_notes[0].message if scan_notes else "not a folder"
            return StoreRefusal(
                "unreadable", f"cannot list Continue's session store {folder} ({reason}); {kept}"
            )
        if not files and live >= EMPTIED_STORE_SESSIONS and not accept_empty:
            # An unmounted or half-synced home looks exactly like this.
            return StoreRefusal(
                "empty",
                f"Continue's session store {folder} holds no session file; {kept}. If every "
                "session really is gone, `deja index --accept-empty` marks them deleted",
            )
        return None

    def _judge_unreadable_under(self, cap: int) -> None:
        """Files are remembered as unreadable under the size cap then in force: under another
        cap (raised to read a big file), each is tried again."""
        row = self.db.execute("SELECT value FROM meta WHERE key = 'max_session_bytes'").fetchone()
        if row is not None and row[0] == str(cap):
            return
        with self.transaction() as db:
            db.execute("DELETE FROM unreadable")
            db.execute("INSERT OR REPLACE INTO meta VALUES ('max_session_bytes', ?)", (str(cap),))

    def _apply_exclude_list(self, report: PassReport) -> ExcludeList:
        """When the exclude list changed, drop what it now excludes and forget what it skipped
        (so a workspace taken off the list comes back)."""
        exclude = load_exclude_list(self.exclude_path)
        row = self.db.execute("SELECT value FROM meta WHERE key = 'exclude'").fetchone()
        if row is not None and row[0] == exclude.fingerprint:
            return exclude
        with self.transaction() as db:
            db.execute("DELETE FROM excluded")
            for session_id, workspace, size, mtime_ns in db.execute(
                "SELECT id, workspace, size, mtime_ns FROM sessions"
            ).fetchall():
                if exclude.excludes(workspace):
                    forget_session(db, session_id)
                    db.execute("INSERT INTO excluded VALUES (?,?,?)", (session_id, size, mtime_ns))
                    report.changed_ids.append(session_id)
            db.execute("INSERT OR REPLACE INTO meta VALUES ('exclude', ?)", (exclude.fingerprint,))
        return exclude

    def _refresh_one(
        self,
        ref: SessionRef,
        read: SessionRead,
        dead_workspaces: list[str],
        exclude: ExcludeList,
        report: PassReport,
    ) -> None:
        report.read += 1
        if read.session is None:
            report.errors.extend(read.diagnostics)
            if read.diagnostics and time.time_ns() - ref.mtime_ns >= RACY_WINDOW_NS:
                # Not being written right now: leave it alone until the file changes.
                with self.transaction() as db:
                    db.execute(
                        "INSERT OR REPLACE INTO unreadable VALUES (?,?,?,?,?)",
                        (
                            ref.id,
                            ref.size,
                            ref.mtime_ns,
                            read.diagnostics[0].path,
                            read.diagnostics[0].message,
                        ),
                    )
            return
        report.notes.extend(read.diagnostics)
        session = read.session
        if any(workspace_contains(dead, session.workspace) for dead in dead_workspaces):
            with self.transaction() as db:
                db.execute(
                    "INSERT OR REPLACE INTO tombstones VALUES (?, ?, ?)",
                    (_SWEPT, session.id, time.time()),
                )
            return
        if exclude.excludes(session.workspace):
            with self.transaction() as db:
                forget_session(db, session.id)
                db.execute(
                    "INSERT OR REPLACE INTO excluded VALUES (?,?,?)",
                    (session.id, session.size, session.mtime_ns),
                )
            return
        with self.transaction() as db:
            db.execute("DELETE FROM unreadable WHERE id = ?", (session.id,))
            kept = ingest_session(db, session)
            if time.time_ns() - session.mtime_ns < RACY_WINDOW_NS:
                # Written just now: a second write in the same mtime tick with the same size
                # would look unchanged, so the next pass reads it again.
                db.execute("UPDATE sessions SET mtime_ns = -1 WHERE id = ?", (session.id,))
        if kept is not None:
            report.kept += kept
            report.changed += 1
            report.changed_ids.append(session.id)


def _copy_common(db: sqlite3.Connection, table: str, where: str) -> None:
    """Copy the columns both schemas share, so an upgrade survives added or dropped columns."""
    new_cols = [row[1] for row in db.execute(f"PRAGMA main.table_info({table})")]
    old_cols = {row[1] for row in db.execute(f"PRAGMA old.table_info({table})")}
    cols = ", ".join(col for col in new_cols if col in old_cols)
    if cols:
        db.execute(
            f"INSERT OR IGNORE INTO main.{table} ({cols}) SELECT {cols} FROM old.{table}"
            f" WHERE {where}"
        )
