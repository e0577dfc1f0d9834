"""`deja index`: bring the index up to date with Continue's store."""

from __future__ import annotations

import sys

from deja.quantities import count

from ..common import CliError, emit, ensure_store, opened_history, run_pass

TYPE_CHECKING = False  # not `typing`'s: start-up (tests/cli/test_cli_startup.py)
if TYPE_CHECKING:
    import argparse

    from deja.query import History


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
