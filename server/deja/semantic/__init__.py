"""Search by meaning (the `semantic` extra): record vectors in the index file (`vectors.py`),
made by a static embedding model that ships in its wheel (`model.py`), found by brute force and
fused with the words' ranking (`nearest.py`). Without the extra, nothing here loads."""

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


__all__ = ["available", "enabled", "has_vectors"]
