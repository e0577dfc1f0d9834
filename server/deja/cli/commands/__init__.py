"""One module per `deja` command (`commands/<name>.py`), each with `run(args) -> int` (its
options are in `cli/options.py`). Loaded by name, so a run imports only the command it runs;
heavy libraries (pygls, mcp, restore) load inside `run`."""

from __future__ import annotations

import importlib
from types import ModuleType


def load(name: str) -> ModuleType:
    return importlib.import_module(f"{__name__}.{name}")
