"""`deja`: the command line. A thin front door over the query API; imports the core alone.

Each command is a module of `cli/commands/`; a run imports only the one it runs. Its options
are stated once, in `options.py`: a plain `deja search …` or `deja index` is read from there by
`fast_argv` without loading argparse (start-up cost); every other command line goes through
`parser.py`'s argparse parser, built from the same table (for `--help`, a typo or no command:
the commands' names and helps only, no command module loaded)."""

from __future__ import annotations

import atexit
import gc
import os
import sys

from deja.errors import DejaError

from . import commands

TYPE_CHECKING = False  # `typing` (and `re`, which it loads) is not on `--version`'s path
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import NoReturn

    from .parser import UsageError, build_parser


def __getattr__(name: str) -> object:
    """`UsageError` and `build_parser`, from `parser.py` when asked for (it loads argparse)."""
    if name in ("UsageError", "build_parser"):
        from . import parser

        return getattr(parser, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def program() -> NoReturn:
    """The `deja` program (its console script and `python -m deja`): `main`, then exit. A search
    loads its modules with the cyclic collector paused (nothing it loads is garbage) and ends
    without the interpreter's teardown (a last collection over every object and the module
    cleanup, a visible share of a short run): its output flushed, its index closed, and what was
    registered with `atexit` run (tests/cli/test_search_argv.py). `deja index` ends the same way
    (tests/index/test_quiet_index.py)."""
    command = sys.argv[1:2]
    if sys.argv[1:] == ["mcp"]:  # `cn` waits for its handshake: no parser, no core loaded first
        sys.exit(commands.load("mcp").serve_now())
    if command not in (["search"], ["index"]):
        sys.exit(main())
    # The search command's imports create most of the objects this process will hold: no
    # collection while they load (each one rescans them), then out of the collector's sight.
    gc.disable()
    commands.load(command[0])
    gc.freeze()
    gc.enable()
    code = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except OSError:  # a closed pipe: the search said what it could
        pass
    atexit._run_exitfuncs()  # what an implicit pass registered (its reader pool's), as at exit
    os._exit(code)


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    if not words and sys.stdin.isatty() and sys.stdout.isatty():
        return run_guarded(_screen)  # bare `deja` on a terminal: the history screen
    if words == ["--version"]:
        from .options import package_version

        print(f"deja {package_version()}")
        return 0
    from . import fast_argv

    args = fast_argv.parse(words)
    if args is None:
        from .parser import parse

        parsed = parse(words)
        if isinstance(parsed, int):
            return parsed
        args = parsed
    json_command = args.command if getattr(args, "json", False) else None
    if getattr(args, "interactive", False):
        return run_guarded(lambda: _screen(args))
    run = commands.load(args.command).run
    return run_guarded(lambda: int(run(args)), json_command=json_command)


def _screen(args: object = None) -> int:
    """The interactive history screen (`deja.tui`: Textual loads only on this path)."""
    from deja.tui import run_screen

    if args is None:
        return run_screen()
    return run_screen(
        " ".join(getattr(args, "query", [])),
        all_workspaces=getattr(args, "all", False),
        workspace=getattr(args, "workspace", None),
        role=getattr(args, "role", None),
        since=getattr(args, "since", None),
    )


def run_guarded(action: Callable[[], int], *, json_command: str | None = None) -> int:
    """A user error (`DejaError`) becomes one line on stderr and its exit code (1, or 2 for a
    bad option value); with `json_command` (the command was given `--json`), a JSON envelope
    on stdout instead."""
    try:
        return action()
    except DejaError as error:
        if json_command:
            from .common import json_error

            return json_error(json_command, error.message, error.exit_code)
        print(f"deja: {error.message}", file=sys.stderr)
        return error.exit_code
    except BrokenPipeError:
        return 0


__all__ = ["UsageError", "build_parser", "main", "program", "run_guarded"]
