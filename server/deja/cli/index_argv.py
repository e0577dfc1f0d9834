"""`deja index …` parsed without argparse (its import and parser building were a third of an
unchanged store's `deja index`), as `search_argv` does for a search. Exact or nothing: `parse`
answers only a command line made of the command's own flags spelt out in full, each of which
argparse reads the same way wherever it stands; anything else (`-h`, an abbreviation, a word)
is `None`, for `parser.py` to parse and say in its own words (tests/test_quiet_index.py
compares the namespaces)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    import argparse

# `commands/index.py`'s flags (all `store_true`) by their destination.
_FLAGS = {
    "--json": "json",
    "--rebuild": "rebuild",
    "--accept-empty": "accept_empty",
    "--switch-store": "switch_store",
}


def parse(words: list[str]) -> argparse.Namespace | None:
    """The namespace argparse would give `words`, or None (let argparse parse them)."""
    if words[:1] != ["index"] or not all(word in _FLAGS for word in words[1:]):
        return None
    values = {"command": "index", "version": None, **dict.fromkeys(_FLAGS.values(), False)}
    values.update((_FLAGS[word], True) for word in words[1:])
    return cast("argparse.Namespace", SimpleNamespace(**values))
