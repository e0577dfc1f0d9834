"""Drive a full-screen terminal program (the real ``cn`` TUI) in a detached ``tmux`` session.

Each :class:`Tui` runs on its own tmux server (``tmux -L <unique socket> -f /dev/null``), so it
neither sees nor touches any other tmux nor the user's tmux configuration; :meth:`Tui.close`
kills that server, and with it the program. The program gets exactly the environment it is given
(``env -i``). Waits poll the screen (or any condition) and are always bounded.

Example::

    with Tui.start([str(cn), "--config", str(config)], env=env, cwd=work) as tui:
        tui.wait_for("Ask anything")
        tui.type_text("/help")
        tui.press("Enter")
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import TypeVar

__all__ = ["DEFAULT_TIMEOUT", "Tui", "wait_until"]

DEFAULT_TIMEOUT = 60.0
_POLL = 0.1  # seconds between two looks at the screen
_SESSION = "tui"

T = TypeVar("T")


def wait_until(
    condition: Callable[[], T | bool | None],
    *,
    timeout: float = DEFAULT_TIMEOUT,
    what: str,
    describe: Callable[[], str] = lambda: "",
) -> T:
    """The first truthy value of ``condition()``, polled until ``timeout`` seconds have passed;
    then AssertionError naming ``what`` (and ``describe()``, e.g. the screen)."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value  # type: ignore[return-value]
        if time.monotonic() > deadline:
            raise AssertionError(
                f"timed out after {timeout:.0f} s waiting for {what}\n{describe()}"
            )
        time.sleep(_POLL)


class Tui:
    """One program running in a tmux pane of ``width`` x ``height`` cells."""

    def __init__(self, socket: str) -> None:
        self.socket = socket

    @classmethod
    def start(
        cls,
        argv: Sequence[str],
        *,
        env: Mapping[str, str],
        cwd: Path,
        width: int = 200,
        height: int = 50,
    ) -> Tui:
        if shutil.which("tmux") is None:
            raise RuntimeError("tmux is not installed (`make tools` installs it)")
        tui = cls(f"deja-test-{uuid.uuid4().hex[:12]}")
        command = shlex.join(["env", "-i", *(f"{k}={v}" for k, v in env.items()), *argv])
        tui._tmux(
            "new-session", "-d", "-s", _SESSION, "-x", str(width), "-y", str(height),
            "-c", str(cwd), command,
            ";", "set-option", "-t", _SESSION, "remain-on-exit", "on",
        )  # fmt: skip
        return tui

    def _tmux(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.socket, "-f", "/dev/null", *args],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(f"tmux {args[0]} failed: {done.stderr.strip()}")
        return done.stdout

    def screen(self) -> str:
        """What the pane shows now, one line per row."""
        return self._tmux("capture-pane", "-p", "-t", _SESSION)

    def wait_for(
        self, expected: str | Callable[[str], bool], *, timeout: float = DEFAULT_TIMEOUT
    ) -> str:
        """The screen, once it contains ``expected`` (or ``expected(screen)`` is true)."""
        seen = expected if callable(expected) else lambda screen: expected in screen
        last = ""

        def look() -> str | None:
            nonlocal last
            last = self.screen()
            return last if seen(last) else None

        what = repr(expected) if isinstance(expected, str) else "the screen"
        return wait_until(
            look, timeout=timeout, what=what, describe=lambda: f"last screen:\n{last}"
        )

    def wait_exit(self, *, timeout: float = DEFAULT_TIMEOUT) -> None:
        """Until the program has exited: tmux saw its terminal close (``pane_dead``) and its
        process is gone (or a zombie). Not tmux's "Pane is dead" line: a tmux built with
        libutempter resets SIGCHLD while it runs the utempter helper for a closing pane, and a
        program whose exit lands in that window is never reaped, so the line never comes
        (tmux/tmux#311, #4559)."""

        def exited() -> bool:
            pane = self._tmux("list-panes", "-t", _SESSION, "-F", "#{pane_dead} #{pane_pid}")
            dead, _, pid = pane.strip().partition(" ")
            return dead == "1" and _gone(int(pid))

        wait_until(
            exited, timeout=timeout, what="the program to exit",
            describe=lambda: f"last screen:\n{self.screen()}",
        )  # fmt: skip

    def type_text(self, text: str) -> None:
        """Type ``text`` literally (no key names)."""
        self._tmux("send-keys", "-t", _SESSION, "-l", text)

    def press(self, *keys: str) -> None:
        """Press keys by tmux name: ``Enter``, ``Escape``, ``C-c``, ``y``…"""
        self._tmux("send-keys", "-t", _SESSION, *keys)

    def close(self) -> None:
        """Kill this tmux server and the program in it (nothing else)."""
        subprocess.run(
            ["tmux", "-L", self.socket, "kill-server"], capture_output=True, timeout=30, check=False
        )

    def __enter__(self) -> Tui:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _gone(pid: int) -> bool:
    """The process has ended (a zombie counts); where there is no /proc, the closed terminal."""
    if not Path("/proc").is_dir():
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rpartition(")")[2].split()[0] in ("Z", "X")
