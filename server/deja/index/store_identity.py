"""Which Continue store the index belongs to. A pass against another store (a shell with
`CONTINUE_GLOBAL_DIR` set for another profile) would mark the whole history deleted and merge
the other store's sessions in for good: it is refused, and the index answers as it is, until
`deja index --switch-store`. A store moved as a whole (the old folder gone, its sessions under
the new one) is followed. An index made before stores were named adopts the one its sessions'
files lie in, else the store of its first pass."""

from __future__ import annotations

import os
import sqlite3

TYPE_CHECKING = False  # not `typing`'s: start-up (tests/cli/test_cli_startup.py)
if TYPE_CHECKING:
    from pathlib import Path

    from .refusal import StoreRefusal

KEY = "store_root"


def recorded(db: sqlite3.Connection) -> str | None:
    row = db.execute("SELECT value FROM meta WHERE key = ?", (KEY,)).fetchone()
    return None if row is None else str(row[0])


def judge(db: sqlite3.Connection, root: Path, *, switch: bool) -> tuple[str | None, bool]:
    """(the refusal message, or None; whether `root` is to be recorded as the index's store)."""
    from pathlib import Path  # a pass's, not a quiet `deja index`'s

    current = str(root.resolve())
    known = recorded(db)
    if known == current:
        return None, False
    if not (root / "sessions").is_dir():
        return None, False  # a missing store is the pass's own refusal
    if switch:
        return None, True
    if known is None:
        known = _store_of_files(db)
        if known is None or known == current:
            return None, True
    if _moved(db, Path(known), root) or _holds_nothing(db):
        return None, True
    message = (
        f"this index holds the history of Continue's store {known}, not of {current}; "
        f"answering from the index as it is (`deja index --switch-store` makes it follow "
        f"{current}; a DEJA_HOME of its own keeps each store's history apart)"
    )
    return message, False


def refusal(message: str) -> StoreRefusal:
    from .refusal import StoreRefusal  # the reader's types: not on a quiet `deja index`

    return StoreRefusal("other", message)


def record(db: sqlite3.Connection, root: Path) -> None:
    """In the caller's write transaction."""
    db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (KEY, str(root.resolve())))


def _store_of_files(db: sqlite3.Connection) -> str | None:
    """The store an older index was built from: where its newest live session's file lies."""
    row = db.execute(
        "SELECT file FROM sessions WHERE deleted = 0 ORDER BY last_active DESC LIMIT 1"
    ).fetchone()
    if row is None or not row[0]:
        return None
    from pathlib import Path

    return str(Path(row[0]).parent.parent.resolve())  # as `judge` names the store


def _holds_nothing(db: sqlite3.Connection) -> bool:
    return db.execute("SELECT 1 FROM sessions LIMIT 1").fetchone() is None


def _moved(db: sqlite3.Connection, known: Path, root: Path) -> bool:
    """The recorded store is gone and the new one holds sessions the index holds: one store,
    moved (a copy, with the old one still in place, is another store)."""
    if (known / "sessions").is_dir():
        return False
    try:
        names = {name[:-5] for name in os.listdir(root / "sessions") if name.endswith(".json")}
    except OSError:
        return False
    held = {row[0] for row in db.execute("SELECT id FROM sessions")}
    return bool(names & held)
