"""The screen in a real terminal (tmux): bare `deja` starts it, a query finds a hit, Enter opens
the session at it, `q` quits. Every wait is on what the screen shows."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from tests.support.tmux_tui import Tui

from .conftest import indexed

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


def _env(tmp_path: Path, store: Path) -> dict[str, str]:
    indexed(tmp_path / "deja", store).close()
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path),
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "DEJA_CONTINUE_ROOT": str(store),
        "DEJA_HOME": str(tmp_path / "deja"),
        "DEJA_SEMANTIC": "0",
    }


def test_start_type_open_and_quit_in_tmux(tmp_path: Path, store: Path) -> None:
    env = _env(tmp_path, store)
    with Tui.start([sys.executable, "-m", "deja"], env=env, cwd=tmp_path, width=120) as tui:
        tui.wait_for("Run echo hello in the shell.")  # the recent sessions, before any query
        tui.type_text("oops")
        tui.wait_for("→ exit 3")
        tui.press("Enter")  # from the query line to the hits: their keys show in the footer
        tui.wait_for("w workspace/all")
        tui.press("Enter")  # open the session at the hit's turn
        screen = tui.wait_for("n/p: next/previous page")
        assert "turns 1–4 of 4" in screen and "08fbb9ac-e294-4687-8a87-8ac6bea4aad4" in screen
        tui.press("Escape")
        # The session's own footer lists the search keys too: wait until it is gone, or `q`
        # comes within the escape delay and the two keys read as one (alt+q).
        tui.wait_for(lambda screen: "w workspace/all" in screen and "n/p: next" not in screen)
        tui.press("q")
        tui.wait_exit()


def test_search_interactive_opens_the_screen_on_the_query(tmp_path: Path, store: Path) -> None:
    argv = [sys.executable, "-m", "deja", "search", "--all", "--role", "command", "oops",
            "--interactive"]  # fmt: skip
    with Tui.start(argv, env=_env(tmp_path, store), cwd=tmp_path, width=120) as tui:
        screen = tui.wait_for("→ exit 3")
        assert "oops" in screen and "role: command" in screen and "all workspaces" in screen
        tui.press("C-c")
        tui.wait_exit()
