"""What a whole pass must do, told from the stamp the last whole pass recorded.

The stamp (`store_stamp.py`) vouches for every file it lists: a file whose `id size mtime_ns`
is in it gets the verdict that pass gave it (indexed, excluded, forgotten, or known unreadable
and reported again), since everything else that writes the index clears the stamp or drops the
files it wrote from it (forget, undo, a partial pass, the first write of a pass). So a pass over
a listing made under the same context looks up only the files the stamp does not vouch for,
the files it knows unreadable, and the ids that left the listing: a pass over an unchanged store
costs its listing and a few queries, one rewritten file the listing and that file. The verdicts
are the pass's own (`refresh._changed_files`, which the full path runs; `tests/test_stamp_plan.py`
compares the two)."""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass, field

from deja.continue_store import Diagnostic
from deja.continue_store.parse import is_safe_file_id
from deja.continue_store.store import NOT_A_SESSION_ID, SessionFile

from . import store_stamp
from .quiet import dead_listed, held_as, known_errors, unreadable
from .store_stamp import Scan


@dataclass(slots=True)
class Plan:
    """A pass's work for one listing: the files to read, how many sessions the store holds (its
    files but the forgotten), the live sessions whose file is gone, the files known unreadable
    (reported again, in listing order) and what is odd in the listing."""

    changed: list[SessionFile] = field(default_factory=list)
    sessions: int = 0
    gone: list[str] = field(default_factory=list)
    errors: list[Diagnostic] = field(default_factory=list)
    notes: list[Diagnostic] = field(default_factory=list)


def recorded_listing(db: sqlite3.Connection, context: str) -> str | None:
    """The listing part of the recorded stamp, when it was recorded under `context`."""
    known = store_stamp.recorded(db)
    if known is None:
        return None
    head, _, listing = known.partition("\n")
    return listing if head == context else None


def files_of(listing: Scan, folder: str) -> tuple[list[SessionFile], list[Diagnostic]]:
    """The listing as `scan_session_files` gives it (the full path, with no stamp to go by)."""
    files: list[SessionFile] = []
    notes: list[Diagnostic] = []
    for entry in listing.fields:
        session_id, size, mtime_ns = entry.rsplit(" ", 2)
        path = os.path.join(folder, session_id + ".json")
        if is_safe_file_id(session_id):
            files.append(SessionFile(session_id, path, int(size), int(mtime_ns)))
        else:
            notes.append(Diagnostic(path, NOT_A_SESSION_ID))
    return files, notes


def plan_since(
    db: sqlite3.Connection, listing: Scan, recorded: str, folder: str, dead_ids: set[str]
) -> Plan:
    """The plan for `listing`, given the `recorded` listing the stamp vouches for."""
    fields = listing.fields
    plan = Plan()
    if not listing.fresh and "/".join(fields) == recorded:  # the store as the stamp saw it
        plan.errors = known_errors(db, fields, dead_ids)
        plan.sessions = len(fields) - dead_listed(fields, dead_ids)
        return plan
    broken = unreadable(db)
    vouched = set(recorded.split("/")) if recorded else set()
    fresh = {fields[at] for at in listing.fresh}
    judged: set[str] = set()
    unsafe = 0
    for entry in fields:
        if entry in vouched and entry not in broken and entry not in fresh:
            continue
        session_id = _judge(db, entry, folder, dead_ids, broken, plan)
        if session_id is None:
            unsafe += 1
        else:
            judged.add(session_id)
    for entry in vouched.difference(fields):
        session_id = entry.rsplit(" ", 2)[0]
        if session_id not in judged and _live(db, session_id):
            plan.gone.append(session_id)
    plan.sessions = len(fields) - unsafe - dead_listed(fields, dead_ids)
    return plan


def _judge(
    db: sqlite3.Connection,
    entry: str,
    folder: str,
    dead_ids: set[str],
    broken: dict[str, Diagnostic],
    plan: Plan,
) -> str | None:
    """One file's verdict, as `refresh._changed_files` gives it; its id (None: not a session
    file's name, noted)."""
    session_id, size, mtime_ns = entry.rsplit(" ", 2)
    path = os.path.join(folder, session_id + ".json")
    if not is_safe_file_id(session_id):
        plan.notes.append(Diagnostic(path, NOT_A_SESSION_ID))
        return None
    if session_id in dead_ids or held_as(db, session_id, int(size), int(mtime_ns)):
        return session_id
    known_broken = broken.get(entry)
    if known_broken is not None:
        plan.errors.append(known_broken)
    else:
        plan.changed.append(SessionFile(session_id, path, int(size), int(mtime_ns)))
    return session_id


def _live(db: sqlite3.Connection, session_id: str) -> bool:
    row = db.execute("SELECT 1 FROM sessions WHERE id = ? AND deleted = 0", (session_id,))
    return row.fetchone() is not None
