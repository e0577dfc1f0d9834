"""`deja`: the command line. A thin front door over the query API; imports the core alone."""

from __future__ import annotations

import argparse
import importlib
import re
import sys
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NoReturn

from deja.index import PassReport
from deja.query import (
    SEARCH_ROLES,
    History,
    QueryError,
    SearchQuery,
    UnknownSession,
    WorkspaceError,
)
from deja.settings import SettingError
from deja.units import ago, human_size

from . import render
from .progress import ProgressBar


class CliError(Exception):
    """One clear line on stderr and a non-zero exit."""


class UsageError(Exception):
    """A command line argparse refuses; raised, so that a `--json` run can answer in JSON."""

    def __init__(self, parser: argparse.ArgumentParser, message: str) -> None:
        super().__init__(message)
        self.parser = parser
        self.message = message


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(self, message)


class _Version(argparse.Action):
    """`--version`, read from the package's metadata only when asked (start-up cost)."""

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        print(f"deja {package_version()}")
        parser.exit()


def package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("deja")
    except PackageNotFoundError:
        from deja import __version__

        return __version__


def _since(value: str) -> float:
    """`7d`, `12h`, `30m`, `2w` ago, or a date `2026-11-01`."""
    match = re.fullmatch(r"(\d+)([mhdw])", value.strip())
    if match:
        unit = {"m": 60, "h": 3_600, "d": 86_400, "w": 604_800}[match.group(2)]
        return time.time() - int(match.group(1)) * unit
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{value!r} is not a duration (7d, 12h) or a date (2026-11-01)"
        ) from None
    return (parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)).timestamp()


def _positive(value: str) -> int:
    number = int(value)
    if number < 0:
        raise argparse.ArgumentTypeError("must be 0 or more")
    return number


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="deja", description="Search and recall your Continue sessions.")
    parser.add_argument("--version", action=_Version, nargs=0, help="print deja's version")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    def command(name: str, help_text: str, *, json: bool = True) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help_text, description=help_text)
        if json:
            sub.add_argument("--json", action="store_true", help="print a versioned JSON envelope")
        return sub

    def scoped(sub: argparse.ArgumentParser) -> None:
        group = sub.add_mutually_exclusive_group()
        group.add_argument("--all", action="store_true", help="every workspace")
        group.add_argument(
            "--workspace",
            metavar="DIR",
            help="sessions of this workspace: a folder in it, or the end of its path (myproj)",
        )

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

    sub = command("search", "search every session")
    sub.add_argument(
        "query",
        nargs="*",
        help='words (all must match), "exact phrase", prefix*, -exclude or NOT word, a OR b',
    )
    scoped(sub)
    sub.add_argument("--role", choices=SEARCH_ROLES)
    sub.add_argument(
        "--file", metavar="PATH", help="only records about this file (found as blame finds it)"
    )
    sub.add_argument("--session", metavar="ID")
    sub.add_argument("--since", type=_since, metavar="7d|2026-11-01")
    sub.add_argument("--limit", type=_positive, default=10)
    sub.add_argument("--offset", type=_positive, default=0)

    sub = command("sessions", "list sessions, newest first")
    scoped(sub)
    sub.add_argument("--limit", type=_positive, default=20)
    sub.add_argument("--offset", type=_positive, default=0)

    sub = command("show", "show a session as indexed, compacted turns included")
    sub.add_argument("session_id", metavar="ID")
    sub.add_argument("--turn", type=_positive)
    sub.add_argument(
        "--full", action="store_true", help="with command and tool output and edit diffs"
    )

    sub = command("blame", "every recorded edit, write and read of a file")
    sub.add_argument("path", metavar="PATH")
    sub.add_argument("--line", type=int, metavar="N", help="only edits covering line N (1-based)")
    sub.add_argument("--limit", type=_positive, default=50)

    command("stats", "what the index holds")

    sub = command("forget", "remove sessions from the index for good, or undo that")
    group = sub.add_mutually_exclusive_group(required=True)
    group.add_argument("--session", metavar="ID")
    group.add_argument("--workspace", metavar="DIR")
    group.add_argument("--list", action="store_true", help="what was forgotten, and when")
    group.add_argument(
        "--undo", metavar="ID|DIR", help="forget no more: the next pass indexes it again"
    )
    sub.add_argument(
        "--dry-run", action="store_true", help="list what would be forgotten; change nothing"
    )

    for module in _plugin_modules():
        module.add_parser(command)
    return parser


# Commands that live in their own modules (`deja/cli/<name>_command.py`). Each module exposes
# `NAME`, `add_parser(command)` and `run(args) -> int` (opening `History` itself if it needs it)
# and imports heavy libraries (pygls, mcp) inside `run` only, so `deja search` never pays for them.
PLUGIN_COMMANDS: tuple[str, ...] = (
    "restore",
    "serve",
    "mcp",
    "install",
    "uninstall",
    "resume",
    "handoff",
)


def _plugin_modules() -> list[Any]:
    return [importlib.import_module(f"deja.cli.{name}_command") for name in PLUGIN_COMMANDS]


def _open() -> History:
    return History()


def _pass(
    history: History, *, rebuild: bool = False, quiet: bool = False, accept_empty: bool = False
) -> PassReport:
    bar = ProgressBar(sys.stderr, enabled=not quiet)
    try:
        return history.refresh(rebuild=rebuild, progress=bar.update, accept_empty=accept_empty)
    finally:
        bar.finish()


def _implicit_pass(history: History) -> None:
    """The pass a command runs before it answers. A store that was not applied (missing or
    emptied) is said once on stderr; the answer comes from the index as it is."""
    report = _pass(history, quiet=True)
    if report.refused is not None:
        print(f"deja: note: {report.refused.message}; answering from the index", file=sys.stderr)


def _ensure_store(history: History) -> None:
    if not (history.root / "sessions").is_dir() and history.stats().sessions == 0:
        raise CliError(
            f"no Continue store at {history.root / 'sessions'} "
            "(set DEJA_CONTINUE_ROOT or CONTINUE_GLOBAL_DIR to where Continue keeps it)"
        )


def _emit(
    args: argparse.Namespace, command: str, lines: Callable[[], list[str]], **payload: object
) -> None:
    if args.json:
        sys.stdout.buffer.write(render.envelope(command, **payload))
    else:
        render.write_lines(lines())


def cmd_index(args: argparse.Namespace, history: History) -> int:
    _ensure_store(history)
    report = _pass(history, rebuild=args.rebuild, quiet=args.json, accept_empty=args.accept_empty)
    if report.refused is not None:
        raise CliError(report.refused.message)
    recovery = history.recovery

    def lines() -> list[str]:
        out = [
            f"{report.sessions} sessions in the store · {report.read} read · "
            f"{report.changed} changed · {report.kept} turns kept from compaction · "
            f"{report.deleted} marked deleted · {len(report.errors)} errors "
            f"({report.seconds:.2f} s)"
        ]
        out += [f"error: {d.path}: {d.message}" for d in report.errors]
        if recovery:
            out += [f"note: {recovery.message}", f"note: {recovery.lost}"]
        return out

    _emit(
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


def cmd_search(args: argparse.Namespace, history: History) -> int:
    _ensure_store(history)
    _implicit_pass(history)
    choice = history.scope_for(all_workspaces=args.all, workspace=args.workspace)
    session = history.resolve_session(args.session) if args.session else None
    query = SearchQuery(
        text=" ".join(args.query),
        scope=choice.scope,
        role=args.role,
        file=args.file,
        session=session,
        since=args.since,
        limit=args.limit,
        offset=args.offset,
    )
    result = history.search(query)
    notes = list(choice.notes)
    if result.approximate:
        fixes = ", ".join(f"{a} → {b}" for a, b in result.corrections.items())
        notes.append(f"no exact match; approximate hits ({fixes})")
    style = render.Style(sys.stdout)
    now = time.time()

    def lines() -> list[str]:
        out = [style.dim(f"note: {note}") for note in notes]
        if not result.total:
            filters = {"role": args.role, "file": args.file, "session": args.session}
            out.append(render.nothing_found(query.text, choice.scope.label, filters, args.since))
        for hit in result.hits:
            out += render.hit_lines(hit, style, now)
        page = render.page_note("hits", len(result.hits), args.offset, result.total)
        return out + ([style.dim(page)] if page else [])

    _emit(
        args,
        "search",
        lines,
        query=query.text,
        scope=choice.scope.label,
        approximate=result.approximate,
        notes=notes,
        total=result.total,
        hits=[render.hit_json(hit) for hit in result.hits],
    )
    return 0


def cmd_sessions(args: argparse.Namespace, history: History) -> int:
    _ensure_store(history)
    _implicit_pass(history)
    choice = history.scope_for(all_workspaces=args.all, workspace=args.workspace)
    summaries = history.sessions(choice.scope, args.limit, args.offset)
    total = history.count_sessions(choice.scope)
    style = render.Style(sys.stdout)
    now = time.time()

    def lines() -> list[str]:
        out = [style.dim(f"note: {note}") for note in choice.notes]
        for summary in summaries:
            out += render.session_lines(summary, style, now)
        if not total:
            out.append(f"no sessions in {choice.scope.label}")
        page = render.page_note("sessions", len(summaries), args.offset, total)
        return out + ([style.dim(page)] if page else [])

    _emit(
        args,
        "sessions",
        lines,
        scope=choice.scope.label,
        notes=choice.notes,
        total=total,
        sessions=[render.session_json(s) for s in summaries],
    )
    return 0


def cmd_show(args: argparse.Namespace, history: History) -> int:
    _implicit_pass(history)
    view = history.show(args.session_id, args.turn)
    if args.turn is not None and not view.records:
        raise CliError(f"session {view.session.id} has no turn {args.turn}")
    style = render.Style(sys.stdout)
    _emit(
        args,
        "show",
        lambda: render.show_lines(view, style, full=args.full),
        session=render.session_json(view.session),
        records=[render.record_json(r) for r in view.records],
    )
    return 0


def cmd_blame(args: argparse.Namespace, history: History) -> int:
    _implicit_pass(history)
    events = history.file_history(args.path, limit=args.limit)
    if args.line is not None:
        path = Path(args.path)
        try:
            document = path.read_text(encoding="utf-8", errors="replace")
        except OSError as error:
            raise CliError(f"cannot read {path} to find line {args.line}: {error}") from None
        events = history.edits_at_line(events, document, args.line - 1)
    style = render.Style(sys.stdout)
    now = time.time()

    def lines() -> list[str]:
        if not events:
            return [f"no recorded edits, writes or reads of {args.path}"]
        out: list[str] = []
        for event in events:
            out += render.event_lines(event, style, now)
        return out

    _emit(
        args,
        "blame",
        lines,
        path=args.path,
        line=args.line,
        events=[render.event_json(e) for e in events],
    )
    return 0


def cmd_stats(args: argparse.Namespace, history: History) -> int:
    stats = history.stats()

    def lines() -> list[str]:
        ratio = (
            f" ({stats.index_bytes / stats.store_bytes:.0%} of the store)"
            if stats.store_bytes
            else ""
        )
        return [
            f"sessions: {stats.sessions} ({stats.deleted_sessions} deleted from the store)",
            f"records: {stats.records} ({stats.compacted_records} compacted: only Deja has them)",
            f"index: {human_size(stats.index_bytes)}{ratio} at {stats.index_path}",
            f"store: {human_size(stats.store_bytes)} at {stats.store_path}",
            f"last change indexed: {render.iso(stats.last_pass) or 'never'}",
        ]

    _emit(args, "stats", lines, **render.stats_json(stats))
    return 0


def cmd_forget(args: argparse.Namespace, history: History) -> int:
    if args.dry_run and not (args.session or args.workspace):
        raise CliError("--dry-run goes with --session or --workspace")
    if args.list:
        return _forget_list(args, history)
    if args.undo:
        tomb = history.unforget(args.undo)
        message = (
            f"{tomb.kind} {tomb.value} is no longer forgotten: the next pass indexes what"
            " Continue's store holds of it (what only Deja had kept is gone)"
        )
        _emit(args, "forget", lambda: [message], undone=render.tombstone_json(tomb))
        return 0
    _implicit_pass(history)  # what the store holds now is what there is to forget
    targets = history.forget_preview(session=args.session, workspace=args.workspace)
    now = time.time()
    payload: dict[str, object] = {
        "dry_run": args.dry_run,
        "targets": [render.session_json(s) for s in targets],
    }
    if args.session:
        payload["session"] = targets[0].id
        message = (
            f"forgot session {targets[0].id}; later passes will not bring it back"
            f" (deja forget --undo {render.short_id(targets[0].id)} would)"
        )
        if not args.dry_run:
            history.forget_session(targets[0].id)
    else:
        payload |= {"workspace": args.workspace, "sessions": len(targets)}
        message = (
            f"forgot {len(targets)} sessions of {args.workspace}; "
            "later passes will not index that workspace"
        )
        if not args.dry_run:
            history.forget_workspace(args.workspace)

    def lines() -> list[str]:
        if not args.dry_run:
            return [message]
        what = f"session {targets[0].id}" if args.session else f"{len(targets)} sessions"
        later = "" if args.session else f", and keep later sessions of {args.workspace} out"
        out = [f"would forget {what}{later} (nothing changed):"]
        for s in targets:
            out.append(
                f"  {render.short_id(s.id)}  {s.title} · {s.workspace or '-'} · last active "
                f"{ago(s.last_active, now)} · {s.message_count} messages"
            )
        return out

    _emit(args, "forget", lines, **payload)
    return 0


def _forget_list(args: argparse.Namespace, history: History) -> int:
    tombs = history.tombstones()

    def lines() -> list[str]:
        if not tombs:
            return ["nothing forgotten"]
        out = [f"forgotten ({len(tombs)}), oldest first; deja forget --undo ID|DIR takes one back:"]
        out += [f"  {t.kind:<9}  {t.value}  since {render.iso(t.created)}" for t in tombs]
        return out

    _emit(args, "forget", lines, tombstones=[render.tombstone_json(t) for t in tombs])
    return 0


HANDLERS: dict[str, Callable[[argparse.Namespace, History], int]] = {
    "index": cmd_index,
    "search": cmd_search,
    "sessions": cmd_sessions,
    "show": cmd_show,
    "blame": cmd_blame,
    "stats": cmd_stats,
    "forget": cmd_forget,
}


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    try:
        args, extra = parser.parse_known_args(words)
        if extra and args.command == "search" and all(word.startswith("-") for word in extra):
            args.query += extra  # `-word` excludes a word: a query term, not an option
        elif extra:
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
    except UsageError as error:
        if "--json" in words:
            named = next((word for word in words if not word.startswith("-")), None)
            command = named if named in HANDLERS or named in PLUGIN_COMMANDS else None
            return json_error(command, error.message, 2)
        error.parser.print_usage(sys.stderr)
        print(f"{error.parser.prog}: error: {error.message}", file=sys.stderr)
        return 2
    if args.command is None:
        parser.print_help()
        return 2
    json_command = args.command if getattr(args, "json", False) else None
    found = HANDLERS.get(args.command)
    if found is None:
        plugin = next(m for m in _plugin_modules() if args.command == m.NAME)
        return run_guarded(lambda: int(plugin.run(args)), json_command=json_command)
    handler = found

    def run() -> int:
        try:
            history = _open()
        except OSError as error:
            raise CliError(f"cannot open the index: {error}") from None
        try:
            return handler(args, history)
        finally:
            history.close()

    return run_guarded(run, json_command=json_command)


def json_error(command: str | None, message: str, code: int) -> int:
    """A `--json` run's failure: the envelope with `error` on stdout, so scripts parse one form."""
    sys.stdout.buffer.write(render.envelope(command, error={"message": message}))
    sys.stdout.flush()
    return code


def run_guarded(action: Callable[[], int], *, json_command: str | None = None) -> int:
    """Known failures become one line on stderr and exit 1; with `json_command` (the command
    was given `--json`), a JSON envelope on stdout instead."""
    try:
        return action()
    except (CliError, QueryError, UnknownSession, WorkspaceError, SettingError) as error:
        message = error.args[0] if error.args else str(error)
        if json_command:
            return json_error(json_command, message, 1)
        print(f"deja: {message}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 0
