"""`deja`'s argparse parser: every command's subparser, and its usage errors raised (so that a
`--json` run can answer them in JSON). `main` loads it for every run `search_argv` declines."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import NoReturn

from . import commands
from .common import json_error


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


def build_parser(words: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser for `words`: when they start with a command, only that command's module is
    loaded (start-up cost); otherwise (`--help`, a typo, tests) every command's."""
    parser = _Parser(prog="deja", description="Search and recall your Continue sessions.")
    parser.add_argument("--version", action=_Version, nargs=0, help="print deja's version")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")

    def command(name: str, help_text: str, *, json: bool = True) -> argparse.ArgumentParser:
        sub = subparsers.add_parser(name, help=help_text, description=help_text)
        if json:
            sub.add_argument("--json", action="store_true", help="print a versioned JSON envelope")
        return sub

    invoked = words[0] if words and words[0] in commands.NAMES else None
    for name in (invoked,) if invoked else commands.NAMES:
        commands.load(name).add_parser(command)
    return parser


def parse(words: list[str]) -> argparse.Namespace | int:
    """The parsed command line, or the exit code of a run that ends here: a usage error (said on
    stderr, or as a JSON envelope under `--json`: 2) or no command (the help: 2)."""
    from . import dash_words

    parser = build_parser(words)
    # `-word` in free text is a word, never an option (`-hello` is not `-h ello`).
    shown, hidden = dash_words.hide(list(words))
    try:
        args, extra = parser.parse_known_args(shown)
        extra = dash_words.reveal(args, extra, hidden)
        if extra and args.command == "search" and all(word.startswith("-") for word in extra):
            args.query += extra
        elif extra:
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
    except UsageError as error:
        error.message = dash_words.revealed(error.message, hidden)
        if "--json" in words:
            named = next((word for word in words if not word.startswith("-")), None)
            return json_error(named if named in commands.NAMES else None, error.message, 2)
        error.parser.print_usage(sys.stderr)
        print(f"{error.parser.prog}: error: {error.message}", file=sys.stderr)
        return 2
    if args.command is None:
        parser.print_help()
        return 2
    return args
