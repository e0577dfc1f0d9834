"""`deja search --team` and `deja blame --team`: the team database's answers, rendered as the
local ones plus the member who pushed each hit. Loaded only under `--team` (psycopg)."""

from __future__ import annotations

import argparse
import os
import sys
import time

from deja.continue_store.workspace import normalize_workspace, relative_to_workspace
from deja.query import SearchQuery
from deja.team.config import load_config
from deja.team.search import TeamFilter, TeamHit, team_search
from deja.wire import team_hit_json

from . import render
from .common import CliError, emit, opened_history


def _lines(found: list[TeamHit], total: int, offset: int, empty: str) -> list[str]:
    style = render.Style(sys.stdout)
    now = time.time()
    if not found:
        return [empty]
    out: list[str] = []
    for team_hit in found:
        lines = render.hit_lines(team_hit.hit, style, now)
        lines[0] = f"{style.bold(team_hit.member)} · {lines[0]}"
        out += lines
    page = render.page_note("hits", len(found), offset, total)
    return out + ([style.dim(page)] if page else [])


def search(args: argparse.Namespace) -> int:
    if args.file:
        raise CliError("--file is not for --team searches; `deja blame --team PATH` is")
    config = load_config()
    query = SearchQuery(
        text=" ".join(args.query),
        role=args.role,
        session=args.session,
        since=args.since,
        limit=args.limit,
        offset=args.offset,
    )
    narrow = TeamFilter(project=args.project, workspace=args.workspace)
    found, total = team_search(config, query, narrow)
    emit(
        args,
        "search",
        lambda: _lines(found, total, args.offset, f"no team hits for {query.text!r}"),
        query=query.text,
        scope="team",
        approximate=False,
        notes=[],
        total=total,
        hits=[team_hit_json(h.hit, h.member) for h in found],
    )
    return 0


def workspace_relative(path: str, cwd: str) -> str:
    """A path as the team index keys it: relative to the local workspace holding it (an
    absolute path, or one relative to cwd that lies in a known workspace), else as given."""
    absolute = os.path.normpath(os.path.join(cwd, path))
    with opened_history() as history:
        known = history.known_workspaces()
    holding = [w for w in known if absolute.startswith(w.rstrip("/") + "/")]
    if holding:
        return relative_to_workspace(absolute, max(holding, key=len))
    return normalize_workspace(path).lstrip("/") if os.path.isabs(path) else path


def blame(args: argparse.Namespace) -> int:
    relpath = workspace_relative(args.path, os.getcwd())
    query = SearchQuery(text="", limit=args.limit, count_all=False)
    found, total = team_search(load_config(), query, TeamFilter(relpath=relpath))
    emit(
        args,
        "blame",
        lambda: _lines(found, total, 0, f"no team records of {relpath}"),
        path=relpath,
        line=None,
        scope="team",
        events=[team_hit_json(h.hit, h.member) for h in found],
    )
    return 0
