"""One module per `deja` command (`commands/<name>.py`), each with `add_parser(command)` (its
subparser, through `common.AddCommand`) and `run(args) -> int`. Loaded by name, so a run
imports only the command it runs; heavy libraries (pygls, mcp, restore) load inside `run`."""

from __future__ import annotations

import importlib
from types import ModuleType

# In the order `deja --help` lists them.
NAMES: tuple[str, ...] = (
    "index",
    "search",
    "sessions",
    "show",
    "blame",
    "fix",
    "files",
    "stats",
    "forget",
    "restore",
    "recover",
    "export",
    "serve",
    "mcp",
    "capture",
    "install",
    "uninstall",
    "resume",
    "handoff",
    "doctor",
    "team",
)


def load(name: str) -> ModuleType:
    return importlib.import_module(f"{__name__}.{name}")
