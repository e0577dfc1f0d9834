"""Full-text search over the index: ranking, scope, snippets, and a typo-tolerant fallback. The
query syntax is `query_syntax.py`."""

from __future__ import annotations

import os
import re
import sqlite3
from typing import NamedTuple

from deja.index.forks import own_records
from deja.plain_record import Plain
from deja.text import one_line

from . import meaning
from .query_syntax import ParsedQuery, fts_expression, parse_query
from .ranked import match_count, rank_floor
from .rows import named
from .scope import Scope

HIGHLIGHT_START = "\x02"
HIGHLIGHT_END = "\x03"
# A snippet shows at most this many characters around its best match, whatever the record's size.
SNIPPET_CHARS = 300
ELLIPSIS = "…"

# Ranking: BM25 (lower is better in SQLite) scaled by how much a record of that role tells the
# user; user requests and summaries count most, tool output least.
ROLE_WEIGHTS = {
    "user": 2.0,
    "summary": 2.0,
    "assistant": 1.5,
    "reasoning": 1.0,
    "edit": 1.3,
    "command": 1.3,
    "tool": 0.8,
    "read": 0.8,
    "attached": 0.6,
}
SEARCH_ROLES = ("user", "assistant", "reasoning", "summary", "command", "read", "edit", "tool")
_ROLE_CASE = (
    "CASE r.role "
    + " ".join(f"WHEN '{role}' THEN {weight}" for role, weight in ROLE_WEIGHTS.items())
    + " ELSE 1.0 END"
)
_SNIPPET = f"snippet(records_fts, 0, '{HIGHLIGHT_START}', '{HIGHLIGHT_END}', '{ELLIPSIS}', 16)"
_MARK = re.compile(f"([{HIGHLIGHT_START}{HIGHLIGHT_END}])")


# NamedTuples and a `Plain` class, not dataclasses: `deja search`'s start-up (plain_record.py).
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


class SearchResult(Plain):
    __slots__ = ("approximate", "corrections", "hits", "notes", "total")

    def __init__(
        self,
        hits: list[Hit],
        approximate: bool = False,
        notes: list[str] | None = None,
        corrections: dict[str, str] | None = None,
        total: int = 0,
    ) -> None:
        self.hits = hits
        self.approximate = approximate
        self.notes = [] if notes is None else notes
        self.corrections = {} if corrections is None else corrections
        # Every hit of the query and its filters, not only the page's (with `count_all=False`,
        # only those up to the end of the page).
        self.total = total


def _filters(query: SearchQuery, paths: list[str] | None) -> tuple[list[str], list[object]]:
    """The WHERE clauses besides MATCH, shared by the page and its count."""
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


def _run(
    db: sqlite3.Connection,
    expression: str,
    query: SearchQuery,
    paths: list[str] | None,
    *,
    rank_all: bool,
) -> tuple[list[Hit], int]:
    """The page of hits and how many there are in all; `rank_all` ranks every match."""
    filters, params = _filters(query, paths)
    where = " AND ".join(["records_fts MATCH ?", *filters])
    joins = (
        " FROM records_fts JOIN records r ON r.id = records_fts.rowid"
        " JOIN sessions s ON s.id = r.session_id"
    )
    filtered = len(filters) > 1  # more than the fork-copy filter every search has
    page_end = query.offset + query.limit
    floor = counted = None
    if not rank_all:
        floor, counted = rank_floor(
            db, joins, where, [expression, *params], filtered=filtered, page_end=page_end
        )
    ranked = where if floor is None else f"{where} AND records_fts.rowid >= {floor}"
    # No more matches than a page holds: their snippets come with the ranking (a walk fewer).
    inline = counted is not None and counted <= query.limit
    cursor = named(db)
    rows = cursor.execute(
        "SELECT r.id, r.session_id, r.turn, r.role, r.time, r.path, r.exit_code, r.status,"
        " r.compacted, s.title, s.workspace, s.project, s.deleted,"
        f"{f' {_SNIPPET} AS snippet,' if inline else ''}"
        f" bm25(records_fts, 1.0, 0.5) * {_ROLE_CASE} AS score{joins}"
        f" WHERE {ranked} ORDER BY score, r.time DESC LIMIT ? OFFSET ?",
        [expression, *params, query.limit, query.offset],
    ).fetchall()
    if not query.count_all or (len(rows) < query.limit and (rows or not query.offset)):
        total = query.offset + len(rows)  # the page holds the last hit, or no count was asked
    elif counted is not None:
        total = counted
    else:
        total = match_count(db, joins, where, [expression, *params], filtered=filtered)
    if not rows:
        return [], total
    if inline:
        snippets = {row["id"]: row["snippet"] for row in rows}
    else:
        snippets = _snippets(db, expression, [row["id"] for row in rows])
    hits = [
        hit_from_row(
            row,
            snippet=bound_snippet(one_line(snippets.get(row["id"], ""))),
            score=round(-float(row["score"]), 4),
        )
        for row in rows
    ]
    return hits, total


def _snippets(db: sqlite3.Connection, expression: str, ids: list[int]) -> dict[int, str]:
    """The snippet of each record in `ids`. FTS5 (3.40) takes `rowid IN (…)` as one lookup per
    id, each setting the whole MATCH up again (~0.1 ms for a common word); one walk over the
    matches between the lowest and highest id, with the IN test left to SQLite (`+rowid`),
    costs a third of that for a page of 20 (bench/RESULTS.md)."""
    return dict(
        db.execute(
            f"SELECT rowid, {_SNIPPET} FROM records_fts WHERE records_fts MATCH ?"
            f" AND rowid BETWEEN ? AND ? AND +rowid IN ({','.join('?' * len(ids))})",
            [expression, min(ids), max(ids), *ids],
        ).fetchall()
    )


def hit_from_row(
    row: sqlite3.Row, *, snippet: str, score: float, meaning_only: bool = False
) -> Hit:
    """A record's row (with its session's title, workspace and project) as a hit."""
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


def bound_snippet(snippet: str, limit: int = SNIPPET_CHARS) -> str:
    """At most `limit` characters (highlight marks aside), from a little before the first
    highlighted match; a highlight the window's end cuts is closed there.

    FTS5's snippet is a number of tokens, and one token can be a whole pasted blob."""
    pieces = _MARK.split(snippet)
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


def search(db: sqlite3.Connection, query: SearchQuery) -> SearchResult:
    parsed = parse_query(query.text)
    paths = None
    if query.file:
        from . import blame  # only for `--file` (start-up cost)

        paths = blame.resolve_file(db, query.file, cwd=query.cwd or os.getcwd())
        if not paths:
            return SearchResult([])
    if meaning.wanted(db, parsed):
        words = lambda q, typos: _by_words(db, q, parsed, paths, typos=typos)  # noqa: E731
        return meaning.fused(db, query, parsed, paths, words, _filters)
    return _by_words(db, query, parsed, paths)


def _by_words(
    db: sqlite3.Connection,
    query: SearchQuery,
    parsed: ParsedQuery,
    paths: list[str] | None,
    *,
    typos: bool = True,
) -> SearchResult:
    # Words joined by OR are ranked over every match: BM25 weighs which of them matter.
    rank_all = any(len(group) > 1 for group in parsed.groups)
    hits, total = _run(db, fts_expression(parsed), query, paths, rank_all=rank_all)
    if hits or query.offset or not typos:
        return SearchResult(hits, total=total)
    corrections = _corrections(db, parsed)
    if not corrections:
        return SearchResult([])
    fuzzy = parsed.map_terms(
        lambda term: term._replace(tokens=tuple(corrections.get(t, t) for t in term.tokens))
    )
    hits, total = _run(db, fts_expression(fuzzy), query, paths, rank_all=rank_all)
    return SearchResult(
        hits, approximate=bool(hits), corrections=corrections if hits else {}, total=total
    )


def _corrections(db: sqlite3.Connection, query: ParsedQuery) -> dict[str, str]:
    """For each word the index does not know, the closest word it does (edit distance 1–2)."""
    corrections: dict[str, str] = {}
    for term in query.terms():
        if term.prefix:
            continue
        for token in term.tokens:
            if len(token) < 4 or token in corrections or _known(db, token):
                continue
            best = _closest(db, token)
            if best:
                corrections[token] = best
    return corrections


def _known(db: sqlite3.Connection, token: str) -> bool:
    return db.execute("SELECT 1 FROM records_vocab WHERE term = ?", (token,)).fetchone() is not None


def _closest(db: sqlite3.Connection, token: str) -> str | None:
    limit = 1 if len(token) < 8 else 2
    best: tuple[int, int, str] | None = None
    # Typos rarely hit the first letter; scanning one letter's terms keeps this fast.
    start = token[0]
    end = chr(ord(start) + 1)
    for term, count in db.execute(
        "SELECT term, cnt FROM records_vocab WHERE term >= ? AND term < ?", (start, end)
    ):
        if abs(len(term) - len(token)) > limit:
            continue
        distance = edit_distance(token, term, limit)
        if distance <= limit:
            candidate = (distance, -int(count), term)
            if best is None or candidate < best:
                best = candidate
    return best[2] if best else None


def edit_distance(a: str, b: str, limit: int) -> int:
    """Damerau–Levenshtein (adjacent swaps count once), giving up past `limit`."""
    if a == b:
        return 0
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], previous2[j - 2] + 1)
        if min(current) > limit:
            return limit + 1
        previous2, previous = previous, current
    return previous[-1]
