"""A pass over a store exactly as the last whole pass saw it, reported without running it.

Such a pass reads nothing and writes nothing: its report is the store's session count (its files
but the forgotten) and the files it knows unreadable, said again. `quiet_report` tells both from
the index under the stamp's own test (`store_stamp.py`) without the writer lock, the reader or
the pass loaded: what `deja index` costs over an unchanged store (`tests/test_quiet_index.py`
compares it with the pass's report). `refresh.run_pass` itself, given such a store, reports the
same through `known_errors` and `dead_listed` (`stamp_plan.py`)."""

from __future__ import annotations

import sqlite3
import time
from typing import TYPE_CHECKING

from deja import semantic

from . import store_stamp
from .forks import forks_derived
from .pass_report import PassReport

if TYPE_CHECKING:
    from deja.continue_store.records import Diagnostic

    from .core import Index


def quiet_report(index: Index) -> PassReport | None:
    """The report of a pass that would find nothing to do; None when it would (let it run)."""
    started = time.perf_counter()
    listing = store_stamp.scan(index.root, store_stamp.listing_time())
    if listing is None or listing.fresh or not listing.fields:
        return None
    stamp = store_stamp.stamp_text(store_stamp.context(index.root, index.exclude_path), listing)
    db = index.db
    db.execute("BEGIN")  # the stamp and what it vouches for, read from one snapshot
    try:
        if store_stamp.recorded(db) != stamp or not _nothing_else_to_do(db):
            return None
        dead = forgotten_sessions(db)
        report = PassReport(
            sessions=len(listing.fields) - dead_listed(listing.fields, dead),
            errors=known_errors(db, listing.fields, dead),
        )
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


def forgotten_sessions(db: sqlite3.Connection) -> set[str]:
    """The session ids a pass leaves out, as `tombstones.forgotten` gives them (that module
    loads the ingest)."""
    return {
        value
        for kind, value in db.execute("SELECT kind, value FROM tombstones")
        if kind != "workspace"
    }


def dead_listed(fields: list[str], dead_ids: set[str]) -> int:
    """How many listed files belong to forgotten sessions (a pass leaves them out)."""
    if not dead_ids:
        return 0
    return len(dead_ids.intersection(entry.rsplit(" ", 2)[0] for entry in fields))


def known_errors(db: sqlite3.Connection, fields: list[str], dead_ids: set[str]) -> list[Diagnostic]:
    """The listed files a pass reports unreadable without reading them, in listing order: those
    the index remembers unreadable at the size and mtime listed (unless forgotten, indexed or
    excluded at that size and mtime: the pass's order of verdicts)."""
    broken = unreadable(db)
    errors: list[Diagnostic] = []
    for entry in [entry for entry in fields if entry in broken] if broken else ():
        session_id, size, mtime_ns = entry.rsplit(" ", 2)
        if session_id not in dead_ids and held_as(db, session_id, int(size), int(mtime_ns)) is None:
            errors.append(broken[entry])
    return errors


def unreadable(db: sqlite3.Connection) -> dict[str, Diagnostic]:
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


def held_as(db: sqlite3.Connection, session_id: str, size: int, mtime_ns: int) -> str | None:
    """Whether the index holds this file at this size and mtime: "indexed", "excluded", None."""
    held = db.execute(
        "SELECT size, mtime_ns, deleted FROM sessions WHERE id = ?", (session_id,)
    ).fetchone()
    if held == (size, mtime_ns, 0):
        return "indexed"
    skipped = db.execute(
        "SELECT size, mtime_ns FROM excluded WHERE id = ?", (session_id,)
    ).fetchone()
    return "excluded" if skipped == (size, mtime_ns) else None
