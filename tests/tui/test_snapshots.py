"""Snapshots of the main screens (pytest-textual-snapshot: SVGs under `__snapshots__/`), light
and dark, at 80×24 and wide. The store, clock, file times and working directory are fixed
(conftest.py), so the pictures depend on nothing of the machine. `--snapshot-update` remakes
them; look at them before committing."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot

from deja.query import History

from .screen import make_app, search, select, settled

SIZES = {"80x24": (80, 24), "wide": (160, 40)}


async def _searched(pilot: Pilot[Any]) -> None:
    await settled(pilot)
    await search(pilot, "exit")
    await pilot.press("tab")
    await select(pilot, "  #1 command → exit 3")


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("dark", [True, False], ids=["dark", "light"])
def test_the_search_screen(history: History, snap_compare: Any, size: str, dark: bool) -> None:
    app = make_app(history, dark=dark)
    assert snap_compare(app, terminal_size=SIZES[size], run_before=_searched)


@pytest.mark.parametrize("dark", [True, False], ids=["dark", "light"])
def test_the_session_screen(history: History, snap_compare: Any, dark: bool) -> None:
    async def opened(pilot: Pilot[Any]) -> None:
        await _searched(pilot)
        await pilot.press("enter")
        await settled(pilot)

    app = make_app(history, dark=dark)
    assert snap_compare(app, terminal_size=(100, 30), run_before=opened)


def test_the_first_screen(history: History, snap_compare: Any) -> None:
    assert snap_compare(make_app(history), terminal_size=(80, 24), run_before=settled)
