"""The durable index: the only writer of Deja's data.

Names load on first use (PEP 562): `deja search` over an unchanged store never loads the
pass.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .core import Index
    from .recovery import Recovery
    from .refresh import PassReport, Progress
    from .refusal import StoreRefusal
    from .schema import SCHEMA_VERSION, default_home
    from .tombstones import NotIndexed, Tombstone

_WHERE = {
    "Index": ".core",
    "NotIndexed": ".tombstones",
    "PassReport": ".refresh",
    "Progress": ".refresh",
    "Recovery": ".recovery",
    "SCHEMA_VERSION": ".schema",
    "StoreRefusal": ".refusal",
    "Tombstone": ".tombstones",
    "default_home": ".schema",
}


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(where, __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "SCHEMA_VERSION",
    "Index",
    "NotIndexed",
    "PassReport",
    "Progress",
    "Recovery",
    "StoreRefusal",
    "Tombstone",
    "default_home",
]
