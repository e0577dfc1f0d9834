"""`deja search`: search every session."""

from __future__ import annotations

import sys
import time

from deja.operations import SearchRequest
from deja.query import History, SearchQuery
from deja.wire import hit_json

from .. import render
from ..common import (
    as_request,
    emit,
    ensure_store,
    implicit_pass,
    opened_history,
)

TYPE_CHECKING = False  # not `typing`'s: start-up (tests/cli/test_cli_startup.py)
if TYPE_CHECKING:
    import argparse


def run(args: argparse.Namespace) -> int:
    request = as_request(SearchRequest, args, query=" ".join(args.query))
    if args.team:
        from deja.team.config import require_driver

        require_driver()
        from .. import team_search  # psycopg: only under --team

        return team_search.search(args)
    with opened_history() as history:
        return _answer(args, request, history)


def _answer(args: argparse.Namespace, request: SearchRequest, history: History) -> int:
    ensure_store(history)
    implicit_pass(history)
    choice = history.scope_for(all_workspaces=args.all, workspace=args.workspace)
    session = history.resolve_session(request.session) if request.session else None
    query = SearchQuery(
        text=request.query,
        scope=choice.scope,
        role=request.role,
        file=request.file,
        session=session,
        since=request.since,
        limit=request.limit,
        offset=request.offset,
    )
    result = history.search(query, scope_notes=choice.notes)
    style = render.Style(sys.stdout)
    now = time.time()

    def lines() -> list[str]:
        out = [style.dim(f"note: {note}") for note in result.notes]
        if not result.total:
            filters = {"role": request.role, "file": request.file, "session": request.session}
            out.append(render.nothing_found(query.text, choice.scope.label, filters, request.since))
        for hit in result.hits:
            out += render.hit_lines(hit, style, now)
        page = render.page_note("hits", len(result.hits), request.offset, result.total)
        return out + ([style.dim(page)] if page else [])

    emit(
        args,
        "search",
        lines,
        query=query.text,
        scope=choice.scope.label,
        approximate=result.approximate,
        notes=result.notes,
        total=result.total,
        hits=[hit_json(hit) for hit in result.hits],
    )
    return 0
