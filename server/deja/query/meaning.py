"""Search by meaning (the semantic extra): when it may join a search, when it does, the records
nearest the question as ranked ids, and a pure `fuse()` of the words' and the meaning's
rankings by reciprocal rank fusion. `search.py` runs the words' search and builds the hits
(`hits.py`); nothing of the model loads unless meaning joins."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from deja import semantic

from .query_syntax import ParsedQuery, Term

# How deep each ranking is read before fusing, and RRF's constant (the usual 60: a hit's rank
# matters less the further down it is, and no ranking's scores need comparing with the other's).
DEPTH = 50
# Nearest records read before the filters (scope, role, file, …) keep some: a scope can hide most.
NEAREST = 200
RRF_K = 60
# Below this cosine a record is not offered by meaning alone: on the recall set, questions about
# nothing in the history (a recipe, a sports result) came out well below answers; the floor
# costs a little recall and lets "nothing found" be said.
MIN_SIMILARITY = 0.3
# The deep model's floor: through a door's search on the recall set (bench/recall/deep.py), a
# lower floor let questions about nothing in the history through and a higher one found no more
# paraphrases (bench/recall/MODELS.md, "Through the product").
DEEP_MIN_SIMILARITY = 0.26
# The join rule (bench/recall/join_rule.py measures it): meaning joins when the words found
# fewer than `FEW` records; otherwise the words' ranking is the answer and no model loads. On
# the recall set every answer meaning adds is to a question the words found nothing for: fusing
# it into one or more word hits (or only when their scores are close) changed no answer, and
# would load the model for a third of the questions more.
FEW = 1


def may_join(parsed: ParsedQuery) -> bool:
    """Meaning answers questions, not exact text: never with an exclusion (meaning cannot say
    "not"), a quoted phrase, or a single identifier-like word (`parseConfig`, `max_retries`,
    `src/app.py`, `v2`)."""
    terms = parsed.terms()
    if parsed.excluded or not terms or any(term.phrase for term in terms):
        return False
    return not (len(terms) == 1 and identifier_like(terms[0]))


def identifier_like(term: Term) -> bool:
    """A word written as code: camel case, joined by punctuation, or with digits in it."""
    return bool(term.parts) or len(term.tokens) > 1 or any(c.isdigit() for c in term.tokens[0])


def ready(db: sqlite3.Connection) -> bool:
    """The extra is on and the index holds vectors (nothing of the model loaded)."""
    return semantic.enabled() and semantic.has_vectors(db)


def joins(total: int) -> bool:
    """Whether meaning joins the words' hits (`total`: how many there are in all)."""
    return total < FEW


def question_text(parsed: ParsedQuery) -> str:
    return " ".join(token for term in parsed.terms() for token in term.tokens)


def any_word(parsed: ParsedQuery) -> str:
    """An FTS5 expression matching a record that holds any word of the query."""
    return " OR ".join(
        f'"{token}"{"*" if term.prefix else ""}' for term in parsed.terms() for token in term.tokens
    )


def ranked(
    db: sqlite3.Connection, question: str, where: list[str], params: list[object]
) -> list[int] | None:
    """The records nearest `question` that pass the filters, best first (at most `NEAREST`);
    None when the model cannot load (a broken install: search by words, as without it). In a
    long-running door the deep model ranks the records it has read, the static model the rest
    (the two rankings interleaved by rank: their cosines are not on one scale)."""
    from deja.semantic.identity import ModelUnavailable
    from deja.semantic.nearest import nearest

    try:
        close = [rid for rid, score in nearest(db, question, NEAREST) if score >= MIN_SIMILARITY]
    except ModelUnavailable:
        return None
    if semantic.deep_enabled():
        close = _with_deep(db, question, close)
    if close and where:
        kept = _passing(db, close, where, params)
        close = [rid for rid in close if rid in kept]
    return close


def _with_deep(db: sqlite3.Connection, question: str, by_light: list[int]) -> list[int]:
    from deja.semantic import deep_pass
    from deja.semantic.identity import ModelUnavailable
    from deja.semantic.nearest import nearest
    from deja.semantic.vectors import DEEP

    if not deep_pass.ready(db):
        return by_light
    try:
        by_deep = nearest(db, question, NEAREST, DEEP)
    except ModelUnavailable:  # the static model's answer stands
        return by_light
    read = deep_pass.covered(db, by_light)
    rest = [rid for rid in by_light if rid not in read]
    close = [rid for rid, score in by_deep if score >= DEEP_MIN_SIMILARITY]
    return [rid for rid, _ in fuse(close, rest)][:NEAREST]


def fuse(by_words: Sequence[int], by_meaning: Sequence[int]) -> list[tuple[int, float]]:
    """Record ids with their fused score, best first: the sum over both rankings of
    1 / (RRF_K + rank)."""
    scores: dict[int, float] = {}
    for rank, rid in enumerate(by_words):
        scores[rid] = 1 / (RRF_K + rank + 1)
    for rank, rid in enumerate(by_meaning):
        scores[rid] = scores.get(rid, 0.0) + 1 / (RRF_K + rank + 1)
    return sorted(scores.items(), key=lambda item: -item[1])


def _passing(
    db: sqlite3.Connection, ids: list[int], where: list[str], params: list[object]
) -> set[int]:
    """The records among `ids` that the query's filters keep."""
    clauses = " AND ".join([f"r.id IN ({','.join('?' * len(ids))})", *where])
    return {
        int(row[0])
        for row in db.execute(
            f"SELECT r.id FROM records r JOIN sessions s ON s.id = r.session_id WHERE {clauses}",
            [*ids, *params],
        )
    }
