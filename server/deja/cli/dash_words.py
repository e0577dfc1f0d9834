"""Words of free text that start with `-`: a search's or a topic's `-word` (exclude a word) and an
error text's `-bash:`. argparse reads each as an option (`-hello` as `-h ello`, help) and dies;
these commands take them as words instead, in the place they were given. An option's value
stays with its option (`--limit -3` is argparse's to refuse)."""

from __future__ import annotations

import functools

TYPE_CHECKING = False  # no `typing` on the search path's start
if TYPE_CHECKING:
    from typing import Any

# The commands whose positional is free text, and its `dest`.
FREE_TEXT = {"search": "query", "files": "topic", "fix": "error"}


def is_dash_word(word: str) -> bool:
    """`-word`: a word, never an option (these commands have no short option but `-h`)."""
    return len(word) > 1 and word[0] == "-" and word[1] != "-" and word != "-h"


@functools.cache
def _takes_value(name: str) -> frozenset[str]:
    """The spellings of `name`'s options that take a value."""
    from .options import BY_NAME

    return frozenset(
        spelling
        for arg in BY_NAME[name].args
        if arg.names[0].startswith("-") and not arg.flag
        for spelling in arg.names
    )


def hide(words: list[str]) -> tuple[list[str], dict[str, str]]:
    """`words` with each dash word of a free-text command replaced by a placeholder argparse
    takes as a plain word (a NUL, which no command-line argument holds), and the placeholders."""
    if not words or words[0] not in FREE_TEXT:
        return words, {}
    takes_value = _takes_value(words[0])
    shown: list[str] = []
    hidden: dict[str, str] = {}
    value_next = False
    for at, word in enumerate(words):
        if word == "--":
            return shown + words[at:], hidden
        if is_dash_word(word) and not value_next:
            placeholder = f"\0{len(hidden)}"
            hidden[placeholder] = word
            shown.append(placeholder)
            continue
        shown.append(word)
        # An abbreviation argparse accepts takes its value too.
        value_next = word.startswith("--") and any(n.startswith(word) for n in takes_value)
    return shown, hidden


def reveal(args: Any, extra: list[str], hidden: dict[str, str]) -> list[str]:
    """Put the hidden words back into the command's free text (those argparse left over, as a
    second run of words, after it); the rest of `extra`."""
    if not hidden:
        return extra
    dest = FREE_TEXT[args.command]
    free = [*getattr(args, dest), *(word for word in extra if word in hidden)]
    setattr(args, dest, [hidden.get(word, word) for word in free])
    return [word for word in extra if word not in hidden]


def revealed(message: str, hidden: dict[str, str]) -> str:
    for placeholder, word in hidden.items():
        message = message.replace(placeholder, word)
    return message
