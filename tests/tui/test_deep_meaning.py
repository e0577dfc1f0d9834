"""The history screen searches by meaning with the deep model's vectors another process (an
editor, an MCP server) made: it finds a paraphrase the static model misses while it is open,
and leaves the process as it found it when it closes; opening it loads no model (a search
by meaning typed there does)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from deja import semantic
from deja.query import History, Scope, SearchQuery
from tests.support.paraphrases import REPORTS_QUESTION, read_deep, write_paraphrased

from .screen import opened, rows, search

pytestmark = pytest.mark.semantic


@pytest.fixture
def read(tmp_path: Path) -> Iterator[History]:
    """A store whose every record the deep model has read (as a door's pass does)."""
    write_paraphrased(tmp_path / "continue")
    history = History(home=tmp_path / "deja", root=tmp_path / "continue")
    history.refresh()
    read_deep(history)
    yield history
    history.close()


async def test_the_screen_finds_what_only_the_deep_model_finds(read: History) -> None:
    assert not semantic.deep_enabled()
    async with opened(read, all_workspaces=True) as (app, pilot):
        await search(pilot, REPORTS_QUESTION)
        listed = rows(app)
    assert listed and listed[0].startswith("Report totals"), listed
    assert "by meaning" in listed[1], listed
    # Closed: this process is back to the static model alone (as the CLI is).
    assert not semantic.deep_enabled()
    assert read.search(SearchQuery(REPORTS_QUESTION, scope=Scope(), limit=5)).hits == []


_OPEN = """
import asyncio, sys
from deja.query import History, Scope, SearchQuery
from tests.tui.screen import opened, rows
async def main():
    history = History()
    async with opened(history, all_workspaces=True) as (app, pilot):
        print(rows(app)[0])
    history.close()
asyncio.run(main())
print("onnxruntime" in sys.modules)
"""


def test_opening_the_screen_loads_no_deep_model(read: History, tmp_path: Path) -> None:
    env = {
        **os.environ,
        "DEJA_CONTINUE_ROOT": str(tmp_path / "continue"),
        "DEJA_HOME": str(tmp_path / "deja"),
        "PYTHONPATH": os.pathsep.join(sys.path),
    }
    done = subprocess.run(
        [sys.executable, "-c", _OPEN],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).parents[2],
    )
    assert done.returncode == 0, done.stderr
    first, loaded = done.stdout.strip().splitlines()[-2:]
    assert first.startswith("Buttons") and loaded == "False"
