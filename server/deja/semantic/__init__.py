"""Search by meaning (the `semantic` extra): record vectors in the index file (`vectors.py`),
made by a static embedding model that ships in its wheel (`model.py`), found by brute force and
fused with the words' ranking (`nearest.py`). Without the extra, nothing here loads."""

from __future__ import annotations

from deja import settings

from .model import available


def enabled() -> bool:
    """The extra is installed and `DEJA_SEMANTIC` does not turn it off."""
    return settings.semantic_search() and available()


__all__ = ["available", "enabled"]
