"""The reader: Continue's history store → typed records. Knows Continue; nothing else does."""

from .parse import SessionError, is_safe_file_id, parse_session
from .records import ROLES, Diagnostic, Hunk, Item, ListEntry, Record, Role, Session
from .store import (
    SessionRead,
    SessionRef,
    StoreListing,
    StoreRead,
    list_store,
    read_session,
    read_store,
    resolve_root,
)

__all__ = [
    "ROLES",
    "Diagnostic",
    "Hunk",
    "Item",
    "ListEntry",
    "Record",
    "Role",
    "Session",
    "SessionError",
    "SessionRead",
    "SessionRef",
    "StoreListing",
    "StoreRead",
    "is_safe_file_id",
    "list_store",
    "parse_session",
    "read_session",
    "read_store",
    "resolve_root",
]
