"""Reading a large pass's files in worker processes while this one writes the index.

Parsing, redacting, building records and making them into rows (`rows.py`: identifier parts,
hunks JSON, the stored body) is done by `READERS` workers reading ahead while the writer runs
SQL. With the rows made there, reading is the larger half of a cold pass's CPU, so one worker
left the writer waiting: two share it (the A/B is in bench/RESULTS.md's history). A worker costs a
fresh interpreter (`spawn`: the same on every system, no fork of a process holding an open
database) and pickling each session back, so only a pass with more than `PARALLEL_MIN_BYTES`
to read on a machine with more than one core uses them. At most `_AHEAD` sessions are read
ahead of the writer, which bounds memory. The index is the same either way
(`tests/index/test_reader_pool.py`), but for the order of the words in a record's `parts`, which
follows the string hashing and the splitter's caches of the process that made it (each worker
sees half of the sessions): the same words, so the same searches match."""

from __future__ import annotations

import os
import sys
from collections import deque
from collections.abc import Generator, Sequence
from functools import partial
from typing import TYPE_CHECKING

from deja.continue_store import SessionRef

from .insert_rows import PreparedRead, read_prepared

if TYPE_CHECKING:
    from concurrent.futures import Future

PARALLEL_MIN_BYTES = 64 * 1024 * 1024
READERS = 2
_AHEAD = 8


def refuse_in_starting_worker() -> None:
    """Raises while this process is a worker being started, re-running its parent's main script
    (one without an `if __name__ == "__main__"` guard): a pass there would wait for ever on the
    writer lock its parent holds, and the parent reads in process once the worker is gone."""
    process = sys.modules.get("multiprocessing.process")
    if process is not None and getattr(process.current_process(), "_inheriting", False):
        raise RuntimeError(
            "a Deja pass cannot run while a reader worker starts: the script that runs it needs"
            ' `if __name__ == "__main__":` (the worker re-runs it; the pass reads in process)'
        )


def workers_for(todo: Sequence[SessionRef]) -> int:
    """How many worker processes a pass over `todo` reads with (0: in this process). One
    session, however large, is read here: its rows are written only once it is read whole, so a
    worker would overlap nothing and cost its start-up."""
    cores = os.cpu_count() or 1
    if cores < 2 or len(todo) < 2 or sum(ref.size for ref in todo) <= PARALLEL_MIN_BYTES:
        return 0
    return min(READERS, cores)


def read_all(
    todo: Sequence[SessionRef], *, redact_secrets: bool, max_bytes: int, workers: int
) -> Generator[PreparedRead, None, None]:
    """Each session of `todo` read and made into rows, in order."""
    read = partial(read_prepared, redact_secrets=redact_secrets, max_bytes=max_bytes)
    here = partial(read, in_process=True)
    if workers <= 0:
        yield from map(here, todo)
        return
    # Imported only here: multiprocessing registers exit handlers and costs import time that
    # `deja search` (whose pass reads a few files at most) must not pay.
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))
    done = 0
    try:
        pending: deque[Future[PreparedRead]] = deque()
        for ref in todo:
            pending.append(pool.submit(read, ref))
            if len(pending) >= _AHEAD:
                yield pending.popleft().result()
                done += 1
        while pending:
            yield pending.popleft().result()
            done += 1
    except BrokenProcessPool:
        # The worker could not start or died (out of memory; a script that runs a pass without
        # `if __name__ == "__main__"`, which `spawn` re-imports, refused by `run_pass` in the
        # worker): the rest is read here.
        yield from map(here, todo[done:])
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
