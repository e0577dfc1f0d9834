"""Every `deja` command's options, stated once: `parser.py` builds argparse's parser from this
table, `fast_argv.py` reads a plain command line from it without argparse, `reference.py` writes
docs/cli.md from it. Light on purpose (no argparse, no command module, no dataclasses): `deja
--help` and `--version` read the names and one-line helps here and load nothing else.

What is only known below the front door (a query's roles, the default shell) is a `Ref`,
resolved when a parser is built for that command."""

from __future__ import annotations

import importlib

from .arg_types import count, number, port, since

TYPE_CHECKING = False  # `typing` is not loaded on `--version`'s and `--help`'s path
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any


class Ref:
    """`module.name` (called when `call`), looked up only when a parser needs it."""

    __slots__ = ("call", "module", "name")

    def __init__(self, module: str, name: str, call: bool = False) -> None:
        self.module, self.name, self.call = module, name, call

    def get(self) -> Any:
        value = getattr(importlib.import_module(self.module), self.name)
        return value() if self.call else value


class Arg:
    """One argument, as `add_argument` takes it (`flag`: `store_true`; `group`: a mutually
    exclusive group, by name)."""

    __slots__ = ("choices", "default", "flag", "group", "help", "metavar", "names", "nargs", "type")

    def __init__(
        self,
        names: tuple[str, ...],
        help: str | None = None,
        flag: bool = False,
        type: Callable[[str], Any] | None = None,
        choices: Sequence[str] | Ref | None = None,
        default: Any = None,
        metavar: str | None = None,
        nargs: str | None = None,
        group: str | None = None,
    ) -> None:
        self.names, self.help, self.flag, self.type = names, help, flag, type
        self.choices, self.default, self.metavar = choices, default, metavar
        self.nargs, self.group = nargs, group


class Command:
    """A command: its one-line help, arguments, `--json` unless told (on a sub-command, one
    neither listed nor set unless given), the exclusive groups one of whose members must be
    given, and its own sub-commands (`team`'s actions)."""

    __slots__ = ("actions", "args", "help", "json", "name", "required")

    def __init__(
        self,
        name: str,
        help: str,
        args: tuple[Arg, ...] = (),
        json: bool = True,
        required: tuple[str, ...] = (),
        actions: tuple[Command, ...] = (),
    ) -> None:
        self.name, self.help, self.args, self.json = name, help, args, json
        self.required, self.actions = required, actions


def package_version() -> str:
    """The one version, `deja.__version__` (read without `importlib.metadata`: start-up cost;
    tests/cli/test_cli_reference.py holds pyproject.toml's equal to it)."""
    from deja import __version__

    return __version__


def flag(*names: str, help: str | None = None, group: str | None = None) -> Arg:
    return Arg(names, help, flag=True, default=False, group=group)


def option(*names: str, **kw: Any) -> Arg:
    return Arg(names, **kw)


ID_HELP = "a session id (or 8+ characters of one)"
# `--all` or `--workspace DIR`: which sessions a listing or a search covers.
SCOPE = (
    flag("--all", help="every workspace", group="scope"),
    option(
        "--workspace",
        metavar="DIR",
        help="sessions of this workspace: a folder in it, or the end of its path (myproj)",
        group="scope",
    ),
)
SHELL = option(
    "--shell",
    choices=Ref("deja.query.handoff", "SHELLS"),
    default=Ref("deja.query.handoff", "default_shell", call=True),
    help="the shell the printed line is for (default: powershell on Windows, else posix)",
)
TARGET = (
    option("target", choices=("continue",), help="the assistant to wire (continue)"),
    flag("--dry-run", help="print the diff, change nothing"),
)
TEAM_ACTIONS = (
    Command(
        "connect",
        "store the team connection; create its schema",
        (
            option("dsn", metavar="DSN", help="libpq connection string or URI, no password"),
            option("--name", metavar="ME", help="the name team hits show for you"),
        ),
    ),
    *(
        Command(
            name,
            f"{verb} these workspaces' sessions",
            (option("workspaces", nargs="+", metavar="WORKSPACE"),),
        )
        for name, verb in (("share", "push"), ("unshare", "stop pushing (and erase)"))
    ),
    Command("push", "send the shared workspaces' records; erase the unshared"),
    *(
        Command(
            name,
            f"{verb} PROJECT's rows (the owner role runs it)",
            (option("project", metavar="PROJECT"), option("role", metavar="ROLE")),
        )
        for name, verb in (("grant", "let ROLE read"), ("revoke", "stop ROLE reading"))
    ),
    Command("status", "the connection, the shared workspaces, the grants"),
)

COMMANDS: tuple[Command, ...] = (  # in the order `deja --help` lists them
    Command(
        "index",
        "bring the index up to date with Continue's store",
        (
            flag("--rebuild", help="re-derive everything from the store (keeps compacted turns)"),
            flag(
                "--accept-empty",
                help="apply a store that lists no session file: mark every indexed session deleted",
            ),
            flag(
                "--switch-store",
                help="follow the Continue store now set (DEJA_CONTINUE_ROOT, CONTINUE_GLOBAL_DIR)"
                " from now on; the other store's sessions stay, marked deleted",
            ),
        ),
    ),
    Command(
        "search",
        "search every session",
        (
            option(
                "query",
                nargs="*",
                help='words (all must match), "exact phrase", prefix*, -exclude or NOT word,'
                " a OR b",
            ),
            *SCOPE,
            option("--role", choices=Ref("deja.query.search", "SEARCH_ROLES")),
            option(
                "--file",
                metavar="PATH",
                help="only records about this file (found as blame finds it)",
            ),
            option("--session", metavar="ID"),
            option("--since", type=since, metavar="7d|2026-11-01"),
            option("--limit", type=number, default=10),
            option("--offset", type=number, default=0),
            flag("--team", help="search the team database (deja team)"),
            flag("--interactive", help="open the history screen on it"),
            option("--project", metavar="NAME", help="with --team: only this project"),
        ),
    ),
    Command(
        "sessions",
        "list sessions, newest first",
        (
            *SCOPE,
            option("--limit", type=number, default=20),
            option("--offset", type=number, default=0),
            flag(
                "--lost",
                help="only sessions whose file is gone or was compacted, with the turns only Deja"
                " holds",
            ),
        ),
    ),
    Command(
        "show",
        "show a session as indexed, compacted turns included",
        (
            option("session_id", metavar="ID"),
            option("--turn", type=number),
            flag("--full", help="with command and tool output and edit diffs"),
        ),
    ),
    Command(
        "blame",
        "every recorded edit, write and read of a file",
        (
            option("path", metavar="PATH"),
            option(
                "--line",
                type=int,
                metavar="N",
                help="the edits that wrote line N (1-based) as it is now",
            ),
            option("--limit", type=number, default=50),
            flag("--team", help="PATH relative to its workspace, across members"),
        ),
    ),
    Command(
        "fix",
        "what fixed this error before: past failures like it and their fixes",
        (
            option("error", nargs="+", metavar="TEXT", help="the error text; - reads stdin"),
            option("--workspace", metavar="DIR", help="only this workspace's sessions"),
            option("--limit", type=number, default=5),
        ),
    ),
    Command(
        "files",
        "the files the sessions matching a topic edited, wrote or read",
        (
            option("topic", nargs="+", metavar="TOPIC", help="words, as deja search takes them"),
            *SCOPE,
            option("--limit", type=number, default=20),
        ),
    ),
    Command("stats", "what the index holds"),
    Command(
        "forget",
        "remove sessions from the index for good, or undo that",
        (
            option("--session", metavar="ID", group="what"),
            option("--workspace", metavar="DIR", group="what"),
            flag("--list", help="what was forgotten, and when", group="what"),
            option(
                "--undo",
                metavar="ID|DIR",
                help="forget no more: the next pass indexes it again",
                group="what",
            ),
            flag("--dry-run", help="list what would be forgotten; change nothing"),
        ),
        required=("what",),
    ),
    Command(
        "restore",
        "earlier context back as a compact transcript, compacted turns included",
        (
            option(
                "selection",
                nargs="*",
                metavar="SELECTION",
                help="1,3 · 1-4 · 0 (the current session) · last; add ': topic' to show the turns"
                " most relevant to it in full. Nothing: list the sessions",
            ),
            option("--session", metavar="ID", help="restore this session (id or 8+ characters)"),
            flag("--all", help="every workspace, not just this one"),
            option(
                "--limit", type=count, default=20, metavar="N", help="sessions listed (default 20)"
            ),
            option(
                "--offset", type=count, default=0, metavar="N", help="skip this many in the listing"
            ),
        ),
    ),
    Command(
        "recover",
        "write a session Continue lost back into Continue, as a new session",
        (
            option("session_id", metavar="ID", help=ID_HELP),
            flag("--dry-run", help="show the file and the sessions.json change only"),
            flag("--copy", help="write it even when Continue still holds it whole"),
        ),
    ),
    Command(
        "export",
        "export a session as Markdown, JSON or a self-contained HTML page",
        (
            option("session_id", metavar="ID", help=ID_HELP),
            option(
                "--format",
                metavar="{md,html,json}",  # checked by the request, as the sidecar's is
                help="md (as show --full), json (the wire shape, versioned) or html; default:"
                " from the -o file's extension, else md",
            ),
            option("-o", "--output", metavar="FILE", help="write to FILE instead of stdout"),
        ),
        json=False,
    ),
    Command(
        "serve",
        "run the language server editors talk to (stdio by default)",
        (
            option(
                "--tcp",
                type=port,
                metavar="PORT",
                help="listen on 127.0.0.1:PORT instead of stdio (for debugging; never other"
                " addresses)",
            ),
        ),
        json=False,
    ),
    Command(
        "mcp", "serve Deja's read-only recall tools over MCP on stdio (for Continue)", json=False
    ),
    Command(
        "capture",
        "index one session now (the PreCompact hook runs this)",
        (
            option(
                "session",
                nargs="?",
                metavar="ID|PATH",
                help="a session id or its file; without it, a hook's JSON on stdin names the"
                " session",
            ),
        ),
        json=False,
    ),
    Command(
        "install",
        "wire Deja into Continue: its MCP server, the /deja prompt and a skill",
        (
            *TARGET,
            option(
                "--mcp-pythonpath",
                metavar="PATHS",
                help="start the MCP server with this PYTHONPATH (the VS Code extension's bundled"
                " Deja)",
            ),
        ),
    ),
    Command("uninstall", "remove what `deja install` added to Continue, nothing else", TARGET),
    Command(
        "resume",
        "print `cd WORKSPACE && cn --fork ID` to continue a past session",
        (
            option("session_id", metavar="ID", help=ID_HELP),
            flag("--exec", help="run it, attached to this terminal"),
            SHELL,
        ),
    ),
    Command(
        "handoff",
        "print `cn '<digest>'`: a new session that starts from a past one",
        (
            option("session_id", metavar="ID", help=ID_HELP),
            flag("--exec", help="start cn with it, in this terminal"),
            SHELL,
        ),
    ),
    Command("doctor", "check the store, the index, Continue's wiring and the sidecar; say fixes"),
    Command(
        "team",
        "team history on PostgreSQL: connect, share, push, grant",
        actions=TEAM_ACTIONS,
    ),
)
NAMES: tuple[str, ...] = tuple(command.name for command in COMMANDS)
BY_NAME: dict[str, Command] = {command.name: command for command in COMMANDS}


def spelled(command: str) -> dict[str, str]:
    """Each option's destination and how a user types it (`limit` → `--limit`): a refusal
    names the option as the command line spells it."""
    found = BY_NAME.get(command)
    args = found.args if found is not None else ()
    return {
        names[0][2:].replace("-", "_"): names[0]
        for names in ([n for n in arg.names if n.startswith("--")] for arg in args)
        if names
    }
