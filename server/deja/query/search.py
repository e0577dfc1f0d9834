"""Full-text search over the index: ranking, scope, snippets, and a typo-tolerant fallback. The
query syntax is `query_syntax.py`."""

from __future__ import annotations

import os
import sqlite3

from deja.one_line import one_line
from deja.plain_record import Plain

from . import meaning
from .hits import (
    COLUMNS,
    HIGHLIGHT_END,
    HIGHLIGHT_START,
    SNIPPET,
    Hit,
    SearchQuery,
    bound_snippet,
    filters,
    hit_from_row,
    hits_by_id,
    snippets,
)
from .query_syntax import ParsedQuery, fts_expression, parse_query
from .ranked import match_count, rank_floor
from .rows import named

# Importers of `Hit`, `SearchQuery` and the highlight marks from here keep working.
__all__ = [
    "HIGHLIGHT_END",
    "HIGHLIGHT_START",
    "SEARCH_ROLES",
    "Hit",
    "SearchQuery",
    "SearchResult",
    "bound_snippet",
    "search",
]

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


# A `Plain` class, not a dataclass: `deja search`'s start-up (plain_record.py).
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


def _run(
    db: sqlite3.Connection,
    expression: str,
    query: SearchQuery,
    paths: list[str] | None,
    *,
    rank_all: bool,
) -> tuple[list[Hit], int]:
    """The page of hits and how many there are in all; `rank_all` ranks every match."""
    where_filters, params = filters(query, paths)
    where = " AND ".join(["records_fts MATCH ?", *where_filters])
    joins = (
        " FROM records_fts JOIN records r ON r.id = records_fts.rowid"
        " JOIN sessions s ON s.id = r.session_id"
    )
    filtered = len(where_filters) > 1  # more than the fork-copy filter every search has
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
        f"SELECT {COLUMNS},{f' {SNIPPET} AS snippet,' if inline else ''}"
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
        found = {row["id"]: row["snippet"] for row in rows}
    else:
        found = snippets(db, expression, [row["id"] for row in rows])
    hits = [
        hit_from_row(
            row,
            snippet=bound_snippet(one_line(found.get(row["id"], ""))),
            score=round(-float(row["score"]), 4),
        )
        for row in rows
    ]
    return hits, total


def search(db: sqlite3.Connection, query: SearchQuery) -> SearchResult:
    parsed = parse_query(query.text)
    paths = None
    if query.file:
        from . import blame  # only for `--file` (start-up cost)

        paths = blame.resolve_file(db, query.file, cwd=query.cwd or os.getcwd())
        if not paths:
            return SearchResult([])
    if meaning.may_join(parsed) and meaning.ready(db):
        return _with_meaning(db, query, parsed, paths)
    return _by_words(db, query, parsed, paths)


def _with_meaning(
    db: sqlite3.Connection, query: SearchQuery, parsed: ParsedQuery, paths: list[str] | None
) -> SearchResult:
    """The words' hits, fused with the records nearest in meaning when the join rule asks
    for them (few word hits); else the words' hits alone, and no model loads."""
    end = query.offset + query.limit
    # Read deep enough for the join rule, whatever the page.
    first = query._replace(limit=max(end, meaning.FEW), offset=0)
    words = _by_words(db, first, parsed, paths, typos=False)
    if meaning.joins(words.total):
        where, params = filters(query, paths)
        by_meaning = meaning.ranked(db, meaning.question_text(parsed), where, params)
    else:
        by_meaning = []
    if not by_meaning:  # not asked, the model cannot load, or nothing is near: words alone
        if not words.hits:
            return _by_words(db, query, parsed, paths)  # with the typo fallback
        total = words.total if query.count_all else min(words.total, end)
        return SearchResult(words.hits[query.offset : end], total=total)
    depth = max(meaning.DEPTH, first.limit)
    by_meaning = by_meaning[:depth]
    if words.total > len(words.hits):
        words = _by_words(db, first._replace(limit=depth), parsed, paths, typos=False)
    fused = meaning.fuse([hit.record_id for hit in words.hits], by_meaning)
    page = fused[query.offset : query.offset + query.limit]
    known = {hit.record_id: hit for hit in words.hits}
    extra = hits_by_id(db, [rid for rid, _ in page if rid not in known], meaning.any_word(parsed))
    hits = [
        found._replace(score=round(score * 1000, 4))
        for rid, score in page
        if (found := known.get(rid) or extra.get(rid)) is not None
    ]
    total = words.total + sum(1 for rid in by_meaning if rid not in known)
    return SearchResult(hits, total=total)


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
