"""A progress bar on stderr, shown only when a pass runs past a second and stderr is a TTY."""

from __future__ import annotations

import time

TYPE_CHECKING = False  # not `typing`'s: start-up (tests/cli/test_cli_startup.py)
if TYPE_CHECKING:
    from typing import TextIO

SHOW_AFTER_S = 1.0


class ProgressBar:
    def __init__(self, stream: TextIO, *, enabled: bool = True, width: int = 30) -> None:
        self.stream = stream
        self.enabled = enabled and stream.isatty()
        self.width = width
        self.started = time.monotonic()
        self.shown = False

    def update(self, done: int, total: int) -> None:
        if not self.enabled or total <= 0:
            return
        if not self.shown and time.monotonic() - self.started < SHOW_AFTER_S:
            return
        self.shown = True
        filled = int(self.width * done / total)
        bar = "#" * filled + "-" * (self.width - filled)
        self.stream.write(f"\rindexing [{bar}] {done}/{total} sessions")
        self.stream.flush()

    def finish(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
