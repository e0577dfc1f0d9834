"""`deja forget`: remove sessions from the index for good, list what was, or undo that."""

from __future__ import annotations

import argparse
import time

from deja.quantities import count
from deja.query import History, SessionSummary
from deja.time_format import ago
from deja.wire import iso, session_json, tombstone_json

from .. import render
from ..common import CliError, emit, implicit_pass, opened_history


def run(args: argparse.Namespace) -> int:
    with opened_history() as history:
        return _answer(args, history)


def _answer(args: argparse.Namespace, history: History) -> int:
    if args.dry_run and not (args.session or args.workspace):
        raise CliError("--dry-run goes with --session or --workspace")
    if args.list:
        return _list(args, history)
    if args.undo:
        tomb = history.unforget(args.undo)
        message = (
            f"{tomb.kind} {tomb.value} is no longer forgotten: the next pass indexes what"
            " Continue's store holds of it (what only Deja had kept is gone)"
        )
        emit(args, "forget", lambda: [message], undone=tombstone_json(tomb))
        return 0
    implicit_pass(history)  # what the store holds now is what there is to forget
    targets = history.forget_preview(session=args.session, workspace=args.workspace)
    now = time.time()
    payload: dict[str, object] = {
        "dry_run": args.dry_run,
        "targets": [session_json(s) for s in targets],
    }
    forks = history.forks_of(targets[0].id) if args.session else []
    if args.session:
        payload["session"] = targets[0].id
        payload["forks"] = [s.id for s in forks]
        message = (
            f"forgot session {targets[0].id}; later passes will not bring it back"
            f" (deja forget --undo {render.short_id(targets[0].id)} would)"
        )
        message += "".join(f"\n{_fork_note(fork)}" for fork in forks)
        if not args.dry_run:
            history.forget_session(targets[0].id)
    else:
        payload |= {"workspace": args.workspace, "sessions": len(targets)}
        message = (
            f"forgot {count(len(targets), 'session')} of {args.workspace}; "
            "later passes will not index that workspace"
        )
        if not args.dry_run:
            history.forget_workspace(args.workspace)

    def lines() -> list[str]:
        if not args.dry_run:
            return [message]
        what = f"session {targets[0].id}" if args.session else count(len(targets), "session")
        later = "" if args.session else f", and keep later sessions of {args.workspace} out"
        out = [f"would forget {what}{later} (nothing changed):"]
        out += [_fork_note(fork) for fork in forks]
        for s in targets:
            out.append(
                f"  {render.short_id(s.id)}  {s.title} · {s.workspace or '-'} · last active "
                f"{ago(s.last_active, now)} · {count(s.message_count, 'message')}"
            )
        return out

    emit(args, "forget", lines, **payload)
    return 0


def _fork_note(fork: SessionSummary) -> str:
    """A fork keeps its copy of the forgotten session's turns: they become its own."""
    short = render.short_id(fork.id)
    return (
        f"note: its fork {short} ({fork.title}) still holds a copy of its turns, now the"
        f" fork's own; deja forget --session {short} removes them too"
    )


def _list(args: argparse.Namespace, history: History) -> int:
    tombs = history.tombstones()

    def lines() -> list[str]:
        if not tombs:
            return ["nothing forgotten"]
        out = [f"forgotten ({len(tombs)}), oldest first; deja forget --undo ID|DIR takes one back:"]
        out += [f"  {t.kind:<9}  {t.value}  since {iso(t.created)}" for t in tombs]
        return out

    emit(args, "forget", lines, tombstones=[tombstone_json(t) for t in tombs])
    return 0
