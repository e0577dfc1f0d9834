"""`deja sessions`: list sessions, newest first."""

from __future__ import annotations

import argparse
import sys
import time

from deja.operations import SessionsRequest
from deja.quantities import count
from deja.query import History, ScopeChoice
from deja.wire import session_json
from deja.wire_share import lost_session_json

from .. import render
from ..common import (
    as_request,
    emit,
    ensure_store,
    implicit_pass,
    opened_history,
)


def run(args: argparse.Namespace) -> int:
    as_request(SessionsRequest, args)  # the bounds every door keeps
    with opened_history() as history:
        return _answer(args, history)


def _answer(args: argparse.Namespace, history: History) -> int:
    ensure_store(history)
    implicit_pass(history)
    choice = history.scope_for(all_workspaces=args.all, workspace=args.workspace)
    if args.lost:
        return _lost(args, history, choice)
    summaries = history.sessions(choice.scope, args.limit, args.offset)
    total = history.count_sessions(choice.scope)
    style = render.Style(sys.stdout)
    now = time.time()

    def lines() -> list[str]:
        out = [style.dim(f"note: {note}") for note in choice.notes]
        for summary in summaries:
            out += render.session_lines(summary, style, now)
        if not total:
            out.append(f"no sessions in {choice.scope.label}")
        page = render.page_note("sessions", len(summaries), args.offset, total)
        return out + ([style.dim(page)] if page else [])

    emit(
        args,
        "sessions",
        lines,
        scope=choice.scope.label,
        notes=choice.notes,
        total=total,
        sessions=[session_json(s) for s in summaries],
    )
    return 0


def _lost(args: argparse.Namespace, history: History, choice: ScopeChoice) -> int:
    """`--lost`: what only Deja still holds, and how `deja recover` gives it back."""
    lost = history.lost_sessions(choice.scope)
    style = render.Style(sys.stdout)
    now = time.time()

    def lines() -> list[str]:
        out = [style.dim(f"note: {note}") for note in choice.notes]
        for item in lost:
            out += render.session_lines(item.session, style, now)
            why = "file gone" if item.kind == "deleted" else "compacted"
            how = (
                f"recovered as {item.recovered_as}"
                if item.recovered_as
                else f"deja recover {item.session.id[:8]}"
            )
            out.append(f"    {why}: {count(item.only_deja, 'turn')} only Deja holds ({how})")
        if not lost:
            out.append(f"nothing lost in {choice.scope.label}: Continue holds every session whole")
        return out

    emit(
        args,
        "sessions",
        lines,
        scope=choice.scope.label,
        notes=choice.notes,
        total=len(lost),
        sessions=[lost_session_json(item) for item in lost],
    )
    return 0
