"""Full-text search over the index: query syntax, ranking, scope, and a typo-tolerant fallback."""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass, field

from deja.index.tokens import identifier_parts

from .scope import Scope

HIGHLIGHT_START = "\x02"
HIGHLIGHT_END = "\x03"

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
_TOKEN = re.compile(r"[^\W_]+")
_QUERY_PART = re.compile(r'(-?)"([^"]*)"?|(\S+)')


class QueryError(ValueError):
    """The query cannot be searched (empty, only exclusions)."""


@dataclass(frozen=True, slots=True)
class Term:
    tokens: tuple[str, ...]
    prefix: bool = False
    exclude: bool = False
    phrase: bool = False
    # A camel-case word (`parseConfig`) also matches its parts written apart (`parse_config`).
    parts: tuple[str, ...] = ()

    def fts(self) -> str:
        star = "*" if self.prefix else ""
        quoted = '"' + " ".join(self.tokens) + '"' + star
        if not self.parts:
            return quoted
        return f'({quoted} OR "{" ".join(self.parts)}"{star})'


def parse_query(text: str) -> list[Term]:
    """Words (AND), `"exact phrase"`, `prefix*`, `-exclude`. A word with punctuation in it
    (`parse_config`, `src/app/main.py`) is searched as the phrase of its parts."""
    terms: list[Term] = []
    for match in _QUERY_PART.finditer(text):
        if match.group(2) is not None:
            tokens = tuple(_TOKEN.findall(match.group(2).lower()))
            if tokens:
                terms.append(Term(tokens, exclude=bool(match.group(1)), phrase=True))
            continue
        word = match.group(3)
        exclude = word.startswith("-") and len(word) > 1
        word = word[1:] if exclude else word
        prefix = word.endswith("*")
        tokens = tuple(_TOKEN.findall(word.lower()))
        if tokens:
            parts = tuple(identifier_parts(word).lower().split())
            terms.append(
                Term(tokens, prefix=prefix, exclude=exclude, parts=parts if len(parts) > 1 else ())
            )
    if not any(not term.exclude for term in terms):
        raise QueryError(
            "the search needs at least one word to find" if terms else "the search is empty"
        )
    return terms


def fts_expression(terms: list[Term]) -> str:
    positive = " AND ".join(term.fts() for term in terms if not term.exclude)
    negative = "".join(f" NOT {term.fts()}" for term in terms if term.exclude)
    return f"({positive}){negative}" if negative else positive


@dataclass(slots=True)
class SearchQuery:
    text: str
    scope: Scope = field(default_factory=Scope)
    role: str | None = None
    file: str | None = None
    session: str | None = None
    since: float | None = None
    limit: int = 20
    offset: int = 0


@dataclass(slots=True)
class Hit:
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


@dataclass(slots=True)
class SearchResult:
    hits: list[Hit]
    approximate: bool = False
    notes: list[str] = field(default_factory=list)
    corrections: dict[str, str] = field(default_factory=dict)


def _run(db: sqlite3.Connection, expression: str, query: SearchQuery) -> list[Hit]:
    where = ["records_fts MATCH ?"]
    params: list[object] = [expression]
    if query.role:
        where.append("r.role = ?")
        params.append(query.role)
    if query.session:
        where.append("r.session_id = ?")
        params.append(query.session)
    if query.since is not None:
        where.append("r.time >= ?")
        params.append(query.since)
    if query.file:
        where.append("(r.path = ? OR r.path LIKE ? ESCAPE '\\')")
        params.extend([query.file, "%/" + _like_escape(query.file.lstrip("/"))])
    scope_sql, scope_params = query.scope.sql("s.workspace")
    if scope_sql:
        where.append(scope_sql)
        params.extend(scope_params)
    rows = db.execute(
        "SELECT r.id, r.session_id, r.turn, r.role, r.time, r.path, r.exit_code, r.status,"
        " r.compacted, s.title, s.workspace, s.project, s.deleted,"
        f" bm25(records_fts, 1.0, 0.5) * {_ROLE_CASE} AS score"
        " FROM records_fts JOIN records r ON r.id = records_fts.rowid"
        " JOIN sessions s ON s.id = r.session_id"
        f" WHERE {' AND '.join(where)}"
        " ORDER BY score, r.time DESC LIMIT ? OFFSET ?",
        [*params, query.limit, query.offset],
    ).fetchall()
    if not rows:
        return []
    snippets = dict(
        db.execute(
            f"SELECT rowid, snippet(records_fts, 0, '{HIGHLIGHT_START}', '{HIGHLIGHT_END}',"
            f" '…', 16) FROM records_fts WHERE records_fts MATCH ? AND rowid IN"
            f" ({','.join('?' * len(rows))})",
            [expression, *[row[0] for row in rows]],
        ).fetchall()
    )
    return [
        Hit(
            session_id=row[1],
            title=row[9],
            workspace=row[10],
            project=row[11],
            turn=row[2],
            time=row[4],
            role=row[3],
            snippet=_one_line(snippets.get(row[0], "")),
            file=row[5],
            exit_code=row[6],
            status=row[7],
            compacted=bool(row[8]),
            deleted=bool(row[12]),
            score=round(-float(row[13]), 4),
            record_id=row[0],
        )
        for row in rows
    ]


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _like_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def search(db: sqlite3.Connection, query: SearchQuery) -> SearchResult:
    terms = parse_query(query.text)
    hits = _run(db, fts_expression(terms), query)
    if hits or query.offset:
        return SearchResult(hits)
    corrections = _corrections(db, terms)
    if not corrections:
        return SearchResult([])
    fuzzy = [
        Term(
            tuple(corrections.get(t, t) for t in term.tokens),
            term.prefix,
            term.exclude,
            term.phrase,
            term.parts,
        )
        for term in terms
    ]
    hits = _run(db, fts_expression(fuzzy), query)
    return SearchResult(hits, approximate=bool(hits), corrections=corrections if hits else {})


def _corrections(db: sqlite3.Connection, terms: list[Term]) -> dict[str, str]:
    """For each word the index does not know, the closest word it does (edit distance 1–2)."""
    corrections: dict[str, str] = {}
    for term in terms:
        if term.exclude or term.prefix:
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
