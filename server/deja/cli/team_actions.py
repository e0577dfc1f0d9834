"""What `deja team …` does, one function per action (loaded only by `deja team`: it imports
psycopg through `deja.team`)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import asdict

from deja.quantities import count as plural
from deja.query import History
from deja.team import grants
from deja.team.config import TeamConfig, TeamError, check_dsn, config_path, load_config, save_config
from deja.team.connection import opened
from deja.team.local import is_shared, shared_sessions
from deja.team.migrations import migrate
from deja.team.push import push

from .common import emit, implicit_pass, opened_history


def _shared_lines(history: History, config: TeamConfig) -> list[str]:
    """What a push would send: the opted-in workspaces and how many sessions each holds."""
    if not config.shared:
        return ["nothing is shared until you opt workspaces in: deja team share WORKSPACE…"]
    exclude = history.exclude_list()
    sessions = shared_sessions(history, config.shared, exclude)
    lines = [f"shared ({plural(len(sessions), 'session')}):"]
    for base in config.shared:
        count = sum(1 for s in sessions if is_shared(s.workspace, [base], exclude))
        note = " — excluded: nothing is pushed" if exclude.excludes(base) else ""
        lines.append(f"  {base}: {plural(count, 'session')}{note}")
    return lines


def connect(args: argparse.Namespace) -> int:
    config = TeamConfig(check_dsn(args.dsn))
    try:
        previous = load_config()
        config.shared, config.name = previous.shared, previous.name
    except TeamError:  # no earlier connection (or an unreadable one): start afresh
        pass
    if args.name is not None:
        config.name = args.name
    with opened(config) as db:
        before, after = migrate(db)
        role = db.execute("SELECT current_user").fetchone()
    path = save_config(config)
    with opened_history() as history:
        shared = _shared_lines(history, config)
    schema = (
        f"created the team schema (version {after})"
        if before == 0
        else f"upgraded the team schema {before} → {after}"
        if before != after
        else f"team schema version {after}"
    )
    member = role[0] if role else "?"
    emit(
        args,
        "team",
        lambda: [f"connected as {member}; {schema}; saved in {path}", *shared],
        action="connect",
        member=member,
        schema={"before": before, "after": after},
        shared=config.shared,
    )
    return 0


def _share(args: argparse.Namespace, add: bool) -> int:
    config = load_config()
    with opened_history() as history:
        implicit_pass(history)
        chosen: set[str] = set()
        for given in args.workspaces:
            if not add and given in config.shared:
                chosen.add(given)
                continue
            chosen.update(history.scope_for(workspace=given).scope.workspaces)
        config.shared = (
            sorted(set(config.shared) | chosen)
            if add
            else [w for w in config.shared if w not in chosen]
        )
        save_config(config)
        lines = _shared_lines(history, config)
    if not add:
        lines.append("the next `deja team push` erases their sessions from the team database")
    emit(args, "team", lambda: lines, action=args.action, shared=config.shared)
    return 0


def share(args: argparse.Namespace) -> int:
    return _share(args, add=True)


def unshare(args: argparse.Namespace) -> int:
    return _share(args, add=False)


def push_action(args: argparse.Namespace) -> int:
    config = load_config()
    with opened_history() as history:
        implicit_pass(history)
        report = push(history, config, history.exclude_list())
    emit(
        args,
        "team",
        lambda: [
            f"pushed {plural(report.sent, 'session')} ({plural(report.records, 'record')},"
            f" {plural(report.bytes, 'byte')});"
            f" {report.unchanged} unchanged; {report.erased} erased from the team database"
        ],
        action="push",
        **asdict(report),
    )
    return 0


def grant(args: argparse.Namespace) -> int:
    grants.grant(load_config(), args.project, args.role)
    emit(
        args,
        "team",
        lambda: [f"{args.role} may read {args.project}'s team history"],
        action="grant",
        project=args.project,
        role=args.role,
    )
    return 0


def revoke(args: argparse.Namespace) -> int:
    had = grants.revoke(load_config(), args.project, args.role)
    line = f"{args.role} no longer reads {args.project}" if had else "there was no such grant"
    emit(args, "team", lambda: [line], action="revoke", revoked=had)
    return 0


def status(args: argparse.Namespace) -> int:
    config = load_config()
    pairs = grants.grants(config)
    with opened_history() as history:
        shared = _shared_lines(history, config)
    emit(
        args,
        "team",
        lambda: [
            f"team connection in {config_path()}",
            *shared,
            *(f"grant: {role} reads {project}" for project, role in pairs),
        ],
        action="status",
        shared=config.shared,
        grants=[{"project": p, "role": r} for p, r in pairs],
    )
    return 0


ACTIONS: dict[str, Callable[[argparse.Namespace], int]] = {
    "connect": connect,
    "share": share,
    "unshare": unshare,
    "push": push_action,
    "grant": grant,
    "revoke": revoke,
    "status": status,
}
