"""`deja team connect|share|unshare|push|grant|revoke|status`: the team index on PostgreSQL.
psycopg loads inside `run` (through `deja.team`), never on another command's path."""

from __future__ import annotations

import argparse

from ..common import AddCommand


def add_parser(command: AddCommand) -> None:
    sub = command("team", "team history on PostgreSQL: connect, share, push, grant")
    actions = sub.add_subparsers(dest="action", required=True, metavar="ACTION")
    connect = actions.add_parser("connect", help="store the team connection; create its schema")
    connect.add_argument("dsn", metavar="DSN", help="libpq connection string or URI, no password")
    connect.add_argument("--name", metavar="ME", help="the name team hits show for you")
    for name, verb in (("share", "push"), ("unshare", "stop pushing (and erase)")):
        share = actions.add_parser(name, help=f"{verb} these workspaces' sessions")
        share.add_argument("workspaces", nargs="+", metavar="WORKSPACE")
    actions.add_parser("push", help="send the shared workspaces' records; erase the unshared")
    for name, verb in (("grant", "let ROLE read"), ("revoke", "stop ROLE reading")):
        grant = actions.add_parser(name, help=f"{verb} PROJECT's rows (the owner role runs it)")
        grant.add_argument("project", metavar="PROJECT")
        grant.add_argument("role", metavar="ROLE")
    actions.add_parser("status", help="the connection, the shared workspaces, the grants")
    for action in actions.choices.values():  # `deja team push --json` as well as `team --json`
        action.add_argument(
            "--json", action="store_true", default=argparse.SUPPRESS, help=argparse.SUPPRESS
        )


def run(args: argparse.Namespace) -> int:
    from deja.team.config import require_driver

    require_driver()
    from .. import team_actions

    return team_actions.ACTIONS[args.action](args)
