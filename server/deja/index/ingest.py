"""Putting one session into the index: replace what the file still holds, keep what compaction
took away. The only code that writes records."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from itertools import islice

from deja.continue_store import Item, Session
from deja.continue_store.parse import title_from_message

from .forks import unlink_forgotten
from .insert_rows import RecordRow, rows_from
from .turn_times import Observed, observed, turn_times

_USER_PREVIEW = 100
_CHUNK = 2048


def is_compaction(old: Sequence[tuple[int, str]], new: Sequence[Item]) -> bool:
    """The file no longer continues what the index holds and either starts at a summary (the
    CLI rewrote it to one summary item) or holds fewer turns: the old turns are gone from disk."""
    if not old or not new:
        return bool(old) and not new
    if old[0][1] == new[0].fingerprint:
        return False
    return new[0].is_summary or len(new) < len(old)


def _insert_records(
    db: sqlite3.Connection,
    session: Session,
    rows: Iterable[RecordRow],
    base: int,
    times: dict[int, float],
    held: int,
) -> None:
    # Ids are given here (the caller holds the write lock) so both tables take one batch each.
    # The rest of each row was made before (rows.py), in the reader worker for a large pass.
    # A chunk at a time: a streamed session's rows come from disk, never all in memory. The
    # rows of the `held` turns the index keeps as they are are not written again.
    next_id = int(db.execute("SELECT coalesce(max(id), 0) FROM records").fetchone()[0]) + 1
    if held:
        rows = rows_from(rows, held)
    for chunk in _chunks(rows):
        ids = range(next_id, next_id + len(chunk))
        next_id += len(chunk)
        db.executemany(
            "INSERT INTO records (id, session_id, turn, role, time, tool, status, path,"
            " exit_code, output, args, hunks, body, parts) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            [
                (rid, session.id, base + row[0], row[1], times[base + row[0]], *row[2:11])
                for rid, row in zip(ids, chunk, strict=True)
            ],
        )
        # External content (schema.py): this writes the FTS index only.
        db.executemany(
            "INSERT INTO records_fts (rowid, body, parts) VALUES (?,?,?)",
            [(rid, row[11], row[10]) for rid, row in zip(ids, chunk, strict=True)],
        )


def _chunks(rows: Iterable[RecordRow]) -> Iterator[list[RecordRow]]:
    rows = iter(rows)
    while chunk := list(islice(rows, _CHUNK)):
        yield chunk


def _delete_live(db: sqlite3.Connection, session_id: str, from_turn: int) -> None:
    """The session's live items and records from `from_turn` on."""
    db.execute(
        "DELETE FROM records_fts WHERE rowid IN (SELECT id FROM records"
        " WHERE session_id = ? AND compacted = 0 AND turn >= ?)",
        (session_id, from_turn),
    )
    db.execute(
        "DELETE FROM records WHERE session_id = ? AND compacted = 0 AND turn >= ?",
        (session_id, from_turn),
    )
    db.execute(
        "DELETE FROM items WHERE session_id = ? AND compacted = 0 AND turn >= ?",
        (session_id, from_turn),
    )


def held_turns(old: Sequence[tuple[int, str]], session: Session, same_workspace: bool) -> int:
    """How many of the file's first turns the index holds as they are (the same fingerprints
    in the same places): those are kept, rows and ids, and only the rest is written again (a
    session that grew: its new turns). None under another workspace (tool paths resolve
    against it); none from a call whose output comes from an item written again (or not yet
    written), which changes its record and not its turn's fingerprint."""
    if not same_workspace:
        return 0
    same = 0
    for (_, fingerprint), item in zip(old, session.items, strict=False):
        if fingerprint != item.fingerprint:
            break
        same += 1
    moved = [turn for turn, source in session.borrows if source is None or source >= same]
    return min([same, *moved])


def forget_session(db: sqlite3.Connection, session_id: str) -> None:
    db.execute(
        "DELETE FROM records_fts WHERE rowid IN (SELECT id FROM records WHERE session_id = ?)",
        (session_id,),
    )
    db.execute("DELETE FROM records WHERE session_id = ?", (session_id,))
    db.execute("DELETE FROM items WHERE session_id = ?", (session_id,))
    db.execute("DELETE FROM sessions WHERE id = ?", (session_id,))
    unlink_forgotten(db, session_id)


def _user_texts(db: sqlite3.Connection, session_id: str) -> tuple[str, str]:
    rows = db.execute(
        "SELECT body FROM records_fts WHERE rowid IN ("
        " (SELECT min(id) FROM records WHERE session_id = ? AND role = 'user'),"
        " (SELECT max(id) FROM records WHERE session_id = ? AND role = 'user'))"
        " ORDER BY rowid",
        (session_id, session_id),
    ).fetchall()
    texts = [" ".join(str(row[0]).split())[:_USER_PREVIEW] for row in rows]
    return (texts[0], texts[-1]) if texts else ("", "")


def ingest_session(
    db: sqlite3.Connection, session: Session, rows: Iterable[RecordRow]
) -> int | None:
    """Replace the session's live records with `rows` (its records made into rows: `rows.py`);
    returns how many turns were newly kept from compaction, or None when the file was rewritten
    with nothing new (only its stat is updated). The caller owns the transaction."""
    row = db.execute(
        "SELECT base_turn, kept_items, title, workspace, last_active, size FROM sessions"
        " WHERE id = ?",
        (session.id,),
    ).fetchone()
    base, kept = (int(row[0]), int(row[1])) if row else (0, 0)
    newly_kept = held = 0
    seen: Observed | None = None
    if row is not None:
        old = db.execute(
            "SELECT turn, fingerprint FROM items WHERE session_id = ? AND compacted = 0"
            " ORDER BY turn",
            (session.id,),
        ).fetchall()
        if (row[2], row[3]) == (held_title(db, session), session.workspace) and [
            fingerprint for _, fingerprint in old
        ] == [item.fingerprint for item in session.items]:
            db.execute(
                "UPDATE sessions SET size = ?, mtime_ns = ?, last_active = ?, deleted = 0"
                " WHERE id = ?",
                (session.size, session.mtime_ns, session.last_active, session.id),
            )
            return None
        turns = frozenset(int(turn) for turn, _ in old)
        seen = observed(db, session.id, float(row[4]), turns, known=int(row[5]) != -1)
        if is_compaction(old, session.items):
            newly_kept = len(old)
            base = _keep_compacted(db, session.id, base)
            kept += newly_kept
        else:
            held = held_turns(old, session, row[3] == session.workspace)
            _delete_live(db, session.id, base + held)
    db.executemany(
        "INSERT INTO items (session_id, turn, fingerprint, role, is_summary) VALUES (?,?,?,?,?)",
        [
            (session.id, base + item.turn, item.fingerprint, item.role, int(item.is_summary))
            for item in session.items[held:]
        ],
    )
    _insert_records(db, session, rows, base, turn_times(session, base, seen), held)
    _upsert_session(db, session, kept, base)
    return newly_kept


def _keep_compacted(db: sqlite3.Connection, session_id: str, base: int) -> int:
    """Mark the session's live items and records compacted; returns the turn new items start at."""
    db.execute(
        "UPDATE items SET compacted = 1 WHERE session_id = ? AND compacted = 0",
        (session_id,),
    )
    db.execute(
        "UPDATE records SET compacted = 1 WHERE session_id = ? AND compacted = 0",
        (session_id,),
    )
    (last,) = db.execute(
        "SELECT max(turn) FROM items WHERE session_id = ?", (session_id,)
    ).fetchone()
    return int(last) + 1 if last is not None else base


def held_title(db: sqlite3.Connection, session: Session) -> str:
    """Continue's title, or when it is a placeholder the first user request the index holds,
    compacted turns included: a compacted session keeps the title of its first request. A
    fork's is its own first request (the ones before are its parent's: `forks.py`)."""
    if not session.title_from_request:
        return session.title
    row = db.execute(
        "SELECT body FROM records_fts WHERE rowid = (SELECT id FROM records"
        " WHERE session_id = ? AND role = 'user' AND turn >= coalesce("
        "  (SELECT fork_turn FROM forks WHERE session_id = ?), 0) ORDER BY turn, id LIMIT 1)",
        (session.id, session.id),
    ).fetchone()
    return (title_from_message(str(row[0])) if row else "") or session.title


def _upsert_session(db: sqlite3.Connection, session: Session, kept: int, base: int) -> None:
    first_user, last_user = _user_texts(db, session.id)
    db.execute(
        "INSERT INTO sessions (id, title, workspace, project, started, last_active, source, file,"
        " size, mtime_ns, message_count, compacted_on_disk, kept_items, base_turn, deleted,"
        " first_user, last_user) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,0,?,?)"
        " ON CONFLICT(id) DO UPDATE SET title=excluded.title, workspace=excluded.workspace,"
        " project=excluded.project, started=excluded.started, last_active=excluded.last_active,"
        " source=excluded.source, file=excluded.file, size=excluded.size,"
        " mtime_ns=excluded.mtime_ns, message_count=excluded.message_count,"
        " compacted_on_disk=excluded.compacted_on_disk, kept_items=excluded.kept_items,"
        " base_turn=excluded.base_turn, deleted=0, first_user=excluded.first_user,"
        " last_user=excluded.last_user",
        (
            session.id,
            held_title(db, session),
            session.workspace,
            session.project,
            session.started,
            session.last_active,
            session.source,
            session.file,
            session.size,
            session.mtime_ns,
            session.message_count,
            int(session.compacted_on_disk),
            kept,
            base,
            first_user,
            last_user,
        ),
    )
