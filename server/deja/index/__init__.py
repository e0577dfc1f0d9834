"""The durable index: the only writer of Deja's data."""

from .core import Index, PassReport, Recovery, StoreRefusal
from .schema import SCHEMA_VERSION, default_home

__all__ = ["SCHEMA_VERSION", "Index", "PassReport", "Recovery", "StoreRefusal", "default_home"]
