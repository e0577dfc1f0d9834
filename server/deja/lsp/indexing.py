"""The sidecar's live index (`deja.live_index`), started once the client is initialized: what it
reports on its thread becomes, on the event loop, work-done progress for the first pass, log
lines, messages, `deja/indexChanged` and `deja/storeStatus`. Requests never wait for a pass, and
the pass never waits for the client."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from lsprotocol import types

from deja.index import StoreRefusal
from deja.live_index import LiveIndex, LiveListener, ProgressReport

from .context import DejaServer
from .team import TeamPusher

PROGRESS_TOKEN = "deja/indexing"
KINDS = {
    logging.INFO: types.MessageType.Info,
    logging.WARNING: types.MessageType.Warning,
    logging.ERROR: types.MessageType.Error,
}


def start_indexing(ls: DejaServer) -> LiveIndex:
    """Open the index and index in the background, watching the store until shutdown."""
    listener = SidecarListener(ls, asyncio.get_running_loop())
    live = LiveIndex(ls.options.deja_home, ls.options.continue_root, listener)
    live.start(watch=True)
    return live


class SidecarListener(LiveListener):
    """Called on the index thread: each report is handed to the loop, in order."""

    def __init__(self, ls: DejaServer, loop: asyncio.AbstractEventLoop) -> None:
        self.ls = ls
        self.loop = loop
        self.pusher = TeamPusher(ls.options.deja_home, self.log) if ls.options.team_push else None
        self.progress = FirstPassProgress(ls)

    def _soon(self, callback: Callable[..., Any], *args: Any) -> None:
        with contextlib.suppress(RuntimeError):  # a closed loop: the server is gone
            self.loop.call_soon_threadsafe(callback, *args)

    def log(self, message: str, level: int = logging.INFO) -> None:
        self._soon(self.ls.log, message, KINDS[level])

    def tell(self, message: str, level: int = logging.WARNING) -> None:
        self._soon(self.ls.tell, message, KINDS[level])

    def first_pass_begin(self) -> bool:
        """Progress is decoration: the pass starts now, whether or when the client answers."""
        window = self.ls.client_capabilities.window
        if not (window and window.work_done_progress):
            return False
        self._soon(self.progress.create)
        return True

    def first_pass_progress(self, report: ProgressReport) -> None:
        progress = types.WorkDoneProgressReport(
            message=report.message, percentage=report.percentage
        )
        self._soon(self.progress.report, progress)

    def first_pass_end(self, outcome: str) -> None:
        # What start-up and the first pass leave lives as long as the sidecar: collected once
        # now, then kept out of the collector's sight, so that no later request waits on a full
        # collection over it (tens of ms after a first pass over a big store).
        gc.collect()
        gc.freeze()
        # Reports were queued on the loop before the pass returned, so they arrive first.
        self._soon(self.progress.end, types.WorkDoneProgressEnd(message=outcome))
        if self.pusher:  # what changed while the sidecar was not running
            self.pusher.request()

    def index_changed(self, session_ids: list[str]) -> None:
        self._soon(self.ls.index_changed, session_ids)
        if self.pusher:
            self.pusher.request()

    def store_status(self, refusal: StoreRefusal | None) -> None:
        self._soon(self.ls.store_status, refusal)


class FirstPassProgress:
    """Work-done progress for the first pass, on the loop. The token is usable once the client
    has answered `window/workDoneProgress/create`; until then the newest report and the end
    are kept, and a client that never answers (or refuses) is shown nothing."""

    def __init__(self, ls: DejaServer) -> None:
        self.ls = ls
        self.created = False
        self.latest: types.WorkDoneProgressReport | None = None
        self.ended: types.WorkDoneProgressEnd | None = None

    def create(self) -> None:
        answer = self.ls.protocol.send_request(
            types.WINDOW_WORK_DONE_PROGRESS_CREATE,
            types.WorkDoneProgressCreateParams(token=PROGRESS_TOKEN),
        )
        answer.add_done_callback(self._answered)

    def _answered(self, future: Future[Any]) -> None:
        error = None if future.cancelled() else future.exception()
        if future.cancelled() or error is not None:
            self.ls.log(f"no progress shown: {error or 'the request was cancelled'}")
            return
        self.created = True
        begin = types.WorkDoneProgressBegin(
            title="Deja: indexing Continue sessions", percentage=0, cancellable=False
        )
        self.ls.work_done_progress.begin(PROGRESS_TOKEN, begin)
        if self.latest is not None:
            self.ls.work_done_progress.report(PROGRESS_TOKEN, self.latest)
        if self.ended is not None:
            self.ls.work_done_progress.end(PROGRESS_TOKEN, self.ended)

    def report(self, progress: types.WorkDoneProgressReport) -> None:
        if not self.created:
            self.latest = progress
        elif self.ended is None:
            self.ls.work_done_progress.report(PROGRESS_TOKEN, progress)

    def end(self, progress: types.WorkDoneProgressEnd) -> None:
        self.ended = progress
        if self.created:
            self.ls.work_done_progress.end(PROGRESS_TOKEN, progress)
