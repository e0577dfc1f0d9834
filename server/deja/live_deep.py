"""The deep model's background pass in a long-running door (a thread beside `live_index.py`'s):
after the first pass, and after each pass that changes sessions, it embeds the records the deep
model has not read yet, the most recently active session first, at the lowest CPU priority and
at most half a core, a part at a time, each part saved in a short write
(`deja.semantic.deep_pass`). One process on an
index does it at a time (a lease): an editor's sidecar and several `cn` sessions' MCP servers
do not embed the same records each; a process with no work never loads the model."""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
import time
from dataclasses import replace

from deja.index import IndexBusy
from deja.quantities import count
from deja.query import History

TYPE_CHECKING = False
if TYPE_CHECKING:
    from deja.semantic.deep_pass import DeepWork

    from .live_index import LiveIndex

# It looks again this often when nothing woke it: another process held the work, or another
# process indexed what this one's watcher did not see.
RECHECK_S = 120.0
# How long a stopping door waits for the text being embedded (a fraction of a second, unless
# the machine is saturated).
JOIN_S = 10.0
# The model unused this long is dropped (`deep_model.release_if_idle`).
RELEASE_S = 300.0
CAUGHT_UP = "search by meaning: the deep model has read every record ({count} this time)"
# At most this share of one core, whatever the machine does besides: a first reading of a large
# history takes hours of CPU, and a laptop's fan and battery are the user's. After each part the
# thread rests in proportion to the CPU the part took.
CORE_SHARE = 0.5


class DeepThread:
    def __init__(self, live: LiveIndex) -> None:
        self.live = live
        self._news = threading.Event()
        self._thread = threading.Thread(target=self._run, name="deja-meaning", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def join(self) -> None:
        """After the door's `stop`: wait for the text being embedded (a process that exits in
        the middle of the runtime's work is aborted by it)."""
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(JOIN_S)

    def wake(self) -> None:
        """Sessions changed, or the door stops: look now."""
        self._news.set()

    def _run(self) -> None:
        live = self.live
        _lowest_priority()
        live.wait_indexed()
        writer = live.writer
        if writer is None or live.stopping.is_set():
            return
        try:
            # Its own connection: looking for the work must not hold up the watcher's passes.
            reader = History(writer.home, writer.root, for_reading=True)
        except Exception as error:
            live.listener.log(f"the deep model's pass cannot start: {error}", logging.ERROR)
            return
        try:
            self._rounds(writer, reader)
        finally:
            reader.close()
            with live.lock, contextlib.suppress(Exception):
                if not live.closed:
                    writer.end_deep()

    def _rounds(self, writer: History, reader: History) -> None:
        from deja.semantic.identity import ModelUnavailable

        live = self.live
        read = 0
        while not live.stopping.is_set():
            self._news.clear()
            _release_if_idle()
            try:
                with live.lock:
                    if live.closed:
                        return
                    writer.deep_prepare()
                work = reader.deep_work()
                if work is not None:
                    read += self._session(writer, work)
            except IndexBusy:  # a pass, or another process doing this work: look again later
                self._news.wait(RECHECK_S)
                continue
            except ModelUnavailable as error:
                live.listener.log(f"search by meaning without the deep model: {error}")
                return
            except Exception as error:
                if not live.stopping.is_set():
                    live.listener.log(f"the deep model's pass failed: {error}", logging.ERROR)
                return
            if work is None:
                if read:
                    live.listener.log(CAUGHT_UP.format(count=count(read, "record")))
                    live.listener.meaning_caught_up(read)
                    read = 0
                self._news.wait(RECHECK_S)

    def _session(self, writer: History, work: DeepWork) -> int:
        """One session's records embedded a part at a time, each part saved; how many were.
        `IndexBusy` when another process does this work."""
        from deja.semantic.deep_model import load
        from deja.semantic.deep_pass import CHUNK

        live = self.live
        with live.lock:
            if live.closed or not writer.take_deep_lease():
                raise IndexBusy
        model = load()  # once per process: only a process with work loads it
        read = 0
        for start in range(0, len(work.records), CHUNK):
            began = time.thread_time()
            part = work.records[start : start + CHUNK]
            vectors = []
            for _, _, text in part:
                if live.stopping.is_set():
                    return read
                vectors.append(model.embed([text])[0])
            with live.lock:
                if live.closed:
                    break
                read += writer.save_deep(
                    replace(work, records=part), [v.tobytes() for v in vectors]
                )
            spent = time.thread_time() - began
            if live.stopping.wait(spent * (1 / CORE_SHARE - 1)):
                break
        return read


def _release_if_idle() -> None:
    """The deep model dropped when unused for a while, if this process loaded it (a search may
    have, as well as this thread)."""
    model = sys.modules.get("deja.semantic.deep_model")
    if model is not None:
        model.release_if_idle(RELEASE_S)


def _lowest_priority() -> None:
    """The calling thread at the lowest CPU priority, where the system has one per thread
    (Linux: a thread is a task with its own nice value); elsewhere it stays as it is."""
    if sys.platform == "linux":
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
