"""`deja search …` parsed without argparse, whose import and parser building are a large share
of a search's start-up. Exact or nothing: `parse` answers only a command line it reads as the
argparse parser would (the same namespace, tests/test_search_argv.py compares them), and `None`
for anything else — an unknown or abbreviated option, `--opt=value`, `-h`, `--`, a value that
starts with `-`, a bad value, `--all` with `--workspace`, words after an option run — so that
`parser.py` parses it and says every error in its own words. A `-word` (an exclusion) is a query
word, in the place it was given, on both paths (`dash_words`).

The options are not repeated here: they are read from `commands/search.py`'s own `add_parser`,
called with a recorder in place of argparse."""

from __future__ import annotations

import functools
from collections.abc import Callable
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, cast

from .dash_words import is_dash_word

if TYPE_CHECKING:
    import argparse


class _Unsupported(Exception):
    """An argument the recorder cannot mirror exactly: the fast path is then off."""


class _Option:
    def __init__(self, dest: str, flag: bool, kind: Callable[[str], Any] | None, choices: Any):
        self.dest, self.flag, self.kind, self.choices = dest, flag, kind, choices


class _Spec:
    """What `add_parser` declared: options by their exact spelling, the positional, defaults."""

    def __init__(self) -> None:
        self.options: dict[str, _Option] = {}
        self.defaults: dict[str, Any] = {}
        self.positional = ""
        self.exclusive: list[set[str]] = []

    def add_argument(self, *names: str, group: set[str] | None = None, **kw: Any) -> None:
        action = kw.pop("action", "store")
        kw.pop("help", None), kw.pop("metavar", None)
        if not names[0].startswith("-"):
            if self.positional or action != "store" or kw.pop("nargs", None) != "*" or kw:
                raise _Unsupported(names[0])
            self.positional = names[0]
            self.defaults[names[0]] = []
            return
        longs = [n for n in names if n.startswith("--")]
        dest = kw.pop("dest", None) or (longs or names)[0].lstrip("-").replace("-", "_")
        flag = action == "store_true"
        default = kw.pop("default", False if flag else None)
        kind, choices = kw.pop("type", None), kw.pop("choices", None)
        if kw or action not in ("store", "store_true") or isinstance(default, str):
            raise _Unsupported(dest)  # a string default would go through `type` too
        self.defaults[dest] = default
        for name in names:
            self.options[name] = _Option(dest, flag, kind, choices)
        if group is not None:
            group.add(dest)

    def add_mutually_exclusive_group(self, required: bool = False) -> _Group:
        if required:
            raise _Unsupported("a required group")
        self.exclusive.append(set())
        return _Group(self, self.exclusive[-1])


class _Group:
    def __init__(self, spec: _Spec, members: set[str]) -> None:
        self.spec, self.members = spec, members

    def add_argument(self, *names: str, **kw: Any) -> None:
        self.spec.add_argument(*names, group=self.members, **kw)


@functools.cache
def _spec() -> _Spec | None:
    from .commands import search

    spec = _Spec()

    def command(name: str, help_text: str, *, json: bool = True) -> _Spec:
        if json:
            spec.add_argument("--json", action="store_true")
        return spec

    try:
        search.add_parser(cast(Any, command))
    except _Unsupported:
        return None
    return spec if spec.positional else None


def parse(words: list[str]) -> argparse.Namespace | None:
    """The namespace argparse would give `words`, or None (let argparse parse them)."""
    spec = _spec() if words[:1] == ["search"] else None
    if spec is None:
        return None
    values = dict(spec.defaults, version=None, command="search")  # the top level's own two
    given: set[str] = set()
    runs = 0  # argparse reads one run of positional words; a second one is an error
    at, in_run = 1, False
    while at < len(words):
        word = words[at]
        if not word.startswith("-") or is_dash_word(word):  # `-word`: an exclusion, a word
            runs += not in_run
            if runs > 1:
                return None
            values[spec.positional] = [*values[spec.positional], word]
            at, in_run = at + 1, True
            continue
        option = spec.options.get(word)
        if option is None:
            return None
        in_run = False
        if option.flag:
            values[option.dest], at = True, at + 1
        else:
            if at + 1 >= len(words) or words[at + 1].startswith("-"):
                return None
            value = _converted(option, words[at + 1])
            if value is None:
                return None
            values[option.dest], at = value[0], at + 2
        given.add(option.dest)
    if any(len(group & given) > 1 for group in spec.exclusive):
        return None
    return cast("argparse.Namespace", SimpleNamespace(**values))


def _converted(option: _Option, text: str) -> tuple[Any] | None:
    """`(value,)` as argparse converts and checks it; None for what argparse would refuse."""
    try:
        value = option.kind(text) if option.kind else text
    except Exception:  # argparse's error for it, in its words, comes from parser.py
        return None
    if option.choices is not None and value not in option.choices:
        return None
    return (value,)
