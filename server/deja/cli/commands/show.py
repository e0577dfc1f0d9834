"""`deja show ID`: a session as indexed, compacted turns included."""

from __future__ import annotations

import argparse
import sys

from deja.operations import ShowRequest
from deja.query import History
from deja.wire import record_json, session_json

from .. import render
from ..common import CliError, as_request, emit, implicit_pass, opened_history


def run(args: argparse.Namespace) -> int:
    with opened_history() as history:
        return _answer(args, history)


def _answer(args: argparse.Namespace, history: History) -> int:
    request = as_request(ShowRequest, args)  # `session_id` is its `session`
    implicit_pass(history)
    view = history.show(request.session, request.turn)
    if request.turn is not None and not view.records:
        raise CliError(f"session {view.session.id} has no turn {request.turn}")
    style = render.Style(sys.stdout)
    emit(
        args,
        "show",
        lambda: render.show_lines(view, style, full=args.full),
        session=session_json(view.session),
        records=[record_json(r) for r in view.records],
    )
    return 0
