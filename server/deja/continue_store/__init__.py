"""The reader: Continue's history store → typed records. Knows Continue; nothing else does.

Names load on first use (PEP 562): a door that needs one module of the reader does not pay
for all of them at start-up.
"""

from __future__ import annotations

from deja.lazy_exports import lazy_exports

TYPE_CHECKING = False  # not `typing`'s: start-up (tests/cli/test_cli_startup.py)
if TYPE_CHECKING:
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

_WHERE = {
    "Diagnostic": ".records",
    "Hunk": ".records",
    "Item": ".records",
    "ListEntry": ".records",
    "ROLES": ".records",
    "Record": ".records",
    "Role": ".records",
    "Session": ".records",
    "SessionError": ".parse",
    "SessionRead": ".store",
    "SessionRef": ".store",
    "StoreListing": ".store",
    "StoreRead": ".store",
    "is_safe_file_id": ".parse",
    "list_store": ".store",
    "parse_session": ".parse",
    "read_session": ".store",
    "read_store": ".store",
    "resolve_root": ".store",
}


__getattr__ = lazy_exports(__name__, _WHERE)


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
