"""`deja handoff ID`: a new `cn` session opened with a past session's digest."""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys

from deja.query.digest import build_digest
from deja.query.handoff import Launch, handoff

from ..common import CliError, envelope, implicit_pass, opened_history

_PLAIN = re.compile(r"[\w.-]+")


def launch(args: argparse.Namespace, session_id: str, plan: Launch) -> int:
    """Print the command line (notes on stderr), or run it attached to the terminal."""
    for note in plan.notes:
        print(f"note: {note}", file=sys.stderr)
    if not args.exec:
        if args.json:
            sys.stdout.buffer.write(
                envelope(
                    args.command,
                    session=session_id,
                    line=plan.line,
                    argv=plan.argv,
                    cwd=plan.cwd,
                    notes=plan.notes,
                )
            )
        else:
            print(plan.line)
        return 0
    # `which` finds npm's `cn.cmd` shim on Windows, where a bare name finds only `.exe` files.
    program = shutil.which(plan.argv[0])
    if program is None:
        raise CliError("cn is not on PATH (Continue's CLI: npm install -g @continuedev/cli)")
    if program.lower().endswith((".cmd", ".bat")) and not all(map(_PLAIN.fullmatch, plan.argv)):
        # cmd.exe re-parses a batch file's arguments: no quoting keeps `&` or `%` in them inert.
        raise CliError("cn is a batch file here; paste the printed line instead of --exec")
    return subprocess.run([program, *plan.argv[1:]], cwd=plan.cwd, check=False).returncode


def run(args: argparse.Namespace) -> int:
    with opened_history() as history:
        implicit_pass(history)
        view = history.show(args.session_id, inherited=True)  # a fork's whole history
    return launch(args, view.session.id, handoff(view.session, build_digest(view), args.shell))
