"""`deja restore`: earlier context back as a compact transcript, with no model call.

One module per concern. Pure, on plain rows (unit-tested without a database): `selection` (the
grammar and the numbers it picks), `shaping` (head-and-tail, collapse rules), `section`
(one session's part of the transcript), `closing` (the block under it), `listing` (the numbered
table and the current session). Against the index and the disk: `load` (a few queries per
session, never one per record), `cache` (a per-session cache under DEJA_HOME), `git` (`git log`
over each session's work window), `transcript` (sections, topic turns and closing block put
together) and `request` (the scope policy, numbers, the listing: what `History.restore` calls).
"""

from .cache import CACHE_DIR, SectionCache, prune_cache
from .closing import RestoredSession, closing_block
from .git import (
    GIT_AFTER_S,
    GIT_MAX_COMMITS,
    GIT_TIMEOUT_S,
    Commits,
    git_commits,
    merge_windows,
    work_window,
)
from .listing import (
    NO_PREVIOUS,
    WRITING_S,
    CurrentSession,
    ListedSession,
    current_lines,
    listing_lines,
    passed_over,
)
from .load import SessionState, count_listable, listable, load_entries, load_outputs, load_state
from .request import RestoreResult, restore
from .section import (
    COMMAND_CHARS,
    FORMAT_LINE,
    FORMAT_VERSION,
    FULL_OUTPUT_CHARS,
    LAST_USER_CHARS,
    LAST_USER_COUNT,
    SUMMARY_CHARS,
    TOOL_ARGS_CHARS,
    USER_CHARS,
    Entry,
    LastUser,
    build_section,
    relative_path,
    tool_summary,
)
from .selection import RestoreError, Selection, expand, parse_selection
from .shaping import PREVIEW_CHARS, collapse, head_tail, preview
from .transcript import TOPIC_TURNS

__all__ = [
    "CACHE_DIR",
    "COMMAND_CHARS",
    "FORMAT_LINE",
    "FORMAT_VERSION",
    "FULL_OUTPUT_CHARS",
    "GIT_AFTER_S",
    "GIT_MAX_COMMITS",
    "GIT_TIMEOUT_S",
    "LAST_USER_CHARS",
    "LAST_USER_COUNT",
    "NO_PREVIOUS",
    "PREVIEW_CHARS",
    "SUMMARY_CHARS",
    "TOOL_ARGS_CHARS",
    "TOPIC_TURNS",
    "USER_CHARS",
    "WRITING_S",
    "Commits",
    "CurrentSession",
    "Entry",
    "LastUser",
    "ListedSession",
    "RestoreError",
    "RestoreResult",
    "RestoredSession",
    "SectionCache",
    "Selection",
    "SessionState",
    "build_section",
    "closing_block",
    "collapse",
    "count_listable",
    "current_lines",
    "expand",
    "git_commits",
    "head_tail",
    "listable",
    "listing_lines",
    "load_entries",
    "load_outputs",
    "load_state",
    "merge_windows",
    "parse_selection",
    "passed_over",
    "preview",
    "prune_cache",
    "relative_path",
    "restore",
    "tool_summary",
    "work_window",
]
