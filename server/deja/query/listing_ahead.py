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
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from .history import History


class ListingAhead:
    """One listing of the store `settings.continue_root()` names, begun on construction."""

    def __init__(self) -> None:
        self.root: Path | None = None
        self._stamp: str | None = None
        self._done = _thread.allocate_lock()
        self._done.acquire()
        _thread.start_new_thread(self._list, ())

    def _list(self) -> None:
        try:
            from deja import settings
            from deja.index.store_stamp import current_stamp

            self.root = settings.continue_root()
            self._stamp = current_stamp(self.root, None)
        except BaseException:  # no listing: the caller runs the pass, as if the store changed
            self._stamp = None
        finally:
            self._done.release()

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
        with self._done:
            stamp = self._stamp
        return stamp is not None and known == stamp and history.root == self.root


_started: list[ListingAhead] = []


def start() -> None:
    """Begin the listing (the `deja search` process, first thing)."""
    _started.append(ListingAhead())


def taken() -> ListingAhead | None:
    """The listing `start` began, once: None when none was started (an in-process `main`)."""
    return _started.pop() if _started else None
