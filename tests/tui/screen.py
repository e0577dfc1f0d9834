"""Opening the screen under Textual's pilot, and reading what it shows."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Input, Markdown, OptionList, Static

from deja.query import History
from deja.tui.app import DejaApp
from deja.tui.screens import MarkdownText

from .conftest import NOW


def make_app(history: History, **options: Any) -> DejaApp:
    options = {"cwd": "/", "index": False, "clock": lambda: NOW, "dark": True, **options}
    return DejaApp(history, **options)


async def settled(pilot: Pilot[Any]) -> None:
    """Every search, preview and pass the last keys started has answered."""
    app = pilot.app
    for _ in range(5):
        await app.workers.wait_for_complete()
        await pilot.pause()
        if not any(w.is_running for w in app.workers):
            return


@asynccontextmanager
async def opened(
    history: History, size: tuple[int, int] = (120, 30), **options: Any
) -> AsyncIterator[tuple[DejaApp, Pilot[Any]]]:
    app = make_app(history, **options)
    async with app.run_test(size=size) as pilot:
        await settled(pilot)
        yield app, pilot


async def search(pilot: Pilot[Any], text: str) -> None:
    """Type `text` into the query line (`/` gets there from the hits; typed there, it is text)."""
    if not isinstance(pilot.app.focused, Input):
        await pilot.press("slash")
    await pilot.press(*text)
    await settled(pilot)


def rows(app: DejaApp) -> list[str]:
    return [str(option.prompt) for option in app.query_one("#hits", OptionList).options]


def status(app: DejaApp) -> str:
    return str(app.query_one("#status", Static).render())


def markdown(app: DejaApp) -> str:
    """The markdown the current screen shows: the preview's on the search screen, else that of
    every Markdown widget, in order."""
    if app.screen is app.screen_stack[0]:
        return app.preview_text
    shown = [*app.screen.query(Markdown), *app.screen.query(MarkdownText)]
    return "\n".join(widget.source or "" for widget in shown)


async def select(pilot: Pilot[Any], prefix: str) -> None:
    """Move down the hits (focused) to the first row starting with `prefix`."""
    hits = pilot.app.query_one("#hits", OptionList)
    for _ in hits.options:
        if hits.highlighted is not None and str(hits.options[hits.highlighted].prompt).startswith(
            prefix
        ):
            await settled(pilot)
            return
        await pilot.press("down")
    raise AssertionError(f"no row starts with {prefix!r}: {rows(pilot.app)}")  # type: ignore[arg-type]
