"""Forks: a session whose history begins with another indexed session's history (`cn --fork ID`
copies the parent's history into a new session). The copied turns are the parent's work; the
`forks` table says where each fork's own turns begin, and every query leaves out the turns
before it (`own_records`). Derived from the items' fingerprints, so it is recomputed whenever a
session that could be either side of a fork changes, and never needs the file again: the parent
may be compacted or deleted since, as long as the index still holds its turns."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

# A fork copies at least one exchange: a single shared opening item (two sessions that both
# begin with "hi") is no evidence of copying.
MIN_SHARED_ITEMS = 2
FIRST_USER_CHARS = 100  # as index/ingest.py keeps it
_DERIVED_KEY = "forks"
_CHUNK = 512


def own_records(alias: str) -> str:
    """A WHERE clause keeping the records of `alias` (a `records` row) that are their session's
    own: not a fork's copy of its parent's turns."""
    return (
        f"NOT EXISTS (SELECT 1 FROM forks k WHERE k.session_id = {alias}.session_id"
        f" AND {alias}.turn < k.fork_turn)"
    )


def _fingerprints(db: sqlite3.Connection, session_id: str, start: int, limit: int) -> list[str]:
    return [
        row[0]
        for row in db.execute(
            "SELECT fingerprint FROM items WHERE session_id = ? AND turn >= ?"
            " ORDER BY turn LIMIT ?",
            (session_id, start, limit),
        )
    ]


def _shared(a: list[str], b: list[str]) -> int:
    count = 0
    for left, right in zip(a, b, strict=False):
        if left != right:
            break
        count += 1
    return count


def _shared_run(db: sqlite3.Connection, session_id: str, parent: str, start: int) -> int:
    """How many of the session's items, from its first, equal the parent's from `start`: read
    a chunk at a time, so a long history costs no memory and a short match no reading."""
    shared = 0
    while True:
        mine = _fingerprints(db, session_id, shared, _CHUNK)
        same = _shared(mine, _fingerprints(db, parent, start + shared, len(mine)))
        shared += same
        if same < _CHUNK:
            return shared


def _find_parent(db: sqlite3.Connection, session_id: str) -> tuple[str, int, int] | None:
    """The session this one was forked from, the turn where its own history begins, and the
    parent's turn the copy starts at (its first, or a compaction summary)."""
    row = db.execute("SELECT started FROM sessions WHERE id = ?", (session_id,)).fetchone()
    mine = _fingerprints(db, session_id, 0, MIN_SHARED_ITEMS)
    if row is None or len(mine) < MIN_SHARED_ITEMS:
        return None
    started = float(row[0])
    # Only an older session can be the parent (a fork gets a fresh start): no cycles. The
    # first two items are matched here, so sessions that merely open alike cost nothing more.
    candidates = db.execute(
        "SELECT i.session_id, i.turn, s.started FROM items i"
        " JOIN items j ON j.session_id = i.session_id AND j.turn = i.turn + 1"
        " JOIN sessions s ON s.id = i.session_id"
        " WHERE i.fingerprint = ? AND j.fingerprint = ? AND i.session_id != ?"
        " AND (i.turn = 0 OR i.is_summary = 1)"
        " AND (s.started < ? OR (s.started = ? AND s.id < ?)) ORDER BY s.id, i.turn",
        (mine[0], mine[1], session_id, started, started, session_id),
    ).fetchall()
    best: tuple[int, float, str, int] | None = None
    for parent, turn, parent_started in candidates:
        shared = _shared_run(db, session_id, parent, int(turn))
        # The longest copy wins; between equals, the oldest session wrote those turns.
        key = (shared, -float(parent_started), parent, int(turn))
        if shared >= MIN_SHARED_ITEMS and (best is None or key[:2] > best[:2]):
            best = key
    if best is None:
        return None
    shared, _, parent, turn = best
    return parent, shared, turn


def _related(db: sqlite3.Connection, session_ids: Iterable[str]) -> set[str]:
    """The sessions whose fork link may change when these change: themselves, their forks, and
    any session whose first two items are two of theirs from their start or a compaction."""
    ids = set(session_ids)
    affected = set(ids)
    for session_id in ids:
        affected.update(
            row[0]
            for row in db.execute(
                "SELECT session_id FROM forks WHERE parent_id = ?"
                " UNION SELECT y.session_id FROM items x"
                " JOIN items x2 ON x2.session_id = x.session_id AND x2.turn = x.turn + 1"
                " JOIN items y ON y.turn = 0 AND y.fingerprint = x.fingerprint"
                " JOIN items y2 ON y2.session_id = y.session_id AND y2.turn = 1"
                "  AND y2.fingerprint = x2.fingerprint"
                " WHERE x.session_id = ? AND (x.turn = 0 OR x.is_summary = 1)",
                (session_id, session_id),
            )
        )
    return affected


def forks_derived(db: sqlite3.Connection) -> bool:
    """Whether the links were derived once (an index made before forks were recognised was not)."""
    return db.execute("SELECT 1 FROM meta WHERE key = ?", (_DERIVED_KEY,)).fetchone() is not None


def link_forks(db: sqlite3.Connection, changed: Iterable[str]) -> list[str]:
    """Recompute the fork links the changed sessions take part in (run in the caller's write
    transaction); returns the sessions whose link changed. The first call on an index made
    before forks were recognised links every session."""
    if not forks_derived(db):
        changed = [row[0] for row in db.execute("SELECT id FROM sessions")]
        db.execute("INSERT OR REPLACE INTO meta VALUES (?, '1')", (_DERIVED_KEY,))
    moved: list[str] = []
    for session_id in sorted(_related(db, changed)):
        before = db.execute(
            "SELECT parent_id, fork_turn, parent_turn FROM forks WHERE session_id = ?",
            (session_id,),
        ).fetchone()
        found = _find_parent(db, session_id)
        if (tuple(before) if before else None) != found:
            moved.append(session_id)
            _link(db, session_id, found, int(before[1]) if before else 0)
        elif found is not None:
            _own_opening(db, session_id, found[1], 0)  # the pass rewrote them
    return moved


def _link(
    db: sqlite3.Connection, session_id: str, found: tuple[str, int, int] | None, was: int
) -> None:
    db.execute("DELETE FROM forks WHERE session_id = ?", (session_id,))
    if found is not None:
        db.execute("INSERT INTO forks VALUES (?,?,?,?)", (session_id, *found))
    _own_opening(db, session_id, found[1] if found else 0, was)


def _first_request(db: sqlite3.Connection, session_id: str, from_turn: int) -> str | None:
    row = db.execute(
        "SELECT f.body FROM records r JOIN records_fts f ON f.rowid = r.id"
        " WHERE r.session_id = ? AND r.role = 'user' AND r.turn >= ? ORDER BY r.id LIMIT 1",
        (session_id, from_turn),
    ).fetchone()
    return None if row is None else str(row[0])


def _own_opening(db: sqlite3.Connection, session_id: str, from_turn: int, was: int) -> None:
    """A fork's first request is the first of its own turns (`first_user`, one line of at most
    FIRST_USER_CHARS as ingest writes it), and so is a title made from it: a title that is the
    first line of the request its turns began with (from 0, or `was`) is made again."""
    # Here, not at the top: queries import `own_records`, and `deja search` not the reader.
    from deja.continue_store.parse import title_from_message

    own = _first_request(db, session_id, from_turn)
    first_user = " ".join(own.split())[:FIRST_USER_CHARS] if own else ""
    db.execute("UPDATE sessions SET first_user = ? WHERE id = ?", (first_user, session_id))
    row = db.execute("SELECT title FROM sessions WHERE id = ?", (session_id,)).fetchone()
    if row is None or not own:
        return
    openings = {_first_request(db, session_id, turn) for turn in {0, was}} - {None}
    if row[0] in {title_from_message(text) for text in openings if text}:
        db.execute(
            "UPDATE sessions SET title = ? WHERE id = ?",
            (title_from_message(own) or row[0], session_id),
        )


def unlink_forgotten(db: sqlite3.Connection, session_id: str) -> None:
    """A forgotten session is nobody's parent: its forks are linked again (to another copy of
    those turns, or to none, and then the turns are the fork's own)."""
    forks = db.execute(
        "SELECT session_id, fork_turn FROM forks WHERE parent_id = ?", (session_id,)
    ).fetchall()
    db.execute("DELETE FROM forks WHERE session_id = ?", (session_id,))
    for fork, turn in forks:
        _link(db, fork, _find_parent(db, fork), int(turn))
