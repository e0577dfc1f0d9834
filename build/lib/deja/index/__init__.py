"""The durable index: the only writer of Deja's data."""

from .core import Index
from .recovery import Recovery
from .refresh import PassReport, Progress
from .refusal import StoreRefusal
from .schema import SCHEMA_VERSION, default_home
from .tombstones import NotIndexed, Tombstone

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
