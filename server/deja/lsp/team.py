"""The sidecar and the team database (`deja team`): `deja/search` with scope "team", searched
on a worker thread so the event loop keeps answering, and, with the `teamPush` option, a push
after each pass that changed sessions. psycopg loads on first use only."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from deja import settings
from deja.errors import DejaError
from deja.operations import SearchRequest
from deja.quantities import count
from deja.query import SearchQuery
from deja.wire import team_hit_json

TEAM_STATUS = "deja/teamStatus"


def _search(query: SearchQuery, project: str | None) -> tuple[list[dict[str, Any]], int]:
    from deja.team.config import load_config, require_driver

    require_driver()
    from deja.team.search import TeamFilter, team_search

    found, total = team_search(load_config(), query, TeamFilter(project=project))
    return [team_hit_json(team_hit.hit, team_hit.member) for team_hit in found], total


def team_status_result() -> dict[str, Any]:
    """Whether `deja team connect` stored a connection this sidecar can use (no connection is
    made: an editor asks before it offers the team scope); `reason` says why not."""
    from deja.team.config import load_config, require_driver

    try:
        require_driver()
        config = load_config()
    except DejaError as error:
        return {"configured": False, "name": None, "reason": error.message}
    return {"configured": True, "name": config.name or None, "reason": None}


async def team_search_result(request: SearchRequest) -> dict[str, Any]:
    query = SearchQuery(
        text=request.query,
        role=request.role,
        limit=request.limit,
        offset=request.offset,
        since=request.since,
        count_all=request.count_all,
    )
    hits, total = await asyncio.to_thread(_search, query, request.project)
    return {
        "query": query.text,
        "scope": "team",
        "approximate": False,
        "notes": [],
        "total": total if query.count_all else None,
        "hits": hits,
    }


class TeamPusher:
    """One push at a time on its own thread; requests made while one runs make one more."""

    def __init__(self, home: Path | None, log: Callable[[str, int], None]) -> None:
        self.home = home
        self.log = log
        self.lock = threading.Lock()
        self.wanted = False
        self.running = False

    def request(self) -> None:
        with self.lock:
            self.wanted = True
            if self.running:
                return
            self.running = True
        threading.Thread(target=self._run, name="deja-team-push", daemon=True).start()

    def _run(self) -> None:
        while True:
            with self.lock:
                if not self.wanted:
                    self.running = False
                    return
                self.wanted = False
            self._push_once()

    def _push_once(self) -> None:
        from deja.query import History
        from deja.team.config import load_config, require_driver

        try:
            require_driver()
            from deja.team.push import push

            # Its own connection, read-only: the sidecar's is the pass's, on another thread.
            history = History(self.home or settings.deja_home(), for_reading=True)
            try:
                report = push(history, load_config(), history.exclude_list())
            finally:
                history.close()
        except DejaError as error:  # one line in the log; the next pass tries again
            self.log(f"team push: {error.message}", logging.WARNING)
            return
        except Exception as error:  # a fault must not end the sidecar
            self.log(f"team push failed: {error!r}", logging.ERROR)
            return
        sent = count(report.sent, "session")
        self.log(f"team push: {sent} sent, {report.erased} erased", logging.INFO)
