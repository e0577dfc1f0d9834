"""`deja team connect|share|unshare|push|grant|revoke|status`: the team index on PostgreSQL.
psycopg loads inside `run` (through `deja.team`), never on another command's path."""

from __future__ import annotations

import argparse


def run(args: argparse.Namespace) -> int:
    from deja.team.config import require_driver

    require_driver()
    from .. import team_actions

    return team_actions.ACTIONS[args.action](args)
