"""What a search hit is and how one is read, stated once for the words' search (`search.py`)
and the meaning's (`meaning.py`): the query, the hit, the filters every search applies, the
columns a hit is read from and its snippet's bounds."""

from __future__ import annotations

import sqlite3

from deja.index.forks import own_records
from deja.one_line import one_line
from deja.plain_record import NamedTuple

from .rows import named
from .scope import Scope

HIGHLIGHT_START = "\x02"
HIGHLIGHT_END = "\x03"
# A snippet shows at most this many characters around its best match, whatever the record's size.
SNIPPET_CHARS = 300
ELLIPSIS = "…"
SNIPPET = f"snippet(records_fts, 0, '{HIGHLIGHT_START}', '{HIGHLIGHT_END}', '{ELLIPSIS}', 16)"
# A record no word matched is shown from its opening: more would be cut by `bound_snippet`.
_OPENING_CHARS = 2000

# The columns a hit is read from (records `r`, sessions `s`).
COLUMNS = (
    "r.id, r.session_id, r.turn, r.role, r.time, r.path, r.exit_code, r.status,"
    " r.compacted, s.title, s.workspace, s.project, s.deleted"
)


# NamedTuples, not dataclasses: `deja search`'s start-up (plain_record.py).
class SearchQuery(NamedTuple):
    text: str
    scope: Scope = Scope()
    role: str | None = None
    # As `deja blame` takes it: a path (absolute, or relative to `cwd`), a file:// URI, a path
    # relative to a workspace, or the end of one.
    file: str | None = None
    session: str | None = None
    since: float | None = None
    limit: int = 20
    offset: int = 0
    cwd: str | None = None
    # Count every hit for `SearchResult.total` (a second query over a full page); doors that
    # show no total skip it.
    count_all: bool = True


class Hit(NamedTuple):
    session_id: str
    title: str
    workspace: str
    project: str
    turn: int
    time: float
    role: str
    snippet: str
    file: str | None
    exit_code: int | None
    status: str | None
    compacted: bool
    deleted: bool
    score: float
    record_id: int
    # Found by meaning only (the semantic extra): no word of the query is in it.
    meaning_only: bool = False


def filters(query: SearchQuery, paths: list[str] | None) -> tuple[list[str], list[object]]:
    """The WHERE clauses besides MATCH, shared by the page, its count and the meaning's ids."""
    # A fork's copy of its parent's turns is found once, under the parent.
    where: list[str] = [own_records("r")]
    params: list[object] = []
    if query.role:
        where.append("r.role = ?")
        params.append(query.role)
    if query.session:
        where.append("r.session_id = ?")
        params.append(query.session)
    if query.since is not None:
        where.append("r.time >= ?")
        params.append(query.since)
    if paths is not None:
        where.append(f"r.path IN ({','.join('?' * len(paths))})")
        params.extend(paths)
    scope_sql, scope_params = query.scope.sql("s.workspace")
    if scope_sql:
        where.append(scope_sql)
        params.extend(scope_params)
    return where, params


def hit_from_row(
    row: sqlite3.Row, *, snippet: str, score: float, meaning_only: bool = False
) -> Hit:
    """A row of `COLUMNS` as a hit."""
    return Hit(
        session_id=row["session_id"],
        title=row["title"],
        workspace=row["workspace"],
        project=row["project"],
        turn=row["turn"],
        time=row["time"],
        role=row["role"],
        snippet=snippet,
        file=row["path"],
        exit_code=row["exit_code"],
        status=row["status"],
        compacted=bool(row["compacted"]),
        deleted=bool(row["deleted"]),
        score=score,
        record_id=row["id"],
        meaning_only=meaning_only,
    )


def snippets(db: sqlite3.Connection, expression: str, ids: list[int]) -> dict[int, str]:
    """The snippet of each record in `ids` that `expression` matches. FTS5 (3.40) takes
    `rowid IN (…)` as one lookup per id, each setting the whole MATCH up again (~0.1 ms for a
    common word); one walk over the matches between the lowest and highest id, with the IN
    test left to SQLite (`+rowid`), costs a third of that for a page of 20."""
    if not ids:
        return {}
    return dict(
        db.execute(
            f"SELECT rowid, {SNIPPET} FROM records_fts WHERE records_fts MATCH ?"
            f" AND rowid BETWEEN ? AND ? AND +rowid IN ({','.join('?' * len(ids))})",
            [expression, min(ids), max(ids), *ids],
        ).fetchall()
    )


def hits_by_id(
    db: sqlite3.Connection, ids: list[int], any_word: str, score: float = 0.0
) -> dict[int, Hit]:
    """Hits for records the words' search did not rank. One that holds a word of the query
    (`any_word`: the query's words joined by OR, matched as the index tokenises) shows it
    highlighted; one that holds none is found by meaning only and shows its opening."""
    if not ids:
        return {}
    worded = snippets(db, any_word, ids)
    rows = (
        named(db)
        .execute(
            f"SELECT {COLUMNS}, f.body FROM records r JOIN sessions s ON s.id = r.session_id"
            " JOIN records_fts f ON f.rowid = r.id"
            f" WHERE r.id IN ({','.join('?' * len(ids))})",
            ids,
        )
        .fetchall()
    )
    found = {}
    for row in rows:
        text = worded.get(row["id"])
        if text is None:
            text = str(row["body"])[:_OPENING_CHARS]
        found[row["id"]] = hit_from_row(
            row,
            snippet=bound_snippet(one_line(text)),
            score=score,
            meaning_only=row["id"] not in worded,
        )
    return found


def marked_pieces(snippet: str) -> list[str]:
    """The snippet's text and highlight marks in turn, a piece of text (maybe empty) first, last
    and between two marks: what splitting at either mark, keeping the marks, gives (no `re` on a
    search's path)."""
    pieces: list[str] = []
    for opened, chunk in enumerate(snippet.split(HIGHLIGHT_START)):
        if opened:
            pieces.append(HIGHLIGHT_START)
        for closed, text in enumerate(chunk.split(HIGHLIGHT_END)):
            if closed:
                pieces.append(HIGHLIGHT_END)
            pieces.append(text)
    return pieces


def bound_snippet(snippet: str, limit: int = SNIPPET_CHARS) -> str:
    """At most `limit` characters (highlight marks aside), from a little before the first
    highlighted match; a highlight the window's end cuts is closed there.

    FTS5's snippet is a number of tokens, and one token can be a whole pasted blob."""
    pieces = marked_pieces(snippet)
    marks = (HIGHLIGHT_START, HIGHLIGHT_END)
    length = sum(len(piece) for piece in pieces if piece not in marks)
    if length <= limit:
        return snippet
    width = limit - 2 * len(ELLIPSIS)
    first = max(snippet.find(HIGHLIGHT_START), 0)  # no mark comes before it
    start = max(0, min(first - width // 4, length - width))
    end = start + width
    out = [ELLIPSIS] if start else []
    position = 0
    highlighted = False
    for piece in pieces:
        if piece in marks:
            if start <= position < end:
                out.append(piece)
                highlighted = piece == HIGHLIGHT_START
            continue
        out.append(piece[max(start - position, 0) : max(end - position, 0)])
        position += len(piece)
    if highlighted:
        out.append(HIGHLIGHT_END)
    if end < length:
        out.append(ELLIPSIS)
    return "".join(out)
