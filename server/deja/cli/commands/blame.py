"""`deja blame PATH`: every recorded edit, write and read of a file."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from deja.query import History
from deja.wire import event_json

from .. import render
from ..common import AddCommand, CliError, emit, implicit_pass, opened_history, positive


def add_parser(command: AddCommand) -> None:
    sub = command("blame", "every recorded edit, write and read of a file")
    sub.add_argument("path", metavar="PATH")
    sub.add_argument("--line", type=int, metavar="N", help="only edits covering line N (1-based)")
    sub.add_argument("--limit", type=positive, default=50)
    sub.add_argument(
        "--team", action="store_true", help="PATH relative to its workspace, across members"
    )


def run(args: argparse.Namespace) -> int:
    if args.team:
        from deja.team.config import require_driver

        require_driver()
        from .. import team_search  # psycopg: only under --team

        return team_search.blame(args)
    with opened_history() as history:
        return _answer(args, history)


def _answer(args: argparse.Namespace, history: History) -> int:
    implicit_pass(history)
    events = history.file_history(args.path, limit=args.limit)
    if args.line is not None:
        path = Path(args.path)
        try:
            document = path.read_text(encoding="utf-8", errors="replace")
        except OSError as error:
            raise CliError(f"cannot read {path} to find line {args.line}: {error}") from None
        events = history.edits_at_line(events, document, args.line - 1)
    style = render.Style(sys.stdout)
    now = time.time()

    def lines() -> list[str]:
        if not events:
            return [f"no recorded edits, writes or reads of {args.path}"]
        out: list[str] = []
        for event in events:
            out += render.event_lines(event, style, now)
        return out

    emit(
        args,
        "blame",
        lines,
        path=args.path,
        line=args.line,
        events=[event_json(e) for e in events],
    )
    return 0
