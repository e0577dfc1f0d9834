"""Watching Continue's store without a dependency: the (size, mtime) of every session file,
looked at every tick. A changed file is handed over once it has held still for a tick (Continue
rewrites a file in place, in several writes), or after a few ticks if it keeps changing."""

from __future__ import annotations

import os
from pathlib import Path

from .store import SESSIONS_LIST, scan_session_files

TICK_S = 0.25
# A file still changing this many ticks after it was first seen changing is read anyway: the
# index must not lag behind by more than a second.
MOST_TICKS = 2
# A file that does not parse (half-written) is read again on the next ticks, this many times.
RETRIES = 2

Signature = tuple[int, int]


def session_id_of(path: str) -> str | None:
    name = os.path.basename(path)
    if not name.endswith(".json") or name == SESSIONS_LIST:
        return None
    return name[: -len(".json")]


class StoreWatcher:
    """Which sessions' files changed (or went away) since the index last read them."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.seen: dict[str, Signature] = {}
        self.pending: dict[str, tuple[Signature | None, int]] = {}
        self.due: set[str] = set()
        self.failures: dict[str, tuple[Signature | None, int]] = {}

    def scan(self) -> dict[str, Signature]:
        # The index's own scan: no store yet (Continue creates it on its first session) is none.
        files, _ = scan_session_files(self.root)
        return {file.id: (file.size, file.mtime_ns) for file in files or ()}

    def prime(self) -> None:
        """What the files are before a full pass reads them; later changes are news."""
        self.seen = self.scan()

    def poll(self) -> set[str]:
        """Sessions to re-index now."""
        current = self.scan()
        ready, self.due = self.due, set()
        for session_id in current.keys() | self.seen.keys() | self.pending.keys():
            signature = current.get(session_id)
            if signature == self.seen.get(session_id):
                self.pending.pop(session_id, None)
                continue
            last = self.pending.get(session_id)
            if last is not None and (last[0] == signature or last[1] + 1 >= MOST_TICKS):
                ready.add(session_id)
                del self.pending[session_id]
                if signature is None:
                    self.seen.pop(session_id, None)
                else:
                    self.seen[session_id] = signature
            else:
                self.pending[session_id] = (signature, 0 if last is None else last[1] + 1)
        return ready

    def failed(self, session_id: str) -> bool:
        """The session's file did not parse: read it again on the next tick, unless it has
        failed RETRIES times as it is now. True when it is given up (until it changes)."""
        signature = self.seen.get(session_id)
        last = self.failures.get(session_id)
        count = last[1] + 1 if last is not None and last[0] == signature else 1
        self.failures[session_id] = (signature, count)
        if count > RETRIES:
            return True
        self.due.add(session_id)
        return False

    def succeeded(self, session_id: str) -> None:
        self.failures.pop(session_id, None)
