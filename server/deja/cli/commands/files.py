"""`deja files TOPIC`: the files the sessions about a topic touched."""

from __future__ import annotations

import argparse

from deja.fix_blocks import files_blocks, files_nothing
from deja.operations import FilesRequest
from deja.quantities import count
from deja.query import History
from deja.wire import files_json

from ..common import (
    as_request,
    emit,
    ensure_store,
    implicit_pass,
    opened_history,
)


def run(args: argparse.Namespace) -> int:
    as_request(FilesRequest, args, topic=" ".join(args.topic))  # the bounds every door keeps
    with opened_history() as history:
        return _answer(args, history)


def _answer(args: argparse.Namespace, history: History) -> int:
    ensure_store(history)
    implicit_pass(history)
    choice = history.scope_for(all_workspaces=args.all, workspace=args.workspace)
    result = history.files(" ".join(args.topic), choice.scope, limit=args.limit)

    def lines() -> list[str]:
        out = list(choice.notes)
        if not result.files:
            return [*out, files_nothing(result, choice.scope.label)]
        out.append(
            f"1 session matches {result.topic!r}; the files it touched:"
            if result.sessions == 1
            else f"{result.sessions} sessions match {result.topic!r}; the files they touched:"
        )
        for block in files_blocks(result):
            out += block
        if result.total > len(result.files):
            out.append(
                f"showing {len(result.files)} of {count(result.total, 'file')} (use --limit)"
            )
        return out

    emit(args, "files", lines, scope=choice.scope.label, notes=choice.notes, **files_json(result))
    return 0
