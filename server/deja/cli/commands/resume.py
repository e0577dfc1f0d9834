"""`deja resume ID`: the command that continues a past session in Continue's CLI."""

from __future__ import annotations

import argparse

from deja.query.handoff import check_id, resume

from ..common import AddCommand, implicit_pass, opened_history
from .handoff import add_shell_option, launch


def add_parser(command: AddCommand) -> None:
    sub = command("resume", "print `cd WORKSPACE && cn --fork ID` to continue a past session")
    sub.add_argument("session_id", metavar="ID", help="a session id (or 8+ characters of one)")
    sub.add_argument("--exec", action="store_true", help="run it, attached to this terminal")
    add_shell_option(sub)


def run(args: argparse.Namespace) -> int:
    check_id(args.session_id)
    with opened_history() as history:
        implicit_pass(history)
        summary = history.show(args.session_id).session
    plan = resume(summary, args.shell)
    return launch(args, summary.id, plan)
