"""`deja resume ID`: the command that continues a past session in Continue's CLI."""

from __future__ import annotations

import argparse

from deja.query.handoff import check_id, resume

from ..common import implicit_pass, opened_history
from .handoff import launch


def run(args: argparse.Namespace) -> int:
    check_id(args.session_id)
    with opened_history() as history:
        implicit_pass(history)
        summary = history.show(args.session_id).session
    plan = resume(summary, args.shell)
    return launch(args, summary.id, plan)
