"""Questions over the index: search, sessions, show, file history. One API for every front door."""

from .blame import FileEvent, LineRange
from .files import FilesResult, TouchedFile
from .fix import FixResult, FixStep, PastFailure
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
]
