"""Questions over the index: search, sessions, show, file history. One API for every front door.

Names load on first use (PEP 562): `deja search` loads the search and its History only, not
blame, fix, files or provenance."""

from __future__ import annotations

from deja.lazy_exports import lazy_exports

TYPE_CHECKING = False  # not `typing`'s: start-up (tests/cli/test_cli_startup.py)
if TYPE_CHECKING:
    from .blame import FileEvent, LineRange
    from .files import FilesResult, TouchedFile
    from .fix import FixResult, FixStep, PastFailure
    from .history import History
    from .hits import HIGHLIGHT_END, HIGHLIGHT_START, Hit, SearchQuery, marked_pieces
    from .provenance import Claim, LineError, Provenance, check_line
    from .query_syntax import QueryError
    from .scope import Scope, ScopeChoice, WorkspaceError
    from .search import SEARCH_ROLES, SearchResult
    from .sessions import SessionSummary, SessionView, TurnRecord, UnknownSession, fork_line
    from .stats import Stats

_WHERE = {
    "Claim": ".provenance",
    "FileEvent": ".blame",
    "FilesResult": ".files",
    "FixResult": ".fix",
    "FixStep": ".fix",
    "HIGHLIGHT_END": ".hits",
    "HIGHLIGHT_START": ".hits",
    "History": ".history",
    "Hit": ".hits",
    "LineError": ".provenance",
    "LineRange": ".blame",
    "PastFailure": ".fix",
    "Provenance": ".provenance",
    "QueryError": ".query_syntax",
    "SEARCH_ROLES": ".search",
    "Scope": ".scope",
    "ScopeChoice": ".scope",
    "SearchQuery": ".hits",
    "SearchResult": ".search",
    "SessionSummary": ".sessions",
    "SessionView": ".sessions",
    "Stats": ".stats",
    "TouchedFile": ".files",
    "TurnRecord": ".sessions",
    "UnknownSession": ".sessions",
    "WorkspaceError": ".scope",
    "check_line": ".provenance",
    "fork_line": ".sessions",
    "marked_pieces": ".hits",
}


__getattr__ = lazy_exports(__name__, _WHERE)


__all__ = [
    "HIGHLIGHT_END",
    "HIGHLIGHT_START",
    "SEARCH_ROLES",
    "Claim",
    "FileEvent",
    "FilesResult",
    "FixResult",
    "FixStep",
    "History",
    "Hit",
    "LineError",
    "LineRange",
    "PastFailure",
    "Provenance",
    "QueryError",
    "Scope",
    "ScopeChoice",
    "SearchQuery",
    "SearchResult",
    "SessionSummary",
    "SessionView",
    "Stats",
    "TouchedFile",
    "TurnRecord",
    "UnknownSession",
    "WorkspaceError",
    "check_line",
    "fork_line",
    "marked_pieces",
]
