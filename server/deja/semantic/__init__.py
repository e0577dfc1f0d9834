"""Search by meaning (the `semantic` extra): record vectors in the index file (`vectors.py`),
made by a static embedding model that ships in its wheel (`model.py`), found by brute force and
fused with the words' ranking (`nearest.py`). Without the extra, nothing here loads."""

from __future__ import annotations

from deja import settings


def available() -> bool:
    """Whether the extra is installed (`model.available`; the model module, with its imports,
    loads only when asked: every `deja search` asks whether the extra is on)."""
    from .model import available as installed

    return installed()


def enabled() -> bool:
    """The extra is installed and `DEJA_SEMANTIC` does not turn it off."""
    return settings.semantic_search() and available()


__all__ = ["available", "enabled"]
