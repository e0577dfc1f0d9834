"""Search by words and by meaning, fused: BM25's ranking and the nearest records' ranking
combined by reciprocal rank fusion. Used by `search.search` when the semantic extra is
installed and the index holds vectors; a hit found by meaning only says so (`Hit.meaning_only`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING

from deja import semantic
from deja.text import one_line

from .query_syntax import ParsedQuery
from .rows import named

if TYPE_CHECKING:
    from .search import Hit, SearchQuery, SearchResult

# How deep each ranking is read before fusing, and RRF's constant (the usual 60: a hit's rank
# matters less the further down it is, and no ranking's scores need comparing with the other's).
DEPTH = 50
# Nearest records read before the filters (scope, role, file, …) keep some: a scope can hide most.
NEAREST = 200
RRF_K = 60
# Below this cosine a record is not offered by meaning alone: on the recall set, questions about
# nothing in the history (a recipe, a sports result) came out at 0.24-0.33 against it, answers at
# a median of 0.41; the floor costs about 4 points of recall and lets "nothing found" be said.
MIN_SIMILARITY = 0.3

# The words' search; its flag allows the typo fallback (a scan of the vocabulary).
Words = Callable[["SearchQuery", bool], "SearchResult"]
Filters = Callable[["SearchQuery", "list[str] | None"], "tuple[list[str], list[object]]"]


def wanted(db: sqlite3.Connection, parsed: ParsedQuery) -> bool:
    """Fuse only plain questions (no exclusions: meaning cannot say "not"), with vectors."""
    if parsed.excluded or not parsed.terms():
        return False
    # In this order: the model's modules load only when the extra is on and the index has vectors.
    if not (semantic.enabled() and semantic.has_vectors(db)):
        return False
    from deja.semantic.model import ModelUnavailable, load

    try:
        load()
    except ModelUnavailable:  # a broken install: search by words, as without the extra
        return False
    return True


def question_text(parsed: ParsedQuery) -> str:
    return " ".join(token for term in parsed.terms() for token in term.tokens)


def fused(
    db: sqlite3.Connection,
    query: SearchQuery,
    parsed: ParsedQuery,
    paths: list[str] | None,
    words: Words,
    filters: Filters,
) -> SearchResult:
    from deja.semantic.nearest import nearest

    depth = max(DEPTH, query.offset + query.limit)
    close = [
        rid for rid, score in nearest(db, question_text(parsed), NEAREST) if score >= MIN_SIMILARITY
    ]
    where, params = filters(query, paths)
    if where:
        kept = _passing(db, close, where, params)
        close = [rid for rid in close if rid in kept]
    by_meaning = close[:depth]
    # Typo correction only when meaning found nothing either: it is the slow path, and a
    # question in other words is what meaning answers.
    by_words = words(query._replace(limit=depth, offset=0), not by_meaning)
    scores: dict[int, float] = {}
    for rank, hit in enumerate(by_words.hits):
        scores[hit.record_id] = 1 / (RRF_K + rank + 1)
    for rank, rid in enumerate(by_meaning):
        scores[rid] = scores.get(rid, 0.0) + 1 / (RRF_K + rank + 1)
    order = sorted(scores, key=lambda rid: -scores[rid])
    page = order[query.offset : query.offset + query.limit]
    known = {hit.record_id: hit for hit in by_words.hits}
    extra = _meaning_hits(db, [rid for rid in page if rid not in known])
    hits = []
    for rid in page:
        found = known.get(rid) or extra.get(rid)
        if found is not None:
            hits.append(found._replace(score=round(scores[rid] * 1000, 4)))
    only_meaning = sum(1 for rid in by_meaning if rid not in known)
    total = by_words.total + only_meaning
    from .search import SearchResult  # here: search imports this module

    return SearchResult(hits, by_words.approximate, by_words.notes, by_words.corrections, total)


def _passing(
    db: sqlite3.Connection, ids: list[int], where: list[str], params: list[object]
) -> set[int]:
    """The records among `ids` that the query's filters keep."""
    if not ids:
        return set()
    clauses = " AND ".join([f"r.id IN ({','.join('?' * len(ids))})", *where])
    return {
        int(row[0])
        for row in db.execute(
            f"SELECT r.id FROM records r JOIN sessions s ON s.id = r.session_id WHERE {clauses}",
            [*ids, *params],
        )
    }


def _meaning_hits(db: sqlite3.Connection, ids: list[int]) -> dict[int, Hit]:
    """Hits for records no word matched: the snippet is the record's opening."""
    from .search import bound_snippet, hit_from_row

    if not ids:
        return {}
    rows = (
        named(db)
        .execute(
            "SELECT r.id, r.session_id, r.turn, r.role, r.time, r.path, r.exit_code, r.status,"
            " r.compacted, s.title, s.workspace, s.project, s.deleted, f.body"
            " FROM records r JOIN sessions s ON s.id = r.session_id"
            " JOIN records_fts f ON f.rowid = r.id"
            f" WHERE r.id IN ({','.join('?' * len(ids))})",
            ids,
        )
        .fetchall()
    )
    return {
        row["id"]: hit_from_row(
            row,
            snippet=bound_snippet(one_line(str(row["body"])[:2000])),
            score=0.0,
            meaning_only=True,
        )
        for row in rows
    }
