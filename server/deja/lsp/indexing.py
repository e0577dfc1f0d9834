"""Indexing in the background: open the index, a first pass with work-done progress, then the
watcher's passes, each followed by `deja/indexChanged`. Requests never wait for any of it."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from lsprotocol import types

from deja.index import PassReport, StoreRefusal
from deja.query import History
from deja.settings import SettingError

from .context import DejaServer
from .watch import TICK_S, StoreWatcher, session_id_of

PROGRESS_TOKEN = "deja/indexing"
# While the store is refused, a whole pass every this many ticks sees it come back (or accepted
# empty by `deja index --accept-empty`) even when no session file changes.
REFUSED_RETRY_TICKS = 8
NOT_APPLIED = {
    "missing": "Continue's store is missing",
    "unreadable": "Continue's store cannot be listed",
    "empty": "Continue's store lists no session",
}
T = TypeVar("T")


class PassCancelled(Exception):
    """The server is stopping: a pass ends between two sessions (each is its own commit)."""


class PassProgress:
    """A pass's (done, total), called on the index thread → `$/progress` reports on the loop,
    at most one per percent."""

    def __init__(
        self, send: Callable[[types.WorkDoneProgressReport], None], stopping: threading.Event
    ) -> None:
        self.send = send
        self.stopping = stopping
        self.last = -1

    def __call__(self, done: int, total: int) -> None:
        if self.stopping.is_set():
            raise PassCancelled
        percent = done * 100 // max(total, 1)
        if percent != self.last:
            self.last = percent
            self.send(
                types.WorkDoneProgressReport(message=f"{done}/{total} sessions", percentage=percent)
            )


def end_message(report: PassReport) -> str:
    if report.refused is not None:
        return f"not applied: {NOT_APPLIED[report.refused.problem]}"
    errors = f" · {len(report.errors)} unreadable" if report.errors else ""
    return f"{report.sessions} sessions · {report.changed} indexed{errors}"


class Indexer:
    def __init__(self, ls: DejaServer) -> None:
        self.ls = ls
        # One thread owns the indexer's connection and the watcher.
        self.thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="deja-index")
        self.stopping = threading.Event()
        self.task: asyncio.Task[None] | None = None
        self.refused: StoreRefusal | None = None
        self.refused_ticks = 0

    def start(self) -> None:
        # Kept: the loop holds tasks only weakly.
        self.task = asyncio.ensure_future(self.run())

    def stop(self) -> None:
        """A running pass ends after its current session."""
        self.stopping.set()

    async def _off_loop(self, work: Callable[[], T]) -> T:
        return await asyncio.get_running_loop().run_in_executor(self.thread, work)

    async def run(self) -> None:
        writer = await self._open()
        if writer is None:
            return
        watcher = StoreWatcher(writer.root)
        try:
            await self._off_loop(watcher.prime)
            await self._first_pass(writer, watcher)
            while not self.stopping.is_set():
                await asyncio.sleep(TICK_S)
                await self._tick(writer, watcher)
        except PassCancelled:
            pass
        finally:
            # Closed on its own thread, after whatever that thread is still doing.
            self.thread.submit(writer.close)
            self.thread.shutdown(wait=False)

    async def _open(self) -> History | None:
        """The indexer's connection first (it may upgrade or recover the file), then the one
        requests use."""
        options = self.ls.options
        try:
            writer = await self._off_loop(lambda: History(options.deja_home, options.continue_root))
            self.ls.history = await self._off_loop(lambda: History(writer.home, writer.root))
        except Exception as error:
            self.ls.open_error = f"the index could not be opened: {error}"
            self.ls.tell(self.ls.open_error, types.MessageType.Error)
            return None
        finally:
            self.ls.opened.set()
        recovery = writer.index.recovery
        if recovery is not None:
            self.ls.tell(f"{recovery.message}. {recovery.lost}")
        self.ls.log(f"index {writer.index.path}, Continue store {writer.root}")
        return writer

    async def _first_pass(self, writer: History, watcher: StoreWatcher) -> None:
        shown = await self._progress_begin()
        loop = asyncio.get_running_loop()

        def send(report: types.WorkDoneProgressReport) -> None:
            if shown:
                loop.call_soon_threadsafe(self.ls.work_done_progress.report, PROGRESS_TOKEN, report)

        report: PassReport | None = None
        outcome = "stopped"
        try:
            report = await self._off_loop(
                lambda: writer.refresh(progress=PassProgress(send, self.stopping))
            )
            outcome = end_message(report)
        except PassCancelled:
            raise
        except SettingError as error:  # the user's to fix: say it where they look
            outcome = "failed (see the log)"
            self.ls.tell(str(error), types.MessageType.Error)
        except Exception as error:
            outcome = "failed (see the log)"
            self.ls.log(f"indexing failed: {error}", types.MessageType.Error)
        finally:
            # Reports were queued on the loop before the pass returned, so they arrive first.
            if shown:
                self.ls.work_done_progress.end(
                    PROGRESS_TOKEN, types.WorkDoneProgressEnd(message=outcome)
                )
        if report is not None:
            self._after(report, watcher)

    async def _progress_begin(self) -> bool:
        window = self.ls.client_capabilities.window
        if not (window and window.work_done_progress):
            return False
        try:
            await self.ls.work_done_progress.create_async(PROGRESS_TOKEN)
        except Exception as error:
            self.ls.log(f"no progress shown: {error}")
            return False
        self.ls.work_done_progress.begin(
            PROGRESS_TOKEN,
            types.WorkDoneProgressBegin(
                title="Deja: indexing Continue sessions", percentage=0, cancellable=False
            ),
        )
        return True

    async def _tick(self, writer: History, watcher: StoreWatcher) -> None:
        try:
            due = await self._off_loop(watcher.poll)
            if self.refused is not None:
                self.refused_ticks += 1
                if not due and self.refused_ticks < REFUSED_RETRY_TICKS:
                    return
                # Whole: what changed while the store was away is not all in `due`.
                self.refused_ticks = 0
                report = await self._off_loop(writer.refresh)
            elif due:
                report = await self._off_loop(lambda: writer.refresh(only=due))
            else:
                return
        except Exception as error:
            if self.stopping.is_set():
                raise PassCancelled from error
            self.ls.log(f"watching the store failed: {error}", types.MessageType.Error)
            return
        self._after(report, watcher)

    def _after(self, report: PassReport, watcher: StoreWatcher) -> None:
        self._store_applied(report.refused, watcher)
        failed: set[str] = set()
        for problem in report.errors:
            session_id = session_id_of(problem.path)
            if session_id is None:
                continue
            failed.add(session_id)
            if watcher.failed(session_id):
                self.ls.log(
                    f"cannot read {problem.path}: {problem.message}; left until the file changes",
                    types.MessageType.Warning,
                )
        for session_id in report.changed_ids:
            if session_id not in failed:
                watcher.succeeded(session_id)
        if report.changed_ids:
            self.ls.index_changed(list(dict.fromkeys(report.changed_ids)))

    def _store_applied(self, refusal: StoreRefusal | None, watcher: StoreWatcher) -> None:
        """One log line and one `deja/storeStatus` when the store stops (or starts again)
        being applied; nothing while it stays so."""
        before = None if self.refused is None else self.refused.problem
        self.refused = refusal
        if (None if refusal is None else refusal.problem) == before:
            return
        if refusal is None:
            self.ls.log(f"Continue's store {watcher.root / 'sessions'} is back; indexing it")
        else:
            self.ls.log(refusal.message, types.MessageType.Warning)
        self.ls.store_status(refusal)
