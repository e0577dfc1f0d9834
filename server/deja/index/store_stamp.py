"""The store's stamp: whether a pass would find anything to do, told without one.

A pass that saw a listing records its stamp (`meta.store_stamp`): every session file's (id,
size, mtime_ns), in listing order, and what else decides what a pass reads (the schema version,
the store's root, the exclude list's text, the size cap, the redaction switch, whether search by
meaning is on), kept as text rather than hashed (exact, and no hash library to load: ~70 bytes
a session). `unchanged` lists the folder again (`continue_store.listing`, the one listing
the watcher's poll uses too: one stat per file, no file opened, nothing else of the reader
imported) and compares. Exact as the pass's own test is, with one
rule from git's "racy clean": a file whose mtime is within `RACY_WINDOW_NS` of the listing is
recorded with the mtime -1, which no listing gives, since a second write in the same mtime tick
with the same size would not show (mtimes tick every few ms on Linux; NTFS keeps 100 ns;
`scandir` on Windows reads them from the directory, as the pass does). Anything else that
writes the index (forget, undo, a partial pass) clears it.
"""

from __future__ import annotations

import os
import sqlite3
import time

from deja import semantic, settings
from deja.continue_store.listing import list_sessions

from .schema import SCHEMA_VERSION

TYPE_CHECKING = False  # not `typing`'s: start-up (tests/cli/test_cli_startup.py)
if TYPE_CHECKING:
    from pathlib import Path

    from .schema import StrPath

# The same window the pass uses to re-read a file written just before it looked.
RACY_WINDOW_NS = 100_000_000
_KEY = "store_stamp"


class Scan:
    """One listing of `sessions/`: each session file's `id size mtime_ns` in `scandir` order (an
    unchanged folder lists in the same order; another order only costs a pass), and the
    positions of those written too recently to vouch for. (No dataclass: the search path over
    an unchanged store loads this module.)"""

    __slots__ = ("fields", "fresh")

    def __init__(self, fields: list[str], fresh: list[int]) -> None:
        self.fields = fields
        self.fresh = fresh


def listing_time() -> int:
    """Taken before a listing: the instant its mtimes are judged against."""
    return time.time_ns()


def scan(root: StrPath, listed_at: int) -> Scan | None:
    """The store's session files as the stamp holds them (`continue_store.listing`'s one
    listing: this is all a search over an unchanged store costs); None when the folder cannot
    be listed or holds an odd entry (a session name that is a symlink or anything but a regular
    file, or that went away as it was listed): a pass then speaks."""
    try:
        listed = list_sessions(os.path.join(root, "sessions"), listed_at - RACY_WINDOW_NS)
    except OSError:
        return None
    return None if listed.set_aside else Scan(listed.entries, listed.recent)


def stamp_text(context_text: str, listing: Scan) -> str:
    """What a pass records for `listing`: a fresh file's mtime written as -1, so that the next
    look sees it changed and the next pass reads it again. No file name holds a `/` or a space
    the reader accepts, and the context (a repr) no newline: the text reads one way."""
    fields = listing.fields
    if listing.fresh:
        fields = list(fields)
        for at in listing.fresh:
            fields[at] = fields[at].rpartition(" ")[0] + " -1"
    return context_text + "\n" + "/".join(fields)


def current_stamp(root: StrPath, exclude_path: Path | None) -> str | None:
    """The stamp of the store as it is now; None when no stamp could vouch for it (no folder,
    an odd entry, a file written too recently)."""
    listing = scan(root, listing_time())
    if listing is None or listing.fresh:
        return None
    return stamp_text(context(root, exclude_path), listing)


def recorded(db: sqlite3.Connection) -> str | None:
    row = db.execute("SELECT value FROM meta WHERE key = ?", (_KEY,)).fetchone()
    return str(row[0]) if row else None


def record(db: sqlite3.Connection, stamp: str | None) -> None:
    """In the caller's write transaction, after everything the listing showed is committed."""
    if stamp is None:
        clear(db)
    else:
        db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (_KEY, stamp))


def clear(db: sqlite3.Connection) -> None:
    db.execute("DELETE FROM meta WHERE key = ?", (_KEY,))


def unchanged(db: sqlite3.Connection, root: StrPath, exclude_path: Path | None) -> bool:
    """True when the last pass saw the store exactly as it is now: a pass would do nothing."""
    known = recorded(db)
    return known is not None and current_stamp(root, exclude_path) == known


def context(root: StrPath, exclude_path: Path | None) -> str:
    """Everything but the listing that decides what a pass reads. (By `os.path`, as `Path`
    would give them: a quiet `deja index` loads no `pathlib`.)"""
    path = settings.exclude_file_text() if exclude_path is None else exclude_path
    try:
        with open(path, encoding="utf-8", errors="replace") as text:
            excluded = text.read()
    except OSError:
        excluded = "\0none"
    parts = (
        str(SCHEMA_VERSION),
        os.path.realpath(root),  # what `Path.resolve` gives
        os.path.expanduser("~"),
        str(settings.max_session_bytes()),
        str(settings.redact_secrets()),
        # Installing the semantic extra (or turning it off) gives a pass vectors to make.
        str(semantic.enabled()),
    )
    return repr((*parts, excluded))


def unvouch(db: sqlite3.Connection, ids: set[str] | None) -> None:
    """Before a pass writes what it read: a whole pass (`ids` None) clears the stamp, to record
    its own at the end; a partial one drops the files it may write from it, so that the stamp
    vouches for nothing the index no longer holds as it listed it (a file deleted, then put
    back with the same size and mtime, must be read again)."""
    known = None if ids is None else recorded(db)
    if ids is None or known is None:
        clear(db)
        return
    head, _, listing = known.partition("\n")
    # Each id's entry cut out where it starts (`/id `: an id holds no `/` nor space), not the
    # whole listing split and joined again: a partial pass writes a file or two.
    listing = "/" + listing + "/"
    for session_id in ids:
        at = listing.find("/" + session_id + " ")
        if at >= 0:
            listing = listing[:at] + listing[listing.index("/", at + 1) :]
    record(db, head + "\n" + listing[1:-1])
