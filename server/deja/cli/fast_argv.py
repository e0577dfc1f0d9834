"""A plain command line read from `options.COMMANDS` without argparse, whose import and parser
building are a large share of a short command's start-up (`deja search`, an unchanged `deja
index`). Exact or nothing: `parse` answers only a command line it reads as the argparse parser
would (the same namespace; tests/cli/test_search_argv.py compares them), and `None` for anything
else — an unknown or abbreviated option, `--opt=value`, `-h`, `--`, a value that starts with `-`,
a bad value, two options of one exclusive group, a second run of words — so that `parser.py`
parses it and says every error in its own words. A `-word` of free text (a search's exclusion)
is a word, in the place it was given, on both paths (`dash_words`).

A command is read here only when all its arguments are of the shapes read exactly: flags,
options with one value and no computed default, at most one positional of any number of words;
no sub-commands, no required group."""

from __future__ import annotations

import functools

from . import options
from .dash_words import FREE_TEXT, is_dash_word

TYPE_CHECKING = False  # no `typing` on the search path's start
if TYPE_CHECKING:
    from argparse import Namespace
    from typing import Any
else:
    from types import SimpleNamespace as Namespace  # argparse's, without argparse


class _Plan:
    """A command's arguments as the reader needs them: options by spelling, defaults."""

    def __init__(self, command: options.Command) -> None:
        self.options: dict[str, options.Arg] = {}
        self.dests: dict[str, str] = {}
        self.defaults: dict[str, Any] = {"json": False} if command.json else {}
        self.positional = ""
        self.groups: dict[str, set[str]] = {}
        for arg in command.args:
            if not arg.names[0].startswith("-"):
                self.positional = arg.names[0]
                self.defaults[self.positional] = []
                continue
            longs = [name for name in arg.names if name.startswith("--")]
            dest = (longs or list(arg.names))[0].lstrip("-").replace("-", "_")
            self.defaults[dest] = arg.default
            for name in arg.names:
                self.options[name], self.dests[name] = arg, dest
            if arg.group is not None:
                self.groups.setdefault(arg.group, set()).add(dest)
        if command.json:
            self.options["--json"], self.dests["--json"] = options.flag("--json"), "json"


def readable(command: options.Command) -> bool:
    """Whether every argument of `command` is of a shape `parse` reads exactly."""
    positionals = [arg for arg in command.args if not arg.names[0].startswith("-")]
    return (
        not command.actions
        and not command.required
        and len(positionals) <= 1
        and all(arg.nargs == "*" for arg in positionals)
        and not any(isinstance(arg.default, (str, options.Ref)) for arg in command.args)
    )


@functools.cache
def _plan(name: str) -> _Plan | None:
    command = options.BY_NAME.get(name)
    return _Plan(command) if command is not None and readable(command) else None


def parse(words: list[str]) -> Namespace | None:
    """The namespace argparse would give `words`, or None (let argparse parse them)."""
    plan = _plan(words[0]) if words else None
    if plan is None:
        return None
    values = dict(plan.defaults, version=None, command=words[0])  # the top level's own two
    free_text = words[0] in FREE_TEXT
    given: set[str] = set()
    runs = 0  # argparse reads one run of positional words; a second one is an error
    at, in_run = 1, False
    while at < len(words):
        word = words[at]
        if not word.startswith("-") or (free_text and is_dash_word(word)):
            runs += not in_run
            if runs > 1 or not plan.positional:
                return None
            values[plan.positional] = [*values[plan.positional], word]
            at, in_run = at + 1, True
            continue
        arg = plan.options.get(word)
        if arg is None:
            return None
        in_run = False
        dest = plan.dests[word]
        if arg.flag:
            values[dest], at = True, at + 1
        else:
            if at + 1 >= len(words) or words[at + 1].startswith("-"):
                return None
            value = _converted(arg, words[at + 1])
            if value is None:
                return None
            values[dest], at = value[0], at + 2
        given.add(dest)
    if any(len(group & given) > 1 for group in plan.groups.values()):
        return None
    return Namespace(**values)


def _converted(arg: options.Arg, text: str) -> tuple[Any] | None:
    """`(value,)` as argparse converts and checks it; None for what argparse would refuse."""
    try:
        value = arg.type(text) if arg.type else text
    except Exception:  # argparse's error for it, in its words, comes from parser.py
        return None
    choices = arg.choices.get() if isinstance(arg.choices, options.Ref) else arg.choices
    if choices is not None and value not in choices:
        return None
    return (value,)
