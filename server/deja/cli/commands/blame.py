"""`deja blame PATH`: every recorded edit, write and read of a file; with `--line N`, the edits
that wrote line N of the file as it is now (its owner first: `deja.query.provenance`)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from deja.operations import FileHistoryRequest
from deja.query import FileEvent, History, check_line
from deja.wire import event_json, line_owner_json

from .. import render
from ..common import CliError, as_request, emit, implicit_pass, opened_history


def run(args: argparse.Namespace) -> int:
    as_request(FileHistoryRequest, args)  # the bounds every door keeps
    if args.team:
        from deja.team.config import require_driver

        require_driver()
        from .. import team_search  # psycopg: only under --team

        return team_search.blame(args)
    with opened_history() as history:
        return _answer(args, history)


def _answer(args: argparse.Namespace, history: History) -> int:
    implicit_pass(history)
    owner: dict[str, object] | None = None
    if args.line is None:
        # Where each edit's text stands now, when the file is here to look (`ranges`).
        document = _document(Path(args.path))
        events = history.file_history(args.path, limit=args.limit, document=document)
    else:
        events, owner = _at_line(args, history)
    style = render.Style(sys.stdout)
    now = time.time()

    def lines() -> list[str]:
        out: list[str] = []
        if args.line is not None:
            changed = bool(owner and owner["changed_since"])
            first = events[0] if owner else None
            out.append(render.line_owner_line(args.line, args.path, first, changed))
        elif not events:
            out.append(f"no recorded edits, writes or reads of {args.path}")
        for event in events:
            out += render.event_lines(event, style, now)
        return out

    emit(
        args,
        "blame",
        lines,
        path=args.path,
        line=args.line,
        written_by=owner,
        events=[event_json(e) for e in events],
    )
    return 0


def _document(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace") if path.is_file() else None
    except OSError:
        return None


def _at_line(
    args: argparse.Namespace, history: History
) -> tuple[list[FileEvent], dict[str, object] | None]:
    """The edits that claimed the line, its owner first, and who that owner is."""
    path = Path(args.path)
    try:
        document = path.read_text(encoding="utf-8", errors="replace")
    except OSError as error:
        raise CliError(f"cannot read {path} to find line {args.line}: {error}") from None
    line = check_line(document, args.line, args.path)
    events = history.file_history(args.path)
    mapping = history.provenance(events, document)
    mapping.place()
    claim = mapping.owner(line)
    if claim is None:
        return [], None
    return mapping.at_line(line)[: args.limit], line_owner_json(mapping.events[claim.event], claim)
