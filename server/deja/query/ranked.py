"""How many matches BM25 ranks, and counting them cheaply. FTS5 scores every match of a query
before the best page can be picked, so a word in half of all sessions (thousands of records)
costs tens of milliseconds; past `RANKED_MATCHES` matches, only the newest that many (the
records indexed last: a session's latest pass re-numbers its records) are ranked. A filtered
search picks them among the matches that pass its filters. The total still counts every match."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

RANKED_MATCHES = 500


def rank_floor(
    db: sqlite3.Connection,
    sql_from: str,
    where: str,
    params: Sequence[object],
    *,
    filtered: bool,
    page_end: int,
) -> tuple[int | None, int | None]:
    """`(floor, total)`: the lowest record id among the newest `RANKED_MATCHES` matches (more
    when the page asked for ends past them) and None; or, when there are no more than that
    (every match is ranked), None and how many matches pass the filters when this walk over
    them tells it exactly (as `match_count` would: the second walk it saves), else None.
    `params` start with the MATCH expression."""
    depth = max(RANKED_MATCHES, page_end)
    if filtered:
        sql = f"SELECT records_fts.rowid AS id{sql_from} WHERE {where}"
    else:  # FTS5 alone walks its matches newest first, no row of `records` read
        sql, params = "SELECT rowid AS id FROM records_fts WHERE records_fts MATCH ?", params[:1]
    found, lowest = db.execute(
        f"SELECT count(*), min(id) FROM ({sql} ORDER BY id DESC LIMIT ?)", [*params, depth]
    ).fetchone()
    if found >= depth:
        return int(lowest), None
    # Unfiltered, the walk counted a fork's copied turns too, which the answer leaves out.
    return None, int(found) if filtered or _no_forks(db) else None


def match_count(
    db: sqlite3.Connection, sql_from: str, where: str, params: Sequence[object], *, filtered: bool
) -> int:
    """Every match that passes the filters. Without filters, and with no fork (whose copied
    turns are left out) in the index, FTS5 counts its matches itself."""
    if not filtered and _no_forks(db):
        sql, params = "SELECT count(*) FROM records_fts WHERE records_fts MATCH ?", params[:1]
    else:
        sql = f"SELECT count(*){sql_from} WHERE {where}"
    return int(db.execute(sql, params).fetchone()[0])


def _no_forks(db: sqlite3.Connection) -> bool:
    return db.execute("SELECT 1 FROM forks LIMIT 1").fetchone() is None
