"""`deja fix TEXT`: what fixed this error before."""

from __future__ import annotations

import argparse
import sys

from deja.fix_blocks import fix_blocks, fix_nothing
from deja.operations import FixRequest
from deja.query import History
from deja.wire import fix_json

from ..common import (
    CliError,
    as_request,
    emit,
    ensure_store,
    implicit_pass,
    opened_history,
)

# An error text read from stdin (`make 2>&1 | deja fix -`) is cut here: its end says what failed.
STDIN_CHARS = 64_000


def _error_text(words: list[str]) -> str:
    if words == ["-"]:
        return sys.stdin.read()[-STDIN_CHARS:]
    return " ".join(words)


def run(args: argparse.Namespace) -> int:
    with opened_history() as history:
        return _answer(args, history)


def _answer(args: argparse.Namespace, history: History) -> int:
    ensure_store(history)
    implicit_pass(history)
    text = _error_text(args.error)
    if not text.strip():
        raise CliError("give the error text (or - to read it from stdin)")
    as_request(FixRequest, args, error=text)  # the bounds every door keeps
    # Errors are rarely one project's own: every workspace unless one is named.
    choice = history.scope_for(all_workspaces=not args.workspace, workspace=args.workspace)
    result = history.fix(text, choice.scope, limit=args.limit)

    def lines() -> list[str]:
        if not result.failures:
            return [fix_nothing(result, choice.scope.label)]
        out = [f"error signature: {result.error}", ""]
        for block in fix_blocks(result):
            out += [*block, ""]
        if result.total > len(result.failures):
            out.append(f"showing {len(result.failures)} of {result.total} (use --limit)")
        return out

    emit(args, "fix", lines, scope=choice.scope.label, **fix_json(result))
    return 0
