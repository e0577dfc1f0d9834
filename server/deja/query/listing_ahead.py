"""The store's listing taken in a thread while `deja search` loads, opens its index and answers.

A search over an unchanged store skips the pass (`store_stamp.py`); telling so takes one
`scandir` and a stat per session file (~15 ms for 2,680 files), which used to run before the
query. Started first thing, the listing's stats (which release the GIL) run beside the imports,
the open and the query; the answer is given only when the listing matches the stamp the last
pass recorded, exactly the test `Index.store_unchanged` makes. Otherwise the caller runs the pass
and answers again (`cli/commands/search.py`). The listing starts after the process did: a
session written before `deja search` was started is in it.
"""

from __future__ import annotations

import _thread
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from .history import History


class ListingAhead:
    """One listing of the store `settings.continue_root()` names, begun on construction: in a
    forked child where there is `fork` (`in_child`: its stats and its Python run on the other
    core, no GIL shared), else in a thread."""

    def __init__(self, *, in_child: bool = True) -> None:
        self.root: Path | None = None
        self._stamp: str | None = None
        self._child: tuple[int, int] | None = None
        self._done = _thread.allocate_lock()
        self._done.acquire()
        if in_child and hasattr(os, "fork"):
            self._fork()
        else:
            _thread.start_new_thread(self._list, ())

    def _list(self) -> None:
        try:
            self.root, self._stamp = _listing()
        except BaseException:  # no listing: the caller runs the pass, as if the store changed
            self._stamp = None
        finally:
            self._done.release()

    def _fork(self) -> None:
        readable, writable = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: the listing down the pipe, then out without any teardown
            try:
                os.close(readable)
                _, stamp = _listing()
                data = b"" if stamp is None else stamp.encode("utf-8", "surrogateescape")
                with open(writable, "wb") as pipe:
                    pipe.write(data)
            finally:
                os._exit(0)
        os.close(writable)
        self._child = (pid, readable)
        self._done.release()

    def _waited(self) -> str | None:
        """The listing, once it is done (the child's read to its end)."""
        if self._child is not None:
            pid, readable = self._child
            self._child = None
            with open(readable, "rb") as pipe:
                data = pipe.read()
            _, status = os.waitpid(pid, 0)
            from deja import settings

            self.root = settings.continue_root()  # the child's, from the same environment
            ok = status == 0 and data
            self._stamp = data.decode("utf-8", "surrogateescape") if ok else None
        with self._done:
            return self._stamp

    def recorded(self, history: History) -> str | None:
        """The stamp the last whole pass recorded in `history`'s index: read before the query,
        as `Index.store_unchanged` reads it before listing, so that a pass committed in between
        cannot vouch for an answer read from the index before it. None when `history` is not
        over this listing's store (with the default exclude list)."""
        from deja.index.store_stamp import recorded

        if history.index.exclude_path is not None:
            return None
        return recorded(history.db)

    def matches(self, history: History, known: str | None) -> bool:
        """True when the listing (waited for) is the store `known` was recorded for: a pass
        would do nothing. False when it changed or cannot be told."""
        stamp = self._waited()
        return stamp is not None and known == stamp and history.root == self.root


def _listing() -> tuple[Path, str | None]:
    from deja import settings
    from deja.index.store_stamp import current_stamp

    root = settings.continue_root()
    return root, current_stamp(root, None)


_started: list[ListingAhead] = []


def start() -> None:
    """Begin the listing (the `deja search` process, first thing)."""
    _started.append(ListingAhead())


def taken() -> ListingAhead | None:
    """The listing `start` began, once: None when none was started (an in-process `main`)."""
    return _started.pop() if _started else None
