"""A pass: re-read only sessions whose file changed, commit them whole, many per transaction
(`batch.py`), mark the ones gone from the store deleted, and keep what compaction took away."""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable
from contextlib import closing
from dataclasses import astuple
from pathlib import Path
from typing import TYPE_CHECKING

from deja import settings
from deja.continue_store import ListEntry, SessionRef
from deja.continue_store.listing import SessionFile, scan_session_files, stat_session_files
from deja.continue_store.parse import is_safe_file_id
from deja.continue_store.store import read_session_list
from deja.continue_store.workspace import workspace_contains
from deja.in_slices import in_slices
from deja.semantic import passes as vectors

from .batch import CommitBatch
from .bulk import large_pass
from .exclude import ExcludeList, load_exclude_list
from .forks import forks_derived, link_forks
from .ingest import forget_session, ingest_session
from .insert_rows import PreparedRead
from .pass_report import PassReport
from .plan import Known, forgotten, listing_of, plan_pass, recorded_listing
from .reader_pool import read_all, refuse_in_starting_worker, workers_for
from .refusal import store_refusal
from .store_stamp import RACY_WINDOW_NS, Scan, listing_time, stamp_text, unvouch
from .store_stamp import context as stamp_context
from .store_stamp import record as record_stamp
from .store_stamp import recorded as recorded_stamp
from .store_stamp import scan as stamp_scan
from .tombstones import SWEPT, bury

if TYPE_CHECKING:
    from .core import Index

Progress = Callable[[int, int], None]
_REMEMBER_UNREADABLE = "INSERT OR REPLACE INTO unreadable VALUES (?,?,?,?,?)"


def run_pass(
    index: Index,
    *,
    rebuild: bool,
    progress: Progress | None,
    only: set[str] | None,
    accept_empty: bool,
    wait: bool = True,
) -> PassReport:
    """`Index.refresh`: one pass under the writer lock."""
    refuse_in_starting_worker()
    started = time.perf_counter()
    cap = settings.max_session_bytes()
    redact = settings.redact_secrets()
    report = PassReport()
    # A whole pass lists the store as the stamp does (and records it); a partial one, the
    # watcher's, lists as the watcher does.
    listing = stamp_scan(index.root, listing_time()) if only is None else None
    context = "" if listing is None else stamp_context(index.root, index.exclude_path)
    with index.writer(wait=wait):
        listed, vouched, known = _to_plan(
            index, listing, context, rebuild, accept_empty, report, only
        )
        if report.refused is not None:
            report.seconds = time.perf_counter() - started
            return report
        _judge_unreadable_under(index, cap)
        embed = vectors.prepare(index.db, index.transaction)
        dead_ids, dead_workspaces = forgotten(index.db)
        exclude = _apply_exclude_list(index, report)
        plan = plan_pass(
            index.db,
            listed,
            _folder(index),
            dead_ids,
            vouched=vouched,
            known=known,
            only=only,
            rebuild=rebuild,
        )
        report.sessions = plan.sessions
        report.errors.extend(plan.errors)
        report.notes.extend(plan.notes)
        todo: list[SessionRef] = []
        if plan.changed:
            # The list is read only when a file must be: its titles and start dates matter
            # to new sessions, and parsing it is most of what a quiet pass would cost.
            wanted = {f.id for f in plan.changed}
            entries, list_notes = read_session_list(index.root, max_bytes=cap, only=wanted)
            report.notes.extend(list_notes)
            todo = _newest_first(plan.changed, entries)
        batch = CommitBatch(index.db)
        if todo or plan.gone:
            # First: a crash part way leaves no stamp vouching for what it changed.
            batch.write(lambda db: unvouch(db, only))
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
        _mark_gone(index, plan.gone, report)
        if report.changed_ids or not forks_derived(index.db):
            with index.transaction() as db:
                moved = link_forks(db, report.changed_ids)
            report.changed_ids.extend(sid for sid in moved if sid not in report.changed_ids)
        stamp = None
        if listing is not None and not plan.notes:  # nothing odd listed
            stamp = stamp_text(context, listing)
        _record_pass(index, report, stamp, rebuild=rebuild, whole=only is None)
    report.seconds = time.perf_counter() - started
    return report


def _newest_first(files: list[SessionFile], entries: dict[str, ListEntry]) -> list[SessionRef]:
    """The session in use first: it is the one written last, and a first index of a large
    store must not leave it for the end."""
    newest_first = sorted(files, key=lambda f: f.mtime_ns, reverse=True)
    return [
        SessionRef(f.id, Path(f.path), entries.get(f.id), f.size, f.mtime_ns) for f in newest_first
    ]


def _record_pass(
    index: Index, report: PassReport, stamp: str | None, *, rebuild: bool, whole: bool
) -> None:
    if rebuild:  # every turn a rebuild kept from compaction, not only those new to this pass
        report.kept = int(
            index.db.execute("SELECT sum(kept_items) FROM sessions").fetchone()[0] or 0
        )
    restamp = whole and stamp != recorded_stamp(index.db)
    if report.changed or report.deleted or rebuild or restamp:
        # A quiet pass writes nothing: no write lock, no WAL to checkpoint on close.
        with index.transaction() as db:
            db.execute("INSERT OR REPLACE INTO meta VALUES ('last_pass', ?)", (str(time.time()),))
            if whole:
                record_stamp(db, stamp)


def _folder(index: Index) -> str:
    return os.path.join(index.root, "sessions")


def _to_plan(
    index: Index,
    listing: Scan | None,
    context: str,
    rebuild: bool,
    accept_empty: bool,
    report: PassReport,
    only: set[str] | None,
) -> tuple[Scan, str, Known | None]:
    """The listing to plan, the listing the recorded stamp vouches for ("": none) and, with no
    stamp to go by, every session the index holds (of `only`, for a partial pass)."""
    if listing is not None and listing.fields and not rebuild:
        vouched = recorded_listing(index.db, context)
        if vouched is not None:
            return listing, vouched, None
    if listing is None and only is not None:
        partial = _partial_listing(index, only, report)
        if partial is not None:
            return partial[0], "", partial[1]
    listed, known = _full_listing(index, listing, accept_empty, report)
    return listed, "", known


def _partial_listing(index: Index, only: set[str], report: PassReport) -> tuple[Scan, Known] | None:
    """A partial pass's files alone (the watcher's, `deja capture`'s), so a turn written costs
    the same in a store of any size; None when one of them is gone: a deletion is judged
    against the whole listing, where an emptied or missing store is refused."""
    found, notes, missing = stat_session_files(index.root, only)
    if missing:
        return None
    report.notes.extend(notes)
    known: Known = {}
    for marks, ids in in_slices(sorted(only)):
        rows = index.db.execute(
            f"SELECT id, size, mtime_ns, deleted FROM sessions WHERE id IN ({marks})", ids
        )
        known.update((row[0], (row[1], row[2], row[3])) for row in rows)
    return listing_of(found), known


def _full_listing(
    index: Index, listing: Scan | None, accept_empty: bool, report: PassReport
) -> tuple[Scan, Known]:
    """The listing (empty: no folder) and every session the index holds, with no stamp to go
    by; sets `report.refused` when the listing must not be applied (always when there is no
    folder). A partial pass lists as the watcher does (what is odd in the folder noted here)."""
    files: int | None
    if listing is None:
        found, scan_notes = scan_session_files(index.root)
        report.notes.extend(scan_notes)
        listing = listing_of(found or [])
        files = None if found is None else len(found)
    else:  # odd names are the plan's notes
        scan_notes = []
        files = sum(1 for entry in listing.fields if is_safe_file_id(entry.rsplit(" ", 2)[0]))
    known: Known = {
        row[0]: (row[1], row[2], row[3])
        for row in index.db.execute("SELECT id, size, mtime_ns, deleted FROM sessions")
    }
    live = sum(1 for state in known.values() if state[2] == 0)
    report.refused = store_refusal(index.root, files, scan_notes, live, accept_empty)
    return listing, known


def _mark_gone(index: Index, gone: list[str], report: PassReport) -> None:
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
                report.changed += 1  # removed from the index: a change the report counts
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
