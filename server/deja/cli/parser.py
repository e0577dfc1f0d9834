"""`deja`'s argparse parser: every command's subparser, and its usage errors raised (so that a
`--json` run can answer them in JSON), built from `options.COMMANDS`. `main` loads it for every
run `fast_argv` declines."""

from __future__ import annotations

import argparse
import os
import sys

from . import options

TYPE_CHECKING = False  # no `typing` on `--help`'s path
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any, NoReturn


class UsageError(Exception):
    """A command line argparse refuses; raised, so that a `--json` run can answer in JSON."""

    def __init__(self, parser: argparse.ArgumentParser, message: str) -> None:
        super().__init__(message)
        self.parser = parser
        self.message = message


class _Parser(argparse.ArgumentParser):
    def __init__(self, **kw: Any) -> None:
        super().__init__(formatter_class=_Formatter, **kw)

    def error(self, message: str) -> NoReturn:
        raise UsageError(self, message)


class _Formatter(argparse.HelpFormatter):
    """argparse's help, as wide as `shutil.get_terminal_size` says, without loading `shutil`
    (with the archive modules it loads, a large share of `--help`'s time)."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, width=_columns() - 2)


def _columns() -> int:
    """`shutil.get_terminal_size().columns`: `COLUMNS`, else the terminal's, else 80."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class _Version(argparse.Action):
    """`--version`: `deja.__version__` (`options.package_version`)."""

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        print(f"deja {options.package_version()}")
        parser.exit()


def build_parser(words: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser for `words` (`options.COMMANDS` made argparse's): only the command they name
    gets a parser of its own (start-up cost), the others their name and help (what `--help`
    lists and a typo is told); without `words` (tests), every command's."""
    parser = _Parser(prog="deja", description="Search and recall your Continue sessions.")
    parser.add_argument("--version", action=_Version, nargs=0, help="print deja's version")
    # The top level's options take no value: the first other word names the command.
    named = next((word for word in words or () if not word.startswith("-")), None)
    built: list[bool] = []

    def subparser(**kw: Any) -> _Parser:
        return _Parser(**kw) if built[-1] else _Listed()

    subparsers = parser.add_subparsers(
        dest="command",
        metavar="COMMAND",
        parser_class=subparser,  # type: ignore[call-overload]  # called as a factory: serves
    )
    for command in options.COMMANDS:
        built.append(words is None or command.name == named)
        sub = subparsers.add_parser(command.name, help=command.help, description=command.help)
        if built[-1]:
            _add_arguments(sub, command)
    return parser


class _Listed(_Parser):
    """A command that is listed, never parsed: its parser is not built (building each is a
    large share of `--help`'s time)."""

    def __init__(self) -> None:
        pass


def _add_arguments(sub: argparse.ArgumentParser, command: options.Command) -> None:
    if command.json:
        sub.add_argument("--json", action="store_true", help="print a versioned JSON envelope")
    groups: dict[str, argparse._MutuallyExclusiveGroup] = {}
    for arg in command.args:
        into: Any = sub
        if arg.group is not None:
            if arg.group not in groups:
                required = arg.group in command.required
                groups[arg.group] = sub.add_mutually_exclusive_group(required=required)
            into = groups[arg.group]
        into.add_argument(*arg.names, **_keywords(arg))
    if command.actions:
        actions = sub.add_subparsers(dest="action", required=True, metavar="ACTION")
        for action in command.actions:
            each = actions.add_parser(action.name, help=action.help)
            for arg in action.args:
                each.add_argument(*arg.names, **_keywords(arg))
            if action.json:  # `deja team push --json` as well as `team --json`
                each.add_argument(
                    "--json", action="store_true", default=argparse.SUPPRESS, help=argparse.SUPPRESS
                )


def _keywords(arg: options.Arg) -> dict[str, Any]:
    """`add_argument`'s keywords for `arg`: only those it states (argparse's own defaults stand)."""
    if arg.flag:
        return {"action": "store_true", "help": arg.help}
    given = {
        "help": arg.help,
        "type": arg.type,
        "choices": arg.choices.get() if isinstance(arg.choices, options.Ref) else arg.choices,
        "default": arg.default.get() if isinstance(arg.default, options.Ref) else arg.default,
        "metavar": arg.metavar,
        "nargs": arg.nargs,
    }
    return {key: value for key, value in given.items() if value is not None}


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
            from .common import json_error

            named = next((word for word in words if not word.startswith("-")), None)
            return json_error(named if named in options.BY_NAME else None, error.message, 2)
        error.parser.print_usage(sys.stderr)
        print(f"{error.parser.prog}: error: {error.message}", file=sys.stderr)
        return 2
    if args.command is None:
        parser.print_help()
        return 2
    return args
