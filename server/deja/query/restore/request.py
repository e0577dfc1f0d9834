"""The whole request: which workspace it is about, what the selection picks, and the listing
when it picks nothing."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from deja.continue_store.workspace import normalize_workspace
from deja.one_line import one_line

from ..scope import Scope, current_scope
from ..sessions import SessionSummary, current_session, resolve_session_id
from .cache import CACHE_DIR, SectionCache
from .closing import RestoredSession
from .listing import NO_PREVIOUS, CurrentSession, ListedSession
from .load import SessionState, count_listable, has_records_before, listable, load_state
from .selection import RestoreError, Selection, expand, parse_selection
from .transcript import Pick, transcript


@dataclass(slots=True)
class RestoreResult:
    """`text` is the transcript (format `FORMAT_LINE`) and its closing block when sessions were
    restored; otherwise `listing` (and `message` when there is nothing to list or select)."""

    scope: str
    notes: list[str]
    topic: str | None
    listing: list[ListedSession]
    total: int  # numbered sessions in scope (for paging the listing)
    offset: int
    restored: list[RestoredSession]
    text: str = ""
    message: str = ""
    current: CurrentSession | None = None  # set when sessions were picked by number or listed
    last: bool = False  # the selection was `last`


@dataclass(frozen=True, slots=True)
class _Numbering:
    """The numbered sessions of a scope: newest first, the current one (the newest in scope) left
    out, or #0 when it lost context."""

    scope: Scope | None  # None: the directory belongs to no known workspace
    current: SessionSummary | None
    zero: SessionState | None
    zero_until: int | None = None  # where #0's restore stops (`lost_until`)
    zero_held: bool = False  # the index holds turns from before #0's last compaction

    @property
    def exclude(self) -> str | None:
        return self.current.id if self.current else None


def restore_scope(
    db: sqlite3.Connection, cwd: str | None, *, all_workspaces: bool
) -> tuple[Scope | None, list[str]]:
    """The workspace holding `cwd` (every one with `all_workspaces`). Restore is about this
    project: when no workspace holds `cwd`, no fallback to every workspace (None, and a note)."""
    if all_workspaces:
        return Scope(), []
    directory = cwd or os.getcwd()
    scope = current_scope(db, directory).scope
    if not scope.is_all:
        return scope, []
    return None, [
        f"no Continue session has a workspace containing {normalize_workspace(directory)};"
        " --all restores from every workspace"
    ]


def restore(
    db: sqlite3.Connection,
    home: Path,
    selection: str = "",
    *,
    cwd: str | None = None,
    all_workspaces: bool = False,
    session: str | None = None,
    topic: str | None = None,
    limit: int = 20,
    offset: int = 0,
) -> RestoreResult:
    """See `History.restore`; the cache lives under `home`."""
    scope: Scope | None = None
    notes: list[str] = []
    if session is None:
        scope, notes = restore_scope(db, cwd, all_workspaces=all_workspaces)
    chosen = _chosen(selection, topic)
    cache = SectionCache(home / CACHE_DIR)
    result = RestoreResult(
        scope=scope.label if scope else "this directory",
        notes=notes,
        topic=chosen.topic,
        listing=[],
        total=0,
        offset=offset,
        restored=[],
        last=chosen.last,
    )
    if session is not None:
        if not chosen.is_default:
            raise RestoreError("give session numbers or --session, not both")
        return _restored(db, cache, result, [_session_pick(db, session)])

    current = current_session(db, scope) if scope else None
    numbering = _numbering(db, scope, current)
    zero = numbering.zero
    if current is not None:
        result.current = CurrentSession(current, as_zero=zero is not None)
    result.total = count_listable(db, scope, numbering.exclude) if scope else 0
    if chosen.last:
        # `last` wants what the model no longer has: a #0 holding only Continue's summary (which
        # is still in the model's context) is passed over for the session before it.
        held = zero is not None and numbering.zero_held
        if not held and result.total == 0:
            result.message = NO_PREVIOUS
            return result
        return _restored(db, cache, result, _numbered(db, numbering, [0 if held else 1]))
    if chosen.ranges:
        numbers = expand(chosen.ranges, result.total, has_zero=zero is not None)
        return _restored(db, cache, result, _numbered(db, numbering, numbers))
    if chosen.topic is not None and zero is not None:
        return _restored(db, cache, result, _numbered(db, numbering, [0]))
    return _listing(db, result, numbering, limit)


def _chosen(selection: str, topic: str | None) -> Selection:
    chosen = parse_selection(selection)
    if topic is not None and topic.strip():
        if chosen.topic is not None:
            raise RestoreError("the topic is given twice (after ':' and as a topic)")
        chosen = Selection(chosen.ranges, chosen.last, one_line(topic))
    return chosen


def _restored(
    db: sqlite3.Connection, cache: SectionCache, result: RestoreResult, picks: Sequence[Pick]
) -> RestoreResult:
    result.text, result.restored = transcript(db, cache, picks, result.topic)
    return result


def _session_pick(db: sqlite3.Connection, session: str) -> Pick:
    """A session picked by id; when it is the current one in its own workspace (whatever directory
    the request came from) and lost context, only what came before its last compaction."""
    state = load_state(db, resolve_session_id(db, session))
    newest = current_session(db, Scope((state.session.workspace,)))
    is_current = newest is not None and newest.id == state.session.id
    until = lost_until(db, state)[0] if is_current and state.session.lost_context else None
    return Pick(None, state, until)


def lost_until(db: sqlite3.Connection, state: SessionState) -> tuple[int | None, bool]:
    """Where the current session's restore stops, and whether the index holds turns from before
    its last compaction. It does: before that compaction (what followed is still in the model's
    context). It does not (Deja first saw the session compacted): just after the compaction's
    summary, Continue's account of what was removed and all Deja holds of it."""
    boundary = state.boundary
    if boundary is None:
        return None, False
    if has_records_before(db, state.session.id, boundary):
        return boundary, True
    return (boundary + 1 if state.last_summary == boundary else boundary), False


def _numbering(
    db: sqlite3.Connection, scope: Scope | None, current: SessionSummary | None
) -> _Numbering:
    """The current session is #0 whenever it lost context (as `sessions` says) and something of
    it can be restored."""
    if current is None or not (current.lost_context and current.first_user):
        return _Numbering(scope, current, None)
    state = load_state(db, current.id)
    until, held = lost_until(db, state)
    if not until:
        return _Numbering(scope, current, None)
    return _Numbering(scope, current, state, until, held)


def _numbered(db: sqlite3.Connection, numbering: _Numbering, numbers: Sequence[int]) -> list[Pick]:
    """Numbers already checked against the listing; its sessions fetched in one query."""
    positive = [n for n in numbers if n > 0]
    low = min(positive, default=1)
    page: dict[int, SessionSummary] = {}
    if positive and numbering.scope is not None:
        rows = listable(db, numbering.scope, numbering.exclude, max(positive) - low + 1, low - 1)
        page = {low + i: summary for i, summary in enumerate(rows)}
    picks = []
    zero = numbering.zero
    for number in numbers:
        if number == 0 and zero is not None:
            picks.append(Pick(0, zero, numbering.zero_until))
        else:
            picks.append(Pick(number, load_state(db, page[number].id), None))
    return picks


def _listing(
    db: sqlite3.Connection, result: RestoreResult, numbering: _Numbering, limit: int
) -> RestoreResult:
    """Nothing selected: a page of the listing (#0 first on the first page)."""
    offset, current = result.offset, numbering.current
    if numbering.zero is not None and current is not None and offset == 0:
        result.listing.append(ListedSession(0, current))
    if numbering.scope is not None:
        page = listable(db, numbering.scope, numbering.exclude, limit, offset)
        result.listing += [ListedSession(offset + i, s) for i, s in enumerate(page, 1)]
    if not result.listing:
        result.message = NO_PREVIOUS
    elif result.topic is not None:
        result.message = (
            "Nothing selected: the current session lost no context to compaction. Pick sessions"
            f" by number, e.g. deja restore 1,3 : {result.topic}"
        )
    return result
