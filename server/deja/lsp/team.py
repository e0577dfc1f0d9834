"""`deja/search` with scope "team": the team database (`deja team`), searched on a worker
thread so the event loop keeps answering. psycopg loads on the first team search only."""

from __future__ import annotations

import asyncio
from typing import Any

from deja.query import SearchQuery
from deja.wire import team_hit_json

from .params import Params

MAX_PAGE = 500


def _search(query: SearchQuery, project: str | None) -> list[dict[str, Any]]:
    from deja.team.config import load_config
    from deja.team.search import TeamFilter, team_search

    found, _ = team_search(load_config(), query, TeamFilter(project=project))
    return [team_hit_json(team_hit.hit, team_hit.member) for team_hit in found]


async def team_search_result(params: Params) -> dict[str, Any]:
    query = SearchQuery(
        text=params.required_text("query"),
        role=params.role(),
        limit=params.integer("limit", 20, low=1, high=MAX_PAGE),
        offset=params.integer("offset", 0, high=1_000_000),
        count_all=False,
    )
    hits = await asyncio.to_thread(_search, query, params.text("project"))
    return {"query": query.text, "scope": "team", "approximate": False, "notes": [], "hits": hits}
