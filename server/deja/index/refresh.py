"""A pass: re-read only sessions whose file changed, commit them whole, many per transaction
(`batch.py`), mark the ones gone from the store deleted, and keep what compaction took away."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from contextlib import closing
from dataclasses import astuple, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from deja import settings
from deja.continue_store import Diagnostic, SessionRef
from deja.continue_store.store import SessionFile, read_session_list, scan_session_files
from deja.continue_store.workspace import workspace_contains
from deja.semantic import passes as vectors

from .batch import CommitBatch
from .bulk import large_pass
from .exclude import ExcludeList, load_exclude_list
from .forks import forks_derived, link_forks
from .ingest import forget_session, ingest_session
from .reader_pool import read_all, workers_for
from .refusal import StoreRefusal, store_refusal
from .rows import PreparedRead
from .store_stamp import RACY_WINDOW_NS, listing_time, stamp_of
from .store_stamp import record as record_stamp
from .store_stamp import recorded as recorded_stamp
from .tombstones import SWEPT, bury, forgotten

if TYPE_CHECKING:
    from .core import Index

Progress = Callable[[int, int], None]
# A session's size, mtime and deleted flag as the index holds them.
Known = dict[str, tuple[int, int, int]]
_REMEMBER_UNREADABLE = "INSERT OR REPLACE INTO unreadable VALUES (?,?,?,?,?)"


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


def run_pass(
    index: Index,
    *,
    rebuild: bool,
    progress: Progress | None,
    only: set[str] | None,
    accept_empty: bool,
) -> PassReport:
    """`Index.refresh`: one pass under the writer lock."""
    started = time.perf_counter()
    cap = settings.max_session_bytes()
    redact = settings.redact_secrets()
    report = PassReport()
    listed_at = listing_time()
    files, scan_notes = scan_session_files(index.root)
    report.notes.extend(scan_notes)
    with index.writer():
        known: Known = {
            row[0]: (row[1], row[2], row[3])
            for row in index.db.execute("SELECT id, size, mtime_ns, deleted FROM sessions")
        }
        live = sum(1 for state in known.values() if state[2] == 0)
        report.refused = store_refusal(index.root, files, scan_notes, live, accept_empty)
        if report.refused is not None:
            report.seconds = time.perf_counter() - started
            return report
        _judge_unreadable_under(index, cap)
        embed = vectors.prepare(index.db, index.transaction)
        dead_ids, dead_workspaces = forgotten(index.db)
        exclude = _apply_exclude_list(index, report)
        changed, present = _changed_files(index, files, known, dead_ids, only, rebuild, report)
        report.sessions = len(present)
        todo: list[SessionRef] = []
        if changed:
            # The list is read only when a file must be: its titles and start dates matter
            # to new sessions, and parsing it is most of what a quiet pass would cost.
            entries, list_notes = read_session_list(index.root, max_bytes=cap)
            report.notes.extend(list_notes)
            todo = [
                SessionRef(f.id, Path(f.path), entries.get(f.id), f.size, f.mtime_ns)
                for f in changed
            ]
        batch = CommitBatch(index.db)
        with large_pass(index.db, todo):
            try:
                workers = workers_for(todo)
                reads = read_all(todo, redact_secrets=redact, max_bytes=cap, workers=workers)
                with closing(reads):  # a failed write stops the worker too
                    for done, (ref, read) in enumerate(zip(todo, reads, strict=True), 1):
                        _refresh_one(
                            batch, ref, read, dead_workspaces, exclude, report, embed=embed
                        )
                        if progress:
                            progress(done, len(todo))
            finally:
                batch.commit()  # only whole sessions are pending (a cancelled pass keeps them)
        _mark_gone(index, known, present, only, report)
        if report.changed_ids or not forks_derived(index.db):
            with index.transaction() as db:
                moved = link_forks(db, report.changed_ids)
            report.changed_ids.extend(sid for sid in moved if sid not in report.changed_ids)
        stamp = _stamp(index, files, scan_notes, only, listed_at)
        restamp = only is None and stamp != recorded_stamp(index.db)
        if report.changed or report.deleted or rebuild or restamp:
            # A quiet pass writes nothing: no write lock, no WAL to checkpoint on close.
            with index.transaction() as db:
                db.execute(
                    "INSERT OR REPLACE INTO meta VALUES ('last_pass', ?)", (str(time.time()),)
                )
                if only is None:
                    record_stamp(db, stamp)
    report.seconds = time.perf_counter() - started
    return report


def _stamp(
    index: Index,
    files: list[SessionFile] | None,
    scan_notes: list[Diagnostic],
    only: set[str] | None,
    listed_at: int,
) -> str | None:
    """The listing's stamp when the pass saw the whole store and nothing odd in it."""
    if files is None or only is not None or scan_notes:
        return None
    listing = ((f.id, f.size, f.mtime_ns) for f in files)
    return stamp_of(index.root, index.exclude_path, listing, listed_at)


def _changed_files(
    index: Index,
    files: list[SessionFile] | None,
    known: Known,
    dead_ids: set[str],
    only: set[str] | None,
    rebuild: bool,
    report: PassReport,
) -> tuple[list[SessionFile], set[str]]:
    """The files to read this pass, and the ids of every session the store holds."""
    skipped = {
        row[0]: (row[1], row[2])
        for row in index.db.execute("SELECT id, size, mtime_ns FROM excluded")
    }
    broken = {
        row[0]: (row[1], row[2], Diagnostic(row[3], row[4]))
        for row in index.db.execute("SELECT id, size, mtime_ns, path, message FROM unreadable")
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
    return changed, present


def _mark_gone(
    index: Index, known: Known, present: set[str], only: set[str] | None, report: PassReport
) -> None:
    gone = [sid for sid, state in known.items() if sid not in present and state[2] == 0]
    if only is not None:
        gone = [sid for sid in gone if sid in only]
    if gone:
        with index.transaction() as db:
            db.executemany("UPDATE sessions SET deleted = 1 WHERE id = ?", [(s,) for s in gone])
        report.deleted = len(gone)
        report.changed_ids.extend(gone)


def _judge_unreadable_under(index: Index, cap: int) -> None:
    """Files are remembered as unreadable under the size cap then in force: under another
    cap (raised to read a big file), each is tried again."""
    row = index.db.execute("SELECT value FROM meta WHERE key = 'max_session_bytes'").fetchone()
    if row is not None and row[0] == str(cap):
        return
    with index.transaction() as db:
        db.execute("DELETE FROM unreadable")
        db.execute("INSERT OR REPLACE INTO meta VALUES ('max_session_bytes', ?)", (str(cap),))


def _apply_exclude_list(index: Index, report: PassReport) -> ExcludeList:
    """When the exclude list changed, drop what it now excludes and forget what it skipped
    (so a workspace taken off the list comes back)."""
    exclude = load_exclude_list(index.exclude_path)
    row = index.db.execute("SELECT value FROM meta WHERE key = 'exclude'").fetchone()
    if row is not None and row[0] == exclude.fingerprint:
        return exclude
    with index.transaction() as db:
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
    batch: CommitBatch,
    ref: SessionRef,
    prepared: PreparedRead,
    dead_workspaces: list[str],
    exclude: ExcludeList,
    report: PassReport,
    *,
    embed: bool,
) -> None:
    report.read += 1
    read = prepared.read
    if read.session is None:
        report.errors.extend(read.diagnostics)
        if read.diagnostics and time.time_ns() - ref.mtime_ns >= RACY_WINDOW_NS:
            # Not being written right now: leave it alone until the file changes.
            unreadable = (ref.id, ref.size, ref.mtime_ns, *astuple(read.diagnostics[0]))
            batch.write(lambda db: db.execute(_REMEMBER_UNREADABLE, unreadable))
        return
    report.notes.extend(read.diagnostics)
    session = read.session
    if any(workspace_contains(dead, session.workspace) for dead in dead_workspaces):
        batch.write(lambda db: bury(db, SWEPT, session.id))
        return
    if exclude.excludes(session.workspace):

        def keep_out(db: sqlite3.Connection) -> None:
            forget_session(db, session.id)
            db.execute(
                "INSERT OR REPLACE INTO excluded VALUES (?,?,?)",
                (session.id, session.size, session.mtime_ns),
            )

        batch.write(keep_out)
        return
    # Written just now: a second write in the same mtime tick with the same size would look
    # unchanged, so the next pass reads it again. (Decided once: a batch may write it twice.)
    racy = time.time_ns() - session.mtime_ns < RACY_WINDOW_NS

    def ingest(db: sqlite3.Connection) -> int | None:
        db.execute("DELETE FROM unreadable WHERE id = ?", (session.id,))
        kept = ingest_session(db, session, prepared.rows)
        if kept is not None:
            vectors.after_ingest(db, session.id, embed)
        if racy:
            db.execute("UPDATE sessions SET mtime_ns = -1 WHERE id = ?", (session.id,))
        return kept

    kept = batch.write(ingest)
    if kept is not None:
        report.kept += kept
        report.changed += 1
        report.changed_ids.append(session.id)
