"""`deja index`: bring the index up to date with Continue's store."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from deja.quantities import count

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
    sub.add_argument(
        "--switch-store",
        action="store_true",
        help="follow the Continue store now set (DEJA_CONTINUE_ROOT, CONTINUE_GLOBAL_DIR) from "
        "now on; the other store's sessions stay, marked deleted",
    )


def run(args: argparse.Namespace) -> int:
    with opened_history() as history:
        return _answer(args, history)


def _answer(args: argparse.Namespace, history: History) -> int:
    ensure_store(history)
    if history.read_only is not None:
        raise CliError(f"cannot write the index in {history.home}: {history.read_only}")
    opened = history.recovery  # said on stderr already (opened_history)
    if not args.rebuild:
        history.raise_noted_damage()
    # A store as the last pass saw it: the pass's report without loading the pass.
    report = None if args.rebuild or args.switch_store else history.quiet_pass()
    if report is None:
        report = run_pass(
            history,
            rebuild=args.rebuild,
            quiet=args.json,
            accept_empty=args.accept_empty,
            switch_store=args.switch_store,
        )
    if report.refused is not None:
        raise CliError(report.refused.message)
    recovery = history.recovery
    if recovery is not None and recovery is not opened:
        print(f"deja: note: {recovery.said()}", file=sys.stderr)

    def lines() -> list[str]:
        out = [
            f"{count(report.sessions, 'session')} in the store · {report.read} read · "
            f"{report.changed} changed · {count(report.kept, 'turn')} kept from compaction · "
            f"{report.deleted} marked deleted · {count(len(report.errors), 'error')} "
            f"({report.seconds:.2f} s)"
        ]
        out += [f"error: {d.path}: {d.message}" for d in report.errors]
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
