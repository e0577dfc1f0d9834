"""`deja capture`: index one session now — what the `PreCompact` hook install writes runs, so
the turns `cn` is about to compact away are held. Takes the session as an id or its file's
path, or the hook's JSON on stdin (`session_id`, as `cn` sends it)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from deja.continue_store.parse import is_safe_file_id

from ..common import CliError, opened_history


def session_of(args: argparse.Namespace, store: Path) -> str:
    """The session id to index, from the argument or the hook's stdin JSON."""
    given: str | None = args.session
    if given is None:
        if sys.stdin is None or sys.stdin.isatty():
            raise CliError("name a session (its id or file), or pipe a hook's JSON to stdin")
        try:
            payload = json.loads(sys.stdin.read() or "null")
        except ValueError:
            raise CliError("stdin is not a hook's JSON (no session_id)") from None
        found = payload.get("session_id") if isinstance(payload, dict) else None
        if not isinstance(found, str) or not found:
            raise CliError("stdin is not a hook's JSON (no session_id)")
        given = found
    if given.endswith(".json") or "/" in given or "\\" in given:
        path = Path(given)
        if path.resolve().parent != (store / "sessions").resolve():
            raise CliError(f"{given} is not in Continue's store ({store / 'sessions'})")
        given = path.stem
    if not is_safe_file_id(given):
        raise CliError(f"{given!r} is not a session id")
    return given


def run(args: argparse.Namespace) -> int:
    with opened_history() as history:
        session_id = session_of(args, history.root)
        if not (history.root / "sessions" / f"{session_id}.json").is_file():
            raise CliError(f"no session {session_id} in {history.root / 'sessions'}")
        report = history.refresh(only={session_id})
    for problem in report.errors:
        print(f"deja: cannot read {problem.path}: {problem.message}", file=sys.stderr)
    if report.errors:
        return 1
    held = "indexed" if report.changed else "already indexed"
    print(f"deja: session {session_id} {held}", file=sys.stderr)
    return 0
