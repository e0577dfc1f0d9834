"""Team search: PostgreSQL full-text search (`websearch_to_tsquery`, `ts_rank_cd` over the role
weights, the GIN index) over every project the member may read — row-level security decides
which rows a query sees, whatever it asks. Hits have the local hit's shape plus the member."""

from __future__ import annotations

from dataclasses import dataclass

from psycopg import sql

from deja.one_line import one_line
from deja.query import Hit, QueryError, SearchQuery
from deja.query.search import HIGHLIGHT_END, HIGHLIGHT_START, bound_snippet

from .config import TeamConfig
from .connection import Connection, opened, team_errors
from .local import clean
from .migrations import check_schema

# ts_headline reads this much of a record: the page's snippets stay cheap whatever its size.
HEADLINE_CHARS = 8_000
_HEADLINE = f"StartSel={HIGHLIGHT_START}, StopSel={HIGHLIGHT_END}, MaxWords=40, MinWords=12"


@dataclass(frozen=True, slots=True)
class TeamHit:
    hit: Hit
    member: str


@dataclass(slots=True)
class TeamFilter:
    """What narrows a team search: a project name, the end of a workspace's path, a role, a
    workspace-relative path."""

    project: str | None = None
    workspace: str | None = None
    role: str | None = None
    relpath: str | None = None


def _where(query: SearchQuery, narrow: TeamFilter) -> tuple[sql.Composed, list[object]]:
    """Filters over `m` (the matches, or the records themselves) and `s` (their sessions)."""
    parts: list[sql.Composable] = []
    params: list[object] = []
    for value, clause in (
        (narrow.project, "m.project = %s"),
        (narrow.role or query.role, "m.role = %s"),
        (narrow.relpath, "m.relpath = %s"),
        (query.since, "m.time >= %s"),
        (query.session, "m.session_id LIKE %s"),
    ):
        if value is not None:
            parts.append(sql.SQL(clause))
            params.append(f"{value}%" if clause.endswith("LIKE %s") else value)
    if narrow.workspace:
        tail = clean(narrow.workspace).rstrip("/")
        parts.append(sql.SQL("(s.workspace = %s OR s.workspace LIKE %s)"))
        params += [tail, "%/" + tail.replace("%", r"\%").replace("_", r"\_")]
    return sql.SQL(" AND ").join(parts or [sql.SQL("true")]), params


def team_search(
    config: TeamConfig, query: SearchQuery, narrow: TeamFilter | None = None
) -> tuple[list[TeamHit], int]:
    """The page of hits, best first, and how many there are (counted only when the page is
    full), over a connection of its own."""
    with opened(config) as db:
        check_schema(db)
        return search_on(db, query, narrow or TeamFilter())


def search_on(db: Connection, query: SearchQuery, narrow: TeamFilter) -> tuple[list[TeamHit], int]:
    """`team_search` over an open connection (the sidecar's, the bench's)."""
    text = clean(query.text).strip()
    if not text and narrow.relpath is None:
        raise QueryError("the search is empty")
    if narrow.relpath is not None and text:
        raise QueryError("a team file history takes no words")
    where, params = _where(query, narrow)
    if text:
        # `deja_matches` finds the rows through the GIN index (as the owner, with the read
        # rule applied inside); bodies are read for the page only.
        source = sql.SQL("deja_matches(websearch_to_tsquery('english', %s)) m")
        order = sql.SQL("m.score DESC, m.time DESC")
        params = [text, *params]
    else:
        source = sql.SQL("(SELECT *, 0::real AS score FROM deja_records) m")
        order = sql.SQL("m.time DESC")
    base = sql.SQL(
        "FROM {source} JOIN deja_sessions s ON s.member = m.member AND s.session_id = m.session_id"
        " WHERE {where}"
    ).format(source=source, where=where)
    page = sql.SQL(
        "SELECT p.display, p.session_id, p.title, p.workspace, p.project, p.turn, p.time,"
        " p.role, p.path, p.exit_code, p.status, p.compacted, left(b.body, 400), p.score,"
        " ts_headline('english', left(b.body, {chars}), websearch_to_tsquery('english', %s),"
        " {options}) FROM (SELECT s.display, m.member, m.session_id, m.key, s.title,"
        " s.workspace, m.project, m.turn, m.time, m.role, m.path, m.exit_code, m.status,"
        " m.compacted, m.score {base} ORDER BY {order} LIMIT %s OFFSET %s) p"
        " JOIN deja_records b ON b.member = p.member AND b.session_id = p.session_id"
        " AND b.key = p.key ORDER BY p.score DESC, p.time DESC"
    ).format(
        chars=sql.Literal(HEADLINE_CHARS), options=sql.Literal(_HEADLINE), base=base, order=order
    )
    with team_errors("the team search failed"):
        rows = db.execute(page, [text, *params, query.limit, query.offset]).fetchall()
        total = query.offset + len(rows)
        if query.count_all and len(rows) == query.limit:
            counted = db.execute(sql.SQL("SELECT count(*) {base}").format(base=base), params)
            found = counted.fetchone()
            total = int(found[0]) if found else total
    return [_hit(row, bool(text)) for row in rows], total


def _hit(row: tuple[object, ...], matched: bool) -> TeamHit:
    (
        display,
        session_id,
        title,
        workspace,
        project,
        turn,
        time,
        role,
        path,
        exit_code,
        status,
        compacted,
        body,
        score,
        headline,
    ) = row
    snippet = str(headline) if matched else str(body)[:400]
    hit = Hit(
        session_id=str(session_id),
        title=str(title),
        workspace=str(workspace),
        project=str(project),
        turn=int(turn),  # type: ignore[call-overload]
        time=float(time),  # type: ignore[arg-type]
        role=str(role),
        snippet=bound_snippet(one_line(snippet)),
        file=None if path is None else str(path),
        exit_code=None if exit_code is None else int(exit_code),  # type: ignore[call-overload]
        status=None if status is None else str(status),
        compacted=bool(compacted),
        deleted=False,
        score=round(float(score), 4),  # type: ignore[arg-type]
        record_id=0,
    )
    return TeamHit(hit, str(display))
