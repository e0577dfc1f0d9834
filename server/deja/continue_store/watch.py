"""Watching Continue's store: which session files changed, cheaply.

With `start`, the operating system tells (`watchfiles`: inotify, FSEvents, ReadDirectoryChangesW)
which files of `sessions/` changed; only those are looked at, so an idle watcher does no work per
file however large the store. `watchfiles` groups a file's writes until they hold still for
`STEP_MS` (Continue rewrites a file in place, in several writes) or for at most `DEBOUNCE_MS`,
then the file is handed over.

Without notifications (`watchfiles` missing or failing, no `sessions/` folder yet, or `start`
never called) every file's (size, mtime) is looked at on each poll: a changed file is handed
over once it has held still for a poll (at once when its mtime is a tick old already), or after
`MOST_TICKS` polls if it keeps changing; the
poll backs off from `TICK_S` to `IDLE_POLL_S` while nothing changes.

Either way a file that does not parse (half-written) is read again on the next ticks."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

from .listing import entry, list_sessions, session_names
from .parse import is_safe_file_id

TICK_S = 0.25
# Polling with nothing changing waits longer each time, up to this (the lag bound then).
IDLE_POLL_S = 2.0
# A file still changing this many ticks after it was first seen changing is read anyway: the
# index must not lag behind by more than a second.
MOST_TICKS = 2
# A file that does not parse (half-written) is read again on the next ticks, this many times.
RETRIES = 2
# Notifications: a file is handed over once its writes stop for STEP_MS, or after DEBOUNCE_MS.
STEP_MS = 30
DEBOUNCE_MS = 150
# After notifications fail, they are tried again no sooner than this.
RESTART_S = 5.0
# The notifier hands over its first (empty) batch this soon after it watches: then the store is
# listed once more, so nothing written while it was starting goes unseen.
ARMED_MS = 200

# A file as listed (`listing.entry`: `id size mtime_ns`): what tells that it changed.
Signature = str


def session_id_of(path: str) -> str | None:
    name = os.path.basename(path)
    return name[: -len(".json")] if session_names([name]) else None


def mtime_of(signature: Signature) -> int:
    return int(signature.rpartition(" ")[2])


class StoreWatcher:
    """Which sessions' files changed (or went away) since the index last read them.
    `looked_at` counts the files stat'ed: what an idle watcher must not add to; `weighed`, the
    files judged beyond the listing: what an idle poll must not add to."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.folder = root / "sessions"
        self.seen: dict[str, Signature] = {}
        self.pending: dict[str, tuple[Signature | None, int]] = {}
        self.due: set[str] = set()
        self.failures: dict[str, tuple[Signature | None, int]] = {}
        self.looked_at = 0
        self.weighed = 0
        self.notify_error: str | None = None
        self._wanted = False
        self._notifying = False
        self._rescan = True
        self._dirty: set[str] = set()
        self._guard = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self.armed = threading.Event()
        self._tried_at = -RESTART_S
        self._idle_polls = 0

    # Notifications ----------------------------------------------------------------------------

    def start(self) -> None:
        """Follow the store through the operating system's notifications from now on."""
        self._wanted = True
        self._start_notifier()

    def close(self) -> None:
        """Stop the notifications; a `wait` returns."""
        self._stop.set()
        self._wake.set()

    @property
    def notifying(self) -> bool:
        return self._notifying

    def _start_notifier(self) -> None:
        now = time.monotonic()
        if self._stop.is_set() or now - self._tried_at < RESTART_S or not self.folder.is_dir():
            return
        self._tried_at = now
        try:
            import watchfiles  # noqa: F401  (its absence: polling)
        except ImportError as error:
            self.notify_error = f"no file notifications ({error}); polling the store"
            return
        self._notifying = True
        threading.Thread(target=self._notify, name="deja-watch", daemon=True).start()

    def _notify(self) -> None:
        import watchfiles

        try:
            for changes in watchfiles.watch(
                self.folder,
                watch_filter=None,
                debounce=DEBOUNCE_MS,
                step=STEP_MS,
                stop_event=self._stop,
                rust_timeout=ARMED_MS,
                yield_on_timeout=True,
                recursive=False,
                raise_interrupt=False,
            ):
                if not self.armed.is_set():
                    with self._guard:
                        self._rescan = True
                    self.armed.set()
                    self._wake.set()
                ids = {sid for _, path in changes if (sid := session_id_of(path)) is not None}
                if any(os.path.normpath(path) == str(self.folder) for _, path in changes):
                    break  # the folder itself went away: back to polling until it is back
                with self._guard:
                    self._dirty |= ids
                if ids:
                    self._wake.set()
        except Exception as error:  # e.g. too many watches: polling does the work instead
            self.notify_error = f"file notifications failed ({error}); polling the store"
        finally:
            with self._guard:
                self._notifying = False
                self._rescan = True
            self.armed.clear()
            self._wake.set()

    # Waiting and polling ----------------------------------------------------------------------

    def next_wait(self) -> float | None:
        """How long the door may wait before the next `poll` (None: until woken)."""
        if self.due or self.pending or (self._rescan and self._notifying):
            return TICK_S
        if self._notifying:
            return None
        return min(TICK_S * (1 << min(self._idle_polls, 8)), IDLE_POLL_S)

    def wait(self, timeout: float | None) -> bool:
        """Until a notification, `close`, or `timeout`; True when woken."""
        if self.has_news():
            return True
        woken = self._wake.wait(timeout)
        self._wake.clear()
        return woken

    def has_news(self) -> bool:
        """Notifications not yet polled."""
        with self._guard:
            return bool(self._dirty)

    def scan(self) -> dict[str, Signature]:
        """Every session file as the store stamp lists it (`listing.py`: one `lstat` each,
        nothing built per file but its entry), by id: polling does this every few seconds on
        the whole store. No store yet (Continue creates it on its first session) is
        none. A session name the index does not read (a symlink, not a regular file) is left
        out; one that is no session id is left to `_changed`, which drops it."""
        try:
            entries = list_sessions(self.folder).entries
        except OSError:
            return {}
        current = {listed.rsplit(" ", 2)[0]: listed for listed in entries}
        self.looked_at += len(current)
        return current

    def _changed(self, current: dict[str, Signature]) -> set[str]:
        """The sessions whose file differs from what was seen (new, changed or gone)."""
        differ = {name for name, _ in current.items() - self.seen.items()}
        differ |= self.seen.keys() - current.keys()
        return {name for name in differ if is_safe_file_id(name)}

    def _stat(self, session_ids: set[str]) -> dict[str, Signature]:
        current: dict[str, Signature] = {}
        for session_id in session_ids:
            self.looked_at += 1
            try:
                info = os.lstat(self.folder / f"{session_id}.json")
            except OSError:
                continue
            current[session_id] = entry(session_id, info.st_size, info.st_mtime_ns)
        return current

    def prime(self) -> None:
        """What the files are before a full pass reads them; later changes are news."""
        self._wake.clear()
        self.seen = self.scan()
        with self._guard:
            self._rescan = not self._notifying

    def poll(self) -> set[str]:
        """Sessions to re-index now."""
        if self._wanted and not self._notifying:
            self._start_notifier()
        with self._guard:
            whole = self._rescan or not self._notifying
            self._rescan = not self._notifying
            notified, self._dirty = self._dirty, set()
        if whole:
            current = self.scan()
            names = self._changed(current) | self.pending.keys()
        else:
            names = notified | self.pending.keys()
            current = self._stat(names)
        ready, self.due = self.due, set()
        ready |= self._judge(names, current, settled=notified)
        self._idle_polls = 0 if ready or self.pending else self._idle_polls + 1
        return ready

    def _judge(self, names: set[str], current: dict[str, Signature], settled: set[str]) -> set[str]:
        """Which files to hand over: notified ones at once (their writes have stopped), others
        once they hold still for a tick (their mtime a tick old, or unchanged since the last
        poll) or after MOST_TICKS."""
        ready: set[str] = set()
        self.weighed += len(names)
        # A file last written a tick ago or more has held still already: waiting one more tick
        # would only add to the lag (polling comes back from its back-off to find it).
        still_since = time.time_ns() - int(TICK_S * 1e9)
        for session_id in names:
            signature = current.get(session_id)
            if signature == self.seen.get(session_id):
                self.pending.pop(session_id, None)
                continue
            last = self.pending.get(session_id)
            held = last is not None and (last[0] == signature or last[1] + 1 >= MOST_TICKS)
            held = held or (signature is not None and mtime_of(signature) <= still_since)
            if session_id in settled or held:
                ready.add(session_id)
                self.pending.pop(session_id, None)
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

    def retry(self, session_ids: set[str]) -> None:
        """These could not be indexed now (another process holds the index): on the next tick."""
        self.due |= session_ids

    def succeeded(self, session_id: str) -> None:
        self.failures.pop(session_id, None)
