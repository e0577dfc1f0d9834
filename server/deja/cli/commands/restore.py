"""`deja restore`: list the project's sessions, or print earlier context as a compact transcript."""

from __future__ import annotations

import argparse
import sys
import time

from deja.operations import RestoreRequest
from deja.wire import restore_json

from .. import render
from ..common import as_request, ensure_store, envelope, implicit_pass, opened_history


def run(args: argparse.Namespace) -> int:
    from deja.query.restore import (
        RestoreResult,
        current_lines,
        listing_lines,
        passed_over,
    )

    # `1,3 : topic` arrives as separate words or attached (`1,3:topic`): join them.
    scope = "all" if args.all else None
    request = as_request(RestoreRequest, args, selection=" ".join(args.selection), scope=scope)
    with opened_history() as history:
        ensure_store(history)
        implicit_pass(history)
        result: RestoreResult = history.restore(
            request.selection,
            all_workspaces=request.scope == "all",
            session=request.session,
            limit=args.limit,
            offset=args.offset,
        )

    if args.json:
        sys.stdout.buffer.write(envelope("restore", **restore_json(result, time.time())))
        return 0
    lines = [f"note: {note}" for note in result.notes]
    current = result.current
    if result.text:
        sys.stdout.write("\n".join(lines) + "\n" if lines else "")
        sys.stdout.write(result.text)
        if current and not current.as_zero and result.last:
            # stdout stays the transcript; which session `last` passed over goes to stderr.
            print(f"deja: {passed_over(current, scope_label=result.scope)}", file=sys.stderr)
        return 0
    if result.listing:
        lines += listing_lines(
            result.listing, scope_label=result.scope, total=result.total, current=current
        )
    if result.message:
        lines.append(result.message)
        if current and not result.listing:
            lines += current_lines(current, scope_label=result.scope)
    render.write_lines(lines)
    return 0
