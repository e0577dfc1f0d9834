"""The types of `deja`'s option values (`options.py` names them): each converts a word or
raises what argparse says as the error. argparse is loaded only for an error (the fast path
parses without it)."""

from __future__ import annotations


def number(value: str) -> int | str:
    """A whole number, or the word itself: a request's field (`deja.operations`) refuses it in
    the words every door uses, so `--limit x` reads as `"limit": "x"` does over JSON."""
    try:
        return int(value)
    except ValueError:
        return value


def since(value: str) -> float:
    """`7d`, `12h`, `30m`, `2w` ago, or a date `2026-11-01`."""
    from deja.query import QueryError
    from deja.query.since import parse_since

    try:
        return parse_since(value)
    except QueryError as error:
        import argparse  # here: a plain `deja search` parses without it (fast_argv)

        raise argparse.ArgumentTypeError(error.message) from None


def count(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        import argparse

        raise argparse.ArgumentTypeError(f"{value!r} is not a number") from None
    if number < 0:
        import argparse

        raise argparse.ArgumentTypeError("must be 0 or more")
    return number


def _port(value: str) -> int:  # argparse names it in its error: "invalid _port value"
    port = int(value)
    if not 1 <= port <= 65535:
        import argparse

        raise argparse.ArgumentTypeError("a port is 1–65535")
    return port


port = _port  # argparse names the function in its error: "invalid _port value: 'x'"
