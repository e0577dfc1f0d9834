"""Which files a pass reads: the one planner, whose empty plan is the quiet report.

Each listed file (`id size mtime_ns`, as the stamp lists it) gets a verdict: forgotten (left
out), held as listed (indexed, or kept out by the exclude list), known unreadable at that size
and mtime (reported again, not read), or to read; a live session whose file left the listing is
gone. The stamp the last whole pass recorded (`store_stamp.py`) vouches for the verdicts of the
files it lists, since everything else that writes the index clears it or drops the files it
wrote from it: only the files it does not vouch for, those known unreadable and the ids that
left the listing are looked up, one query each. Without a stamp (the first pass, a rebuild, a
partial pass, a forget) every file is judged against the whole `sessions` table, read once.

`quiet_report` is a pass told without running it: when the plan for the store as it is now is
empty (and no vectors or forks wait), its sessions and errors are the report. It runs without
the writer lock, the reader or the ingest loaded: what `deja index` costs over an unchanged
store."""

from __future__ import annotations

import os
import sqlite3
import time

from deja import semantic
from deja.plain_record import Plain

from . import store_stamp
from .forks import forks_derived
from .pass_report import PassReport
from .store_stamp import Scan

TYPE_CHECKING = False  # not `typing`'s: start-up (tests/cli/test_cli_startup.py)
if TYPE_CHECKING:
    from deja.continue_store.listing import SessionFile
    from deja.continue_store.records import Diagnostic

    from .core import Index

# A session's size, mtime and deleted flag as the index holds them, by id.
Known = dict[str, tuple[int, int, int]]


class Plan(Plain):
    """A pass's work for one listing: the files to read, how many sessions the store holds (its
    files but the forgotten), the live sessions whose file is gone, the files known unreadable
    (reported again, in listing order) and what is odd in the listing. Not a dataclass: a quiet
    `deja index` makes one, and `dataclasses` is not on its path (plain_record.py)."""

    __slots__ = ("changed", "errors", "gone", "notes", "sessions")

    def __init__(
        self,
        changed: list[SessionFile] | None = None,
        sessions: int = 0,
        gone: list[str] | None = None,
        errors: list[Diagnostic] | None = None,
        notes: list[Diagnostic] | None = None,
    ) -> None:
        self.changed: list[SessionFile] = [] if changed is None else changed
        self.sessions = sessions
        self.gone: list[str] = [] if gone is None else gone
        self.errors: list[Diagnostic] = [] if errors is None else errors
        self.notes: list[Diagnostic] = [] if notes is None else notes

    @property
    def empty(self) -> bool:
        """Nothing to read, mark or say: the pass would write nothing."""
        return not (self.changed or self.gone or self.notes)


def forgotten(db: sqlite3.Connection) -> tuple[set[str], list[str]]:
    """The session ids and the workspaces a pass leaves out (`tombstones.py` writes them)."""
    sessions: set[str] = set()
    workspaces: list[str] = []
    for kind, value in db.execute("SELECT kind, value FROM tombstones"):
        if kind == "workspace":
            workspaces.append(value)
        else:
            sessions.add(value)
    return sessions, workspaces


def recorded_listing(db: sqlite3.Connection, context: str) -> str | None:
    """The listing part of the recorded stamp, when it was recorded under `context`."""
    known = store_stamp.recorded(db)
    if known is None:
        return None
    head, _, listing = known.partition("\n")
    return listing if head == context else None


def listing_of(files: list[SessionFile]) -> Scan:
    """A listing made by `scan_session_files` (a partial pass, an odd entry), as the stamp's."""
    return Scan([f"{f.id} {f.size} {f.mtime_ns}" for f in files], [])


def plan_pass(
    db: sqlite3.Connection,
    listing: Scan,
    folder: str,
    dead_ids: set[str],
    *,
    vouched: str = "",
    known: Known | None = None,
    only: set[str] | None = None,
    rebuild: bool = False,
) -> Plan:
    """The plan for `listing` (of `folder`). `vouched`: the listing the recorded stamp vouches
    for; `known`: every session the index holds, when read (the full path: gone is judged
    against it); `only`: the ids a partial pass reads; `rebuild`: read every file held."""
    fields = listing.fields
    if not listing.fresh and vouched and "/".join(fields) == vouched:
        # The store as the stamp saw it: only the files known unreadable are told again.
        return Plan(
            sessions=len(fields) - _dead_listed(fields, dead_ids),
            errors=_known_errors(db, fields, dead_ids),
        )
    judge = _Judge(db, folder, dead_ids, known, rebuild)
    listed_then = set(vouched.split("/")) if vouched else set()
    trusted = listed_then.difference(judge.broken, (fields[at] for at in listing.fresh))
    kept: list[str] = []  # the entries whose verdict stands
    present: set[str] = set()  # the sessions judged here
    for entry in fields:
        if entry in trusted:
            kept.append(entry)
        elif (session_id := judge.entry(entry, only)) is not None:
            present.add(session_id)
    plan = judge.plan
    plan.sessions = len(kept) - _dead_listed(kept, dead_ids) + len(present)
    if known is not None:
        plan.gone = [sid for sid, state in known.items() if sid not in present and state[2] == 0]
    else:
        left = {entry.rsplit(" ", 2)[0] for entry in listed_then.difference(fields)}
        plan.gone = [sid for sid in sorted(left - present) if judge.live(sid)]
    if only is not None:
        plan.gone = [sid for sid in plan.gone if sid in only]
    return plan


class _Judge:
    """One file's verdict at a time, into `plan`. What the index holds of a file is looked up
    one query each, or, when `known` was read (the full path), from it and from the excluded
    files read at once."""

    def __init__(
        self,
        db: sqlite3.Connection,
        folder: str,
        dead_ids: set[str],
        known: Known | None,
        rebuild: bool,
    ) -> None:
        # Here: the reader's types load only when a file must be judged.
        from deja.continue_store.listing import NOT_A_SESSION_ID, SessionFile
        from deja.continue_store.parse import is_safe_file_id
        from deja.continue_store.records import Diagnostic

        self.db, self.folder, self.dead_ids, self.known = db, folder, dead_ids, known
        self.rebuild = rebuild
        self.file, self.note, self.is_safe = SessionFile, Diagnostic, is_safe_file_id
        self.not_a_session = NOT_A_SESSION_ID
        self.broken = {} if rebuild else _unreadable(db)
        self.skipped: dict[str, tuple[int, int]] | None = None
        if known is not None:
            rows = db.execute("SELECT id, size, mtime_ns FROM excluded")
            self.skipped = {row[0]: (row[1], row[2]) for row in rows}
        self.plan = Plan()

    def entry(self, entry: str, only: set[str] | None) -> str | None:
        """Judge `entry`; its id when it is one of the store's sessions (a safe name, not
        forgotten)."""
        session_id, size, mtime_ns = entry.rsplit(" ", 2)
        path = os.path.join(self.folder, session_id + ".json")
        if not self.is_safe(session_id):
            self.plan.notes.append(self.note(path, self.not_a_session))
            return None
        if session_id in self.dead_ids:
            return None
        if only is not None and session_id not in only:
            return session_id
        held = self.held_as(session_id, int(size), int(mtime_ns))
        if held == "excluded" or (held == "indexed" and not self.rebuild):
            return session_id
        known_broken = self.broken.get(entry)
        if known_broken is not None:
            self.plan.errors.append(known_broken)
        else:
            self.plan.changed.append(self.file(session_id, path, int(size), int(mtime_ns)))
        return session_id

    def held_as(self, session_id: str, size: int, mtime_ns: int) -> str | None:
        """Whether the index holds this file at this size and mtime: "indexed", "excluded"."""
        if self.known is None or self.skipped is None:
            return _held_as(self.db, session_id, size, mtime_ns)
        if self.known.get(session_id) == (size, mtime_ns, 0):
            return "indexed"
        return "excluded" if self.skipped.get(session_id) == (size, mtime_ns) else None

    def live(self, session_id: str) -> bool:
        row = self.db.execute("SELECT 1 FROM sessions WHERE id = ? AND deleted = 0", (session_id,))
        return row.fetchone() is not None


def _dead_listed(fields: list[str], dead_ids: set[str]) -> int:
    """How many listed files belong to forgotten sessions (a pass leaves them out)."""
    if not dead_ids:
        return 0
    return len(dead_ids.intersection(entry.rsplit(" ", 2)[0] for entry in fields))


def _known_errors(
    db: sqlite3.Connection, fields: list[str], dead_ids: set[str]
) -> list[Diagnostic]:
    """The verdicts of the listed files known unreadable, when every other file is vouched for:
    reported again unless forgotten, indexed or excluded at that size and mtime."""
    broken = _unreadable(db)
    errors: list[Diagnostic] = []
    for entry in [entry for entry in fields if entry in broken] if broken else ():
        session_id, size, mtime_ns = entry.rsplit(" ", 2)
        if (
            session_id not in dead_ids
            and _held_as(db, session_id, int(size), int(mtime_ns)) is None
        ):
            errors.append(broken[entry])
    return errors


def _unreadable(db: sqlite3.Connection) -> dict[str, Diagnostic]:
    """The files the index remembers unreadable, by their `id size mtime_ns`."""
    rows = db.execute("SELECT id, size, mtime_ns, path, message FROM unreadable").fetchall()
    if not rows:
        return {}
    # Here: its six dataclasses were a sixth of the imports of `deja index` over a sound store.
    from deja.continue_store.records import Diagnostic

    return {
        f"{session_id} {size} {mtime_ns}": Diagnostic(path, message)
        for session_id, size, mtime_ns, path, message in rows
    }


def _held_as(db: sqlite3.Connection, session_id: str, size: int, mtime_ns: int) -> str | None:
    held = db.execute(
        "SELECT size, mtime_ns, deleted FROM sessions WHERE id = ?", (session_id,)
    ).fetchone()
    if held == (size, mtime_ns, 0):
        return "indexed"
    skipped = db.execute(
        "SELECT size, mtime_ns FROM excluded WHERE id = ?", (session_id,)
    ).fetchone()
    return "excluded" if skipped == (size, mtime_ns) else None


def quiet_report(index: Index) -> PassReport | None:
    """The report of a whole pass that would find nothing to do (an empty plan, no vectors to
    make, no forks to derive); None when it would do something (let it run)."""
    started = time.perf_counter()
    listing = store_stamp.scan(index.root_dir, store_stamp.listing_time())
    if listing is None or listing.fresh or not listing.fields:
        return None  # a pass lists otherwise, records a fresh file, or is refused
    context = store_stamp.context(index.root_dir, index.exclude_path)
    db = index.db
    db.execute("BEGIN")  # the stamp and what it vouches for, read from one snapshot
    try:
        vouched = recorded_listing(db, context)
        if vouched is None or not _nothing_else_to_do(db):
            return None
        folder = os.path.join(index.root_dir, "sessions")
        plan = plan_pass(db, listing, folder, forgotten(db)[0], vouched=vouched)
        if not plan.empty:
            return None
        report = PassReport(sessions=plan.sessions, errors=plan.errors)
    finally:
        db.execute("COMMIT")
    report.seconds = time.perf_counter() - started
    return report


def _nothing_else_to_do(db: sqlite3.Connection) -> bool:
    """What a pass does over an unchanged store: vectors to catch up, forks never derived."""
    if semantic.enabled():
        from deja.semantic.vectors import up_to_date

        if not up_to_date(db):
            return False
    return forks_derived(db)
