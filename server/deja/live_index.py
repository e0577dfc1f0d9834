"""One live index for every long-running front door (the sidecar, the MCP server): the index
opened in the background, a first pass, then (when watching) the watcher's passes; a reader
connection for requests; readiness a door can wait for. No editor or MCP library here: what
happens is reported to a `LiveListener` the door subclasses.

Threads: one thread opens the index and runs the passes through the writer connection; requests
read through the reader connection on the door's own thread. WAL lets the reader see each
session as soon as a pass commits it. A lock keeps two passes (the watcher's and a door's
`refresh`) from running at once.

Search by meaning's deep model (when installed): a third thread (`live_deep.py`) embeds, after
the first pass and after each pass that changes sessions, the records it has not read yet.

Sharing: several Deja processes (a sidecar, each `cn` session's MCP server, a CLI) index the same
store into the same index. A pass that answers or follows a change never waits for another
process's pass (`IndexBusy`): the answer comes from what is indexed, the change is tried again on
the next tick. A first pass gives way to the watcher's news between two sessions, so the
session in use is indexed while a large store is still being read.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from deja import semantic
from deja.continue_store.watch import TICK_S, StoreWatcher, session_id_of
from deja.index import IndexBusy, PassReport, StoreRefusal
from deja.quantities import count
from deja.query import History
from deja.settings import SettingError

from .live_deep import DeepThread

# While the store is refused, a whole pass every this many ticks sees it come back (or accepted
# empty by `deja index --accept-empty`) even when no session file changes.
REFUSED_RETRY_TICKS = 8
NOT_APPLIED = {
    "missing": "Continue's store is missing",
    "unreadable": "Continue's store cannot be listed",
    "empty": "Continue's store lists no session",
    "other": "Continue's store is not the one this index holds",
}
OPEN_FAILED = "the index could not be opened: {error}"
FIRST_PASS_FAILED = "failed (see the log)"
# A door's pass waits this long for the watcher's (a pass of a few sessions) before answering.
NO_WAIT_S = 0.5


class PassCancelled(Exception):
    """The index is stopping: a pass ends between two sessions (each is its own commit)."""


class PassInterrupted(Exception):
    """The watcher has news: the first pass ends between two sessions, the news is indexed,
    then the first pass goes on (it reads only what it has not read yet)."""


@dataclass(frozen=True, slots=True)
class ProgressReport:
    message: str
    percentage: int


class PassProgress:
    """A pass's (done, total), called on the index thread → `send`, at most one per percent;
    raises `PassCancelled` once `stopping` is set."""

    def __init__(
        self,
        send: Callable[[ProgressReport], None],
        stopping: threading.Event,
        news: Callable[[], bool] | None = None,
    ) -> None:
        self.send = send
        self.stopping = stopping
        self.news = news
        self.last = -1

    def __call__(self, done: int, total: int) -> None:
        if self.stopping.is_set():
            raise PassCancelled
        if self.news is not None and self.news():
            raise PassInterrupted
        percent = done * 100 // max(total, 1)
        if percent != self.last:
            self.last = percent
            self.send(ProgressReport(message=f"{done}/{total} sessions", percentage=percent))


def end_message(report: PassReport) -> str:
    if report.refused is not None:
        return f"not applied: {NOT_APPLIED[report.refused.problem]}"
    errors = f" · {len(report.errors)} unreadable" if report.errors else ""
    return f"{count(report.sessions, 'session')} · {report.changed} indexed{errors}"


class LiveListener:
    """What a live index tells its door, on the index thread; each does nothing here.
    `level` is a `logging` level."""

    def log(self, message: str, level: int = logging.INFO) -> None:
        """A line for the door's log."""

    def tell(self, message: str, level: int = logging.WARNING) -> None:
        """Something the user must see (and the log keeps)."""

    def first_pass_begin(self) -> bool:
        """The first pass starts; True to be sent its progress and its end."""
        return False

    def first_pass_progress(self, report: ProgressReport) -> None:
        """How far the first pass is."""

    def first_pass_end(self, outcome: str) -> None:
        """The first pass ended: `outcome` says how, in a few words."""

    def index_changed(self, session_ids: list[str]) -> None:
        """A pass committed these sessions (new, changed or gone)."""

    def store_status(self, refusal: StoreRefusal | None) -> None:
        """Passes stopped (a refusal) or started again (None) applying Continue's store."""

    def meaning_caught_up(self, records: int) -> None:
        """The deep model has read every record (`records` of them since it last said so)."""


class LiveIndex:
    """`start` opens the index and runs the first pass in the background; `history` is the
    reader once `opened`; `indexed` once the first pass is done (or could not run)."""

    def __init__(
        self,
        home: Path | None = None,
        root: Path | None = None,
        listener: LiveListener | None = None,
    ) -> None:
        self.home = home
        self.root = root
        self.listener = listener or LiveListener()
        self.history: History | None = None
        self.open_error: Exception | None = None
        self.refused: StoreRefusal | None = None
        self.stopping = threading.Event()
        self._writer: History | None = None
        self._watcher: StoreWatcher | None = None
        self._opened = threading.Event()
        self._indexed = threading.Event()
        self._lock = threading.Lock()
        self._closed = False
        self._refused_ticks = 0
        self._deep: DeepThread | None = None
        self._started = False

    # Readiness --------------------------------------------------------------------------------

    @property
    def opened(self) -> bool:
        """The index is open (`history` is set) or could not be (`open_error` is)."""
        return self._opened.is_set()

    def wait_opened(self, timeout: float | None = None) -> bool:
        return self._opened.wait(timeout)

    @property
    def indexed(self) -> bool:
        return self._indexed.is_set()

    def wait_indexed(self, timeout: float | None = None) -> bool:
        return self._indexed.wait(timeout)

    # Running ----------------------------------------------------------------------------------

    @property
    def writer(self) -> History | None:
        """The writer's `History` (the index thread's; a caller holds `lock` while it uses it)."""
        return self._writer

    @property
    def lock(self) -> threading.Lock:
        """Held by whatever uses the writer: passes, and the deep model's writes."""
        return self._lock

    @property
    def closed(self) -> bool:
        return self._closed

    def start(self, *, watch: bool) -> None:
        """Open and index in the background; with `watch`, then follow the store's changes
        until `stop`. Without it, the door calls `refresh` when it needs the index current."""
        # A daemon: a pass still running ends with the process (the index survives a kill).
        threading.Thread(target=self._run, args=(watch,), name="deja-index", daemon=True).start()
        self._started = True
        semantic.allow_deep()
        if semantic.deep_enabled():
            self._deep = DeepThread(self)
            self._deep.start()

    def stop(self) -> None:
        """A running pass ends after its current session; the watcher stops."""
        if self._started and not self.stopping.is_set():
            semantic.end_deep()
        self.stopping.set()
        if self._deep is not None:
            self._deep.wake()
            self._deep.join()
        if self._watcher is not None:
            self._watcher.close()

    def close(self) -> None:
        """Stop, and close both connections unless a pass still runs (it ends with the process)."""
        self.stop()
        if not self._lock.acquire(blocking=False):
            return
        try:
            self._close_connections()
        finally:
            self._lock.release()

    def refresh(self) -> PassReport:
        """An incremental pass now, on the caller's thread (only changed sessions are read).
        `IndexBusy` when a pass here or in another process keeps the index: answer from it as
        it is."""
        if self._writer is None:
            raise RuntimeError("the index is not open")
        if not self._lock.acquire(timeout=NO_WAIT_S):
            raise IndexBusy
        try:
            report = self._writer.refresh(wait=False)
            self._after(report)
        finally:
            self._lock.release()
        return report

    def _run(self, watch: bool) -> None:
        writer = self._open()
        if writer is None:
            self._indexed.set()
            return
        watcher = StoreWatcher(writer.root) if watch else None
        try:
            if watcher is not None:
                self._watcher = watcher
                watcher.start()
                watcher.prime()
                if watcher.notify_error is not None:
                    self.listener.log(watcher.notify_error, logging.WARNING)
            self._first_pass(writer)
            self._indexed.set()
            while watcher is not None and not self.stopping.is_set():
                watcher.wait(TICK_S if self.refused is not None else watcher.next_wait())
                if self.stopping.is_set():
                    break
                self._tick(writer, watcher)
        except PassCancelled:
            pass
        finally:
            self._indexed.set()
            if watcher is not None:
                with self._lock:
                    if not self._closed:
                        writer.close()

    def _open(self) -> History | None:
        """The writer first (it may upgrade or recover the file), then the reader."""
        try:
            writer = History(self.home, self.root)
            self.history = History(writer.home, writer.root)
        except Exception as error:
            self.open_error = error
            self.listener.tell(OPEN_FAILED.format(error=error), logging.ERROR)
            return None
        finally:
            self._opened.set()
        self._writer = writer
        recovery = writer.recovery
        if recovery is not None:
            self.listener.tell(f"{recovery.message}. {recovery.lost}")
        self.listener.log(f"index {writer.index_path}, Continue store {writer.root}")
        return writer

    def _first_pass(self, writer: History) -> None:
        shown = self.listener.first_pass_begin()

        def send(report: ProgressReport) -> None:
            if shown:
                self.listener.first_pass_progress(report)

        watcher = self._watcher
        progress = PassProgress(send, self.stopping, watcher.has_news if watcher else None)
        report: PassReport | None = None
        outcome = "stopped"
        try:
            while report is None:
                try:
                    with self._lock:
                        report = writer.refresh(progress=progress)
                except PassInterrupted:
                    if watcher is not None:
                        self._tick(writer, watcher)
            outcome = end_message(report)
        except PassCancelled:
            raise
        except SettingError as error:  # the user's to fix: say it where they look
            outcome = FIRST_PASS_FAILED
            self.listener.tell(str(error), logging.ERROR)
        except Exception as error:
            outcome = FIRST_PASS_FAILED
            self.listener.log(f"indexing failed: {error}", logging.ERROR)
        finally:
            if shown:
                self.listener.first_pass_end(outcome)
        if report is not None:
            with self._lock:
                self._after(report)

    def _tick(self, writer: History, watcher: StoreWatcher) -> None:
        due: set[str] = set()
        try:
            due = watcher.poll()
            with self._lock:
                if self.refused is not None:
                    self._refused_ticks += 1
                    if not due and self._refused_ticks < REFUSED_RETRY_TICKS:
                        return
                    # Whole: what changed while the store was away is not all in `due`.
                    self._refused_ticks = 0
                    report = writer.refresh(wait=False)
                elif due:
                    report = writer.refresh(only=due, wait=False)
                else:
                    return
                self._after(report)
        except IndexBusy:  # another process's pass: this news waits for the next tick
            watcher.retry(due)
        except Exception as error:
            if self.stopping.is_set():
                raise PassCancelled from error
            self.listener.log(f"watching the store failed: {error}", logging.ERROR)

    def _after(self, report: PassReport) -> None:
        """The store's status, unreadable files retried (when watching), the sessions changed."""
        self._store_applied(report.refused)
        failed: set[str] = set()
        watcher = self._watcher
        for problem in report.errors:
            session_id = session_id_of(problem.path)
            if session_id is None or watcher is None:
                continue
            failed.add(session_id)
            if watcher.failed(session_id):
                self.listener.log(
                    f"cannot read {problem.path}: {problem.message}; left until the file changes",
                    logging.WARNING,
                )
        if watcher is not None:
            for session_id in report.changed_ids:
                if session_id not in failed:
                    watcher.succeeded(session_id)
        if report.changed_ids:
            if self._deep is not None:
                self._deep.wake()
            self.listener.index_changed(list(dict.fromkeys(report.changed_ids)))

    def _store_applied(self, refusal: StoreRefusal | None) -> None:
        """One log line and one status when the store stops (or starts again) being applied;
        nothing while it stays so."""
        before = None if self.refused is None else self.refused.problem
        self.refused = refusal
        if (None if refusal is None else refusal.problem) == before:
            return
        if refusal is None:
            sessions = self._writer.root / "sessions" if self._writer is not None else None
            self.listener.log(f"Continue's store {sessions} is back; indexing it")
        else:
            self.listener.log(refusal.message, logging.WARNING)
        self.listener.store_status(refusal)

    def _close_connections(self) -> None:
        for history in (self.history, self._writer):
            if history is not None:
                history.close()
        self._closed = True
