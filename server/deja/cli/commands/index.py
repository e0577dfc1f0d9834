"""`deja index`: bring the index up to date with Continue's store."""

from __future__ import annotations

from typing import TYPE_CHECKING

from deja.units import count

from ..common import AddCommand, CliError, emit, ensure_store, opened_history, run_pass

if TYPE_CHECKING:
    import argparse

    from deja.query import History


def add_parser(command: AddCommand) -> None:
    sub = command("index", "bring the index up to date with Continue's store")
    sub.add_argument(
        "--rebuild",
        action="store_true",
        help="re-derive everything from the store (keeps compacted turns)",
    )
    sub.add_argument(
        "--accept-empty",
        action="store_true",
        help="apply a store that lists no session file: mark every indexed session deleted",
    )


def run(args: argparse.Namespace) -> int:
    with opened_history() as history:
        return _answer(args, history)


def _answer(args: argparse.Namespace, history: History) -> int:
    ensure_store(history)
    # A store as the last pass saw it: the pass's report without loading the pass.
    report = None if args.rebuild else history.quiet_pass()
    if report is None:
        report = run_pass(
            history, rebuild=args.rebuild, quiet=args.json, accept_empty=args.accept_empty
        )
    if report.refused is not None:
        raise CliError(report.refused.message)
    recovery = history.recovery

    def lines() -> list[str]:
        out = [
            f"{count(report.sessions, 'session')} in the store · {report.read} read · "
            f"{report.changed} changed · {count(report.kept, 'turn')} kept from compaction · "
            f"{report.deleted} marked deleted · {count(len(report.errors), 'error')} "
            f"({report.seconds:.2f} s)"
        ]
        out += [f"error: {d.path}: {d.message}" for d in report.errors]
        if recovery:
            out += [f"note: {recovery.message}", f"note: {recovery.lost}"]
        return out

    emit(
        args,
        "index",
        lines,
        sessions=report.sessions,
        read=report.read,
        changed=report.changed,
        kept_from_compaction=report.kept,
        deleted=report.deleted,
        errors=[{"path": d.path, "message": d.message} for d in report.errors],
        seconds=round(report.seconds, 3),
        recovery=None if recovery is None else {"message": recovery.message, "lost": recovery.lost},
    )
    return 0
