"""The JSON shapes every front door sends: hits, sessions, records, file events, tombstones,
stats and restore results. One function per shape, so `deja … --json`, the sidecar's `deja/*`
results and whatever comes next agree field for field. Pure: no I/O, no front door, no editor
library; the restore types are imported for typing only (`deja search` never loads restore)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from deja.query import HIGHLIGHT_END, HIGHLIGHT_START, marked_pieces
from deja.time_format import iso_time

TYPE_CHECKING = False  # not `typing`'s: start-up (tests/cli/test_cli_startup.py)
if TYPE_CHECKING:  # typing only: `deja search` loads none of these modules
    from typing import Any

    from deja.doctor import Check
    from deja.index import Tombstone
    from deja.query import (
        Claim,
        FileEvent,
        FilesResult,
        FixResult,
        FixStep,
        Hit,
        SessionSummary,
        SessionView,
        Stats,
        TurnRecord,
    )
    from deja.query.restore import CurrentSession, ListedSession, RestoredSession, RestoreResult
    from deja.query.session_page import PageRecord, SessionPage

# The version of these shapes, in every CLI envelope (`"schema": 1`).
JSON_SCHEMA = 1


def asdict(value: Any) -> dict[str, Any]:
    """`dataclasses.asdict`, imported when first needed: `deja search` loads no dataclasses."""
    from dataclasses import asdict as fields

    return fields(value)


def iso(timestamp: float | None) -> str | None:
    return None if timestamp is None else iso_time(timestamp)


def markdown_snippet(snippet: str) -> str:
    """A snippet's match markers as markdown bold, the form every door sends."""
    return snippet.replace(HIGHLIGHT_START, "**").replace(HIGHLIGHT_END, "**")


def snippet_highlights(snippet: str) -> tuple[str, list[list[int]]]:
    """A snippet without its match markers, and the [start, end) character offsets of the
    matched words in it: an editor highlights them without parsing markdown (a snippet's own
    `**` would be taken for a match)."""
    text: list[str] = []
    ranges: list[list[int]] = []
    length = 0
    start: int | None = None
    for piece in marked_pieces(snippet):
        if piece == HIGHLIGHT_START:
            start = length if start is None else start
        elif piece == HIGHLIGHT_END:
            if start is not None and length > start:
                ranges.append([start, length])
            start = None
        elif piece:
            text.append(piece)
            length += len(piece)
    if start is not None and length > start:  # a highlight the snippet's end cut
        ranges.append([start, length])
    return "".join(text), ranges


def hit_json(hit: Hit) -> dict[str, Any]:
    text, highlights = snippet_highlights(hit.snippet)
    return {
        "session_id": hit.session_id,
        "title": hit.title,
        "workspace": hit.workspace,
        "project": hit.project,
        "turn": hit.turn,
        "time": iso(hit.time),
        "role": hit.role,
        "snippet": markdown_snippet(hit.snippet),
        "snippet_text": text,
        "highlights": highlights,
        "file": hit.file,
        "exit_code": hit.exit_code,
        "status": hit.status,
        "compacted": hit.compacted,
        "deleted": hit.deleted,
        "score": hit.score,
        "meaning_only": hit.meaning_only,
    }


def team_hit_json(hit: Hit, member: str) -> dict[str, Any]:
    """A team search hit: the local hit's shape plus who pushed it (`deja search --team`, the
    sidecar's scope "team")."""
    return {**hit_json(hit), "member": member}


def session_json(summary: SessionSummary) -> dict[str, Any]:
    data = asdict(summary)
    data["started"] = iso(summary.started)
    data["last_active"] = iso(summary.last_active)
    return data


def hunks_json(hunks: Sequence[tuple[str | None, str]]) -> list[dict[str, Any]]:
    return [{"replaced": r, "written": w} for r, w in hunks]


def record_json(record: TurnRecord) -> dict[str, Any]:
    data = asdict(record)
    data["time"] = iso(record.time)
    data["hunks"] = hunks_json(record.hunks)
    return data


def turns_json(view: SessionView) -> list[dict[str, Any]]:
    """A session's records grouped by turn, in order (the sidecar's `deja/session`)."""
    turns: list[dict[str, Any]] = []
    for record in view.records:
        data = record_json(record)
        if not turns or turns[-1]["turn"] != record.turn:
            turns.append(
                {
                    "turn": record.turn,
                    "time": data["time"],
                    "compacted": record.compacted,
                    "records": [],
                }
            )
        turns[-1]["records"].append(data)
    return turns


def page_record_json(item: PageRecord) -> dict[str, Any]:
    """A record of the session view: cut texts carry their full length (`*_chars`), an edit its
    `added`/`removed` lines and `diff_lines` (all hunks; `hunks` holds the first ones)."""
    data = record_json(item.record)
    data.update(
        text_chars=item.text_chars,
        output_chars=item.output_chars,
        added=item.added,
        removed=item.removed,
        diff_lines=item.diff_lines,
    )
    return data


def session_page_json(page: SessionPage) -> dict[str, Any]:
    """`deja/sessionView`: a page of turns, `offset` its first turn's position of `total_turns`."""
    return {
        "session": session_json(page.session),
        "offset": page.offset,
        "total_turns": page.total_turns,
        "at_turn": page.at_turn,
        "turns": [
            {
                "turn": turn.turn,
                "time": iso(turn.time),
                "compacted": turn.compacted,
                "inherited": turn.inherited,
                "records": [page_record_json(item) for item in turn.records],
            }
            for turn in page.turns
        ],
    }


def tombstone_json(tomb: Tombstone) -> dict[str, Any]:
    return {"kind": tomb.kind, "value": tomb.value, "created": iso(tomb.created)}


def _event_fields(event: FileEvent) -> dict[str, Any]:
    return {
        "session_id": event.session_id,
        "title": event.title,
        "workspace": event.workspace,
        "turn": event.turn,
        "time": iso(event.time),
        "role": event.role,
        "tool": event.tool,
        "status": event.status,
        "path": event.path,
        "compacted": event.compacted,
        "request": event.request,
    }


def event_json(event: FileEvent) -> dict[str, Any]:
    """A file event with `ranges`: where each hunk's written text stands now (`deja blame
    --json`), lines from 1 as `--line` counts them (`LineRange.one_based`)."""
    return {
        **_event_fields(event),
        "hunks": hunks_json(event.hunks),
        "ranges": [r.one_based() if r else None for r in event.ranges],
    }


def line_owner_json(event: FileEvent, claim: Claim) -> dict[str, Any]:
    """Who wrote a line as it is now (`deja blame --line`'s `written_by`): the session and turn
    of the edit that owns it, and whether the line was changed since."""
    return {
        "session_id": event.session_id,
        "title": event.title,
        "turn": event.turn,
        "tool": event.tool,
        "changed_since": claim.changed,
    }


def placed_event_json(
    event: FileEvent, spans: Mapping[int, dict[str, Any]], *, changed: bool
) -> dict[str, Any]:
    """A file event placed in an open document (the sidecar's `deja/fileHistory`): each hunk
    with its `range` there (`spans`, by hunk index, already in the client's LSP form; null
    when its text is not there any more), the first placed one as the event's `range`, and
    `changed` when a line it wrote was edited after it (what the hover calls "changed since")."""
    hunks = [
        {**hunk, "range": spans.get(index)} for index, hunk in enumerate(hunks_json(event.hunks))
    ]
    return {
        **_event_fields(event),
        "hunks": hunks,
        "range": spans[min(spans)] if spans else None,
        "changed": changed,
    }


def check_json(check: Check) -> dict[str, Any]:
    """One finding of `deja doctor`: `fix` null when all is well; its facts (paths, unreadable
    files with their reasons) beside the four fields every renderer reads."""
    return {
        **check.data,
        "name": check.name,
        "ok": check.ok,
        "detail": check.detail,
        "fix": check.fix,
    }


def doctor_json(checks: Sequence[Check]) -> dict[str, Any]:
    """`deja doctor --json`'s payload (in the envelope): `ok` when every check is."""
    return {"ok": all(check.ok for check in checks), "checks": [check_json(c) for c in checks]}


def stats_json(stats: Stats) -> dict[str, Any]:
    data = asdict(stats)
    data["last_pass"] = iso(stats.last_pass)
    return data


# What fixed this before (`deja fix`, `deja/fix`) and the files a topic touched (`deja files`).


def fix_step_json(step: FixStep) -> dict[str, Any]:
    return {
        "turn": step.turn,
        "time": iso(step.time),
        "role": step.role,
        "tool": step.tool,
        "what": step.what,
        "status": step.status,
        "exit_code": step.exit_code,
    }


def fix_json(result: FixResult) -> dict[str, Any]:
    """Past failures best first; `fixed` false says plainly that a failure was never fixed, and
    `confirmed` that a later run of the same command passed."""
    return {
        "error": result.error,
        "total": result.total,
        "notes": result.notes,
        "failures": [
            {
                "session_id": f.session_id,
                "title": f.title,
                "workspace": f.workspace,
                "project": f.project,
                "turn": f.turn,
                "time": iso(f.time),
                "call": f.call,
                "exit_code": f.exit_code,
                "status": f.status,
                "error": f.error,
                "similarity": round(f.similarity, 3),
                "attempts": f.attempts,
                "fixed": f.fixed,
                "confirmed": f.confirmed,
                "steps": [fix_step_json(step) for step in f.steps],
                "passed_by": fix_step_json(f.passed_by) if f.passed_by else None,
                "same_fix": f.same_fix,
            }
            for f in result.failures
        ],
    }


def files_json(result: FilesResult) -> dict[str, Any]:
    return {
        "topic": result.topic,
        "sessions": result.sessions,
        "total": result.total,
        "files": [
            {
                "path": f.path,
                "relative": f.relative,
                "workspace": f.workspace,
                "edits": f.edits,
                "writes": f.writes,
                "reads": f.reads,
                "weight": f.weight,
                "last": iso(f.last),
                "sessions": [
                    {
                        "session_id": s.session_id,
                        "title": s.title,
                        "last_active": iso(s.last_active),
                        "events": s.events,
                    }
                    for s in f.sessions
                ],
            }
            for f in result.files
        ],
    }


# Restore: both doors list and restore the same sessions; each sends the facts it documents.


def listing_json(listing: Sequence[ListedSession]) -> list[dict[str, Any]]:
    return [{"number": item.number, **session_json(item.session)} for item in listing]


def restored_json(restored: Sequence[RestoredSession]) -> list[dict[str, Any]]:
    return [
        {
            "number": r.number,
            "until_turn": r.until,
            "full_turns": r.full_turns,
            "cached": r.cached,
            **session_json(r.session),
        }
        for r in restored
    ]


def current_json(current: CurrentSession | None, now: float) -> dict[str, Any] | None:
    """The session taken as current, why, and the command that restores it anyway."""
    if current is None:
        return None
    return {
        **session_json(current.session),
        "number": 0 if current.as_zero else None,
        "why": "being written" if current.being_written(now) else "newest",
        "restore": current.restore_command,
    }


def restore_json(result: RestoreResult, now: float) -> dict[str, Any]:
    """Every fact of a restore: the listing's page, each restored session, the current one
    (`deja restore --json`)."""
    return {
        "scope": result.scope,
        "notes": result.notes,
        "topic": result.topic,
        "message": result.message,
        "total": result.total,
        "offset": result.offset,
        "listing": listing_json(result.listing),
        "restored": restored_json(result.restored),
        "text": result.text,
        "current": current_json(result.current, now),
    }


def restore_reply_json(result: RestoreResult, markdown: str) -> dict[str, Any]:
    """A restore as the sidecar's `deja/restore` answers it (docs/protocol.md): no paging or
    current session, the restored sessions by id, and the markdown the editor shows."""
    return {
        "scope": result.scope,
        "notes": result.notes,
        "topic": result.topic,
        "text": result.text,
        "message": result.message,
        "markdown": markdown,
        "listing": listing_json(result.listing),
        "restored": [r.session.id for r in result.restored],
    }
