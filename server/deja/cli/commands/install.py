"""`deja install continue`: wire Deja into Continue (MCP server, `/deja` prompt, skill)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..common import CliError, envelope


def report(args: argparse.Namespace, plan: Any, root: Path, done: str, nothing: str) -> int:
    """The diff (dry run) or what was applied, as text or a JSON envelope."""
    from deja.install import apply

    if not args.dry_run:
        apply(plan, root)
    if args.json:
        sys.stdout.buffer.write(
            envelope(
                args.command,
                root=str(root),
                dry_run=args.dry_run,
                changes=[
                    {"path": str(c.path), "what": c.what, "removed": c.after is None}
                    for c in plan.changes
                ],
                backup=str(plan.backup) if plan.backup else None,
                kept=plan.kept,
                diff=plan.diff(),
            )
        )
        return 0
    for note in plan.kept:
        print(note)
    if not plan.changes:
        print(nothing)
    elif args.dry_run:
        sys.stdout.write(plan.diff())
    else:
        print(done)
        for change in plan.changes:
            print(f"  {change.path}: {change.what}")
        if plan.backup is not None:
            print(f"  your original config is kept at {plan.backup}")
    return 0


def run(args: argparse.Namespace) -> int:
    from deja.continue_store import resolve_root
    from deja.install import ConfigError, HiddenConfig, launcher, plan_install

    root = resolve_root()
    command, command_args = launcher()
    try:
        env = {"PYTHONPATH": args.mcp_pythonpath} if args.mcp_pythonpath else None
        plan = plan_install(root, command, command_args, env=env)
    except ConfigError as error:
        forward = f".\n{error.way_forward}" if isinstance(error, HiddenConfig) else ""
        raise CliError(f"{error}; nothing was written{forward}") from None
    return report(
        args,
        plan,
        root,
        f"Deja is wired into Continue at {root} (restart Continue or cn to load it):",
        f"Deja is already installed in {root}; nothing to change.",
    )
