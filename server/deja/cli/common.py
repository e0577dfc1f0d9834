"""What every `deja` command shares: the error it raises, the pass before it answers, its
output (lines or a JSON envelope). Light: `deja search` loads this."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from deja.errors import DejaError
from deja.query import History

from .progress import ProgressBar

TYPE_CHECKING = False  # not `typing`'s: start-up (tests/cli/test_cli_startup.py)
if TYPE_CHECKING:
    import argparse
    from typing import Any

    from deja.index import PassReport
    from deja.operations import R


class CliError(DejaError):
    """A command's own user error: one clear line on stderr and exit 1, as every `DejaError`."""


@contextmanager
def opened_history() -> Iterator[History]:
    """The index, opened; a recovery it took said on stderr; an error about the index file
    (damaged, cannot be written) made one line."""
    try:
        history = History()
    except OSError as error:
        raise CliError(f"cannot open the index: {error}") from None
    if history.recovery is not None:
        print(f"deja: note: {history.recovery.said()}", file=sys.stderr)
    try:
        yield history
    except Exception as error:
        said = history.user_error(error)
        if said is None:
            raise
        raise said from None
    finally:
        history.close()


def run_pass(
    history: History,
    *,
    rebuild: bool = False,
    quiet: bool = False,
    accept_empty: bool = False,
    switch_store: bool = False,
    wait: bool = True,
) -> PassReport:
    bar = ProgressBar(sys.stderr, enabled=not quiet)
    try:
        return history.refresh(
            rebuild=rebuild,
            progress=bar.update,
            accept_empty=accept_empty,
            switch_store=switch_store,
            wait=wait,
        )
    finally:
        bar.finish()


INDEXING_ELSEWHERE = (
    "another Deja process is indexing Continue's store; "
    "this answer comes from what is indexed so far"
)


def implicit_pass(history: History) -> None:
    """The pass a command runs before it answers. A store that was not applied (missing,
    emptied or another), an index that cannot be written (full disk, read-only home), or a pass
    running in another process (a first index) is said once on stderr; the answer comes from
    the index as it is. A store the last pass saw as it is now needs none (what keeps `deja
    search` quick)."""
    if history.store_unchanged():
        return
    from deja.index import IndexBusy
    from deja.index.faults import IndexUnwritable

    try:
        report = run_pass(history, quiet=True, wait=False)
    except IndexBusy:
        print(f"deja: note: {INDEXING_ELSEWHERE}", file=sys.stderr)
        return
    except IndexUnwritable as error:
        print(f"deja: note: {error.message}; answering from the index as it is", file=sys.stderr)
        return
    if report.refused is None:
        return
    refused = report.refused.message
    if report.refused.problem != "other":  # that message says it already
        refused += "; answering from the index"
    print(f"deja: note: {refused}", file=sys.stderr)


def ensure_store(history: History) -> None:
    folder = os.path.join(history.root_dir, "sessions")
    if not os.path.isdir(folder) and history.stats().sessions == 0:
        raise CliError(
            f"no Continue store at {history.root / 'sessions'} "
            "(set DEJA_CONTINUE_ROOT or CONTINUE_GLOBAL_DIR to where Continue keeps it)"
        )


def envelope(command: str | None, **payload: Any) -> bytes:
    from deja import jsonlib  # only under `--json`: orjson's import costs every start ~10 ms
    from deja.wire import JSON_SCHEMA  # with the search's types (`re`): not a quiet index's

    return (
        jsonlib.dumps({"schema": JSON_SCHEMA, "command": command, **payload}, indent=True) + b"\n"
    )


def emit(
    args: argparse.Namespace, command: str, lines: Callable[[], list[str]], **payload: object
) -> None:
    """The answer: the JSON envelope under `--json`, else the lines (built only then)."""
    if args.json:
        sys.stdout.buffer.write(envelope(command, **payload))
    else:
        # Not `render.write_lines`: `render` loads the search's types, off `deja index`'s path.
        out = lines()
        sys.stdout.write("\n".join(out) + ("\n" if out else ""))


def json_error(command: str | None, message: str, code: int) -> int:
    """A `--json` run's failure: the envelope with `error` on stdout, so scripts parse one form."""
    sys.stdout.buffer.write(envelope(command, error={"message": message}))
    sys.stdout.flush()
    return code


def as_request(kind: type[R], args: argparse.Namespace, **given: Any) -> R:
    """The command's typed request (`deja.operations`), a refusal naming the option as typed."""
    from deja.operations import from_options

    from .options import spelled

    return from_options(kind, args, spelled(args.command), **given)
