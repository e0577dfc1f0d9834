"""Questions over the index: search, sessions, show, file history. One API for every front door."""

from .blame import FileEvent, LineRange
from .history import History
from .provenance import Claim, LineError, Provenance, check_line
from .query_syntax import QueryError
from .scope import Scope, ScopeChoice, WorkspaceError
from .search import (
    HIGHLIGHT_END,
    HIGHLIGHT_START,
    SEARCH_ROLES,
    Hit,
    SearchQuery,
    SearchResult,
)
from .sessions import SessionSummary, SessionView, TurnRecord, UnknownSession, fork_line
from .stats import Stats

__all__ = [
    "HIGHLIGHT_END",
    "HIGHLIGHT_START",
    "SEARCH_ROLES",
    "Claim",
    "FileEvent",
    "History",
    "Hit",
    "LineError",
    "LineRange",
    "Provenance",
    "QueryError",
    "Scope",
    "ScopeChoice",
    "SearchQuery",
    "SearchResult",
    "SessionSummary",
    "SessionView",
    "Stats",
    "TurnRecord",
    "UnknownSession",
    "WorkspaceError",
    "check_line",
    "fork_line",
]
