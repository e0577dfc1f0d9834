"""`deja restore`: earlier context back as a compact transcript, with no model call.

The pure half (selection syntax, collapse rules, head-and-tail cuts, the transcript and its closing
block, the listing) works on plain rows and is unit-tested without a database. The other half asks
the index (a few queries per session, never one per record), keeps a per-session cache under
DEJA_HOME and runs `git log` for the closing block.
"""

from __future__ import annotations

import hashlib
import os
import re
import sqlite3
import subprocess
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from pathlib import Path

import orjson

import deja
from deja.continue_store.tools import WRITE_TOOLS, call_outcome
from deja.units import ago, human_size
from deja.units import iso_time as iso

from .scope import Scope
from .search import SearchQuery, search
from .sessions import (
    _SUMMARY_COLUMNS,
    NEWEST_FIRST,
    SessionSummary,
    _summary,
    current_session,
    resolve_session_id,
)

FORMAT_VERSION = 1
FORMAT_LINE = f"# deja-restore-format: {FORMAT_VERSION}"
NO_PREVIOUS = "No previous sessions found in this project."

USER_CHARS = 300  # a user request's preview
PREVIEW_CHARS = 200  # an assistant item's preview
COMMAND_CHARS = 120
TOOL_ARGS_CHARS = 100
SUMMARY_CHARS = 300  # a compaction summary's preview
FULL_OUTPUT_CHARS = 1_200  # a tool's output under a turn shown in full
LAST_USER_COUNT = 5
LAST_USER_CHARS = 100
TOPIC_TURNS = 20
GIT_MAX_COMMITS = 30
GIT_AFTER_S = 2 * 3_600  # commits this soon after a session's last activity are its outcome
GIT_TIMEOUT_S = 5.0
CACHE_DIR = "restore-cache"
WRITING_S = 300  # a session file written this recently is the one open now

_TEXT_ROLES = ("user", "assistant", "summary")
_LIST_TOOLS = frozenset({"List", "ls"})
_NO_CUT = 1 << 62


class RestoreError(ValueError):
    """The request cannot be answered (bad selection, out of range); one line for the user."""


# Selection ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Selection:
    """What `deja restore …` asked for. `ranges` are inclusive; neither ranges nor `last` means
    the default (the current session when it lost context)."""

    ranges: tuple[tuple[int, int], ...] = ()
    last: bool = False
    topic: str | None = None

    @property
    def is_default(self) -> bool:
        return not self.ranges and not self.last


_NUMBER = re.compile(r"\d+")
_RANGE = re.compile(r"(\d+)\s*-\s*(\d+)")


def parse_selection(text: str) -> Selection:
    """`1,3`, `1-4`, `last`, `` (default), each optionally followed by `: topic`."""
    picked, colon, topic_text = text.partition(":")
    topic = " ".join(topic_text.split()) if colon else None
    if colon and not topic:
        raise RestoreError("nothing after ':': give a topic (deja restore 1,3 : flaky test)")
    picked = picked.strip()
    if not picked:
        return Selection(topic=topic)
    if picked.lower() == "last":
        return Selection(last=True, topic=topic)
    ranges: list[tuple[int, int]] = []
    for part in picked.split(","):
        part = part.strip()
        single = _NUMBER.fullmatch(part)
        pair = _RANGE.fullmatch(part)
        if single:
            ranges.append((int(part), int(part)))
        elif pair:
            low, high = int(pair.group(1)), int(pair.group(2))
            if low > high:
                raise RestoreError(f"range {part!r} runs backwards: write {high}-{low}")
            ranges.append((low, high))
        elif re.fullmatch(r"\d+\s*-|-\s*\d+", part):
            raise RestoreError(f"range {part!r} needs both ends (like 1-4)")
        else:
            shown = part or picked
            raise RestoreError(
                f"cannot read {shown!r}: give session numbers (1,3), a range (1-4) or last"
            )
    return Selection(tuple(ranges), topic=topic)


def expand(ranges: Sequence[tuple[int, int]], highest: int, *, has_zero: bool) -> list[int]:
    """The numbers picked, in order given, each once; checked before expanding (so `1-99999999`
    fails fast instead of building a list)."""
    for low, high in ranges:
        for number in (low, high):
            if number == 0 and not has_zero:
                raise RestoreError(
                    "no session #0: the current session lost no context to compaction"
                )
            if number > highest:
                raise RestoreError(
                    f"no session #{number}: this project has "
                    + (f"{highest} earlier sessions (#1-#{highest})" if highest else "none")
                    + "; run deja restore to list them"
                )
    seen: dict[int, None] = {}
    for low, high in ranges:
        seen.update(dict.fromkeys(range(low, high + 1)))
    return list(seen)


# Text cutting and collapse rules -------------------------------------------------------------


def one_line(text: str) -> str:
    return " ".join(text.split())


def cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def head_tail(text: str, limit: int, marker: str = " […] ") -> str:
    """Keep the head (two thirds) and the tail (one third), not splitting words."""
    if len(text) <= limit:
        return text
    head_len = max(1, limit * 2 // 3)
    tail_len = max(1, limit - head_len)
    head, tail = text[:head_len], text[-tail_len:]
    space = head.rfind(" ", head_len // 2)
    if space > 0:
        head = head[:space]
    space = tail.find(" ", 0, tail_len // 2)
    if space >= 0:
        tail = tail[space + 1 :]
    return f"{head.rstrip()}{marker}{tail.lstrip()}"


_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+\S")


def collapse(text: str) -> list[str]:
    """Lines of `text` with code blocks, tables and lists (two items or more) each replaced by one
    marker line: a preview says what is there without spending room on it."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        fence = _FENCE.match(line)
        if fence:
            mark = fence.group(1)
            closing = re.compile(rf"^ {{0,3}}{re.escape(mark[0])}{{{len(mark)},}}\s*$")
            i += 1
            while i < len(lines) and not closing.match(lines[i]):
                i += 1
            out.append("[Code]")
            i += 1  # past the closing fence (or the end: an unclosed block runs to the end)
            continue
        if "|" in line and i + 1 < len(lines) and _TABLE_RULE.match(lines[i + 1]):
            i += 2
            while i < len(lines) and "|" in lines[i] and lines[i].strip():
                i += 1
            out.append("[Table]")
            continue
        if _LIST_ITEM.match(line):
            end, items = i, 0
            while end < len(lines):
                if _LIST_ITEM.match(lines[end]):
                    items += 1
                elif not (lines[end].strip() and lines[end][:1].isspace()):
                    break  # a continuation line is indented; anything else ends the list
                end += 1
            if items >= 2:
                out.append("[List]")
                i = end
                continue
        out.append(line)
        i += 1
    return out


def preview(text: str, limit: int = PREVIEW_CHARS) -> str:
    return head_tail(one_line(" ".join(collapse(text))), limit)


# Rows and the transcript ------------------------------------------------------------------------


@dataclass(slots=True)
class Entry:
    """One record as restore needs it. `text` is filled for user, assistant and summary records
    only: a preview never needs tool output or written text."""

    id: int
    turn: int
    role: str
    time: float
    text: str = ""
    tool: str | None = None
    status: str | None = None
    path: str | None = None
    exit_code: int | None = None
    args: str | None = None
    compacted: bool = False


@dataclass(frozen=True, slots=True)
class LastUser:
    """One of a section's last user requests, for the closing block (cached with the section)."""

    time: float
    turn: int
    text: str  # cut at LAST_USER_CHARS


@dataclass(slots=True)
class _Response:
    turn: int
    time: float
    text: str
    tools: list[Entry]


@dataclass(slots=True)
class _Block:
    turn: int
    time: float
    user: Entry | None
    attached: list[str] = field(default_factory=list)
    responses: list[_Response] = field(default_factory=list)


@dataclass(slots=True)
class _Boundary:
    turn: int
    summary: Entry | None  # None: the file lost turns without leaving a summary
    removed: bool  # the turns above are no longer in Continue's file
    earlier: bool = True  # the index holds turns above it (none: compacted before Deja saw it)


def relative_path(path: str | None, workspace: str) -> str:
    if not path:
        return "(no path)"
    prefix = workspace.rstrip("/") + "/"
    return path[len(prefix) :] if workspace and path.startswith(prefix) else path


def tool_summary(entry: Entry, workspace: str) -> str:
    """`$ cmd → exit N`, `edited path`, `wrote path`, `read path`, `Tool {args}`; a call that did
    not run as asked says how it ended (`call_outcome`)."""
    ended = call_outcome(entry.status)
    if entry.role == "command":
        command = head_tail(one_line(entry.args or ""), COMMAND_CHARS) or "(no command)"
        if entry.exit_code is not None:
            return f"$ {command} → exit {entry.exit_code}"
        return f"$ {command} → {ended or 'done'}"
    path = relative_path(entry.path, workspace)
    if entry.role == "edit":
        write = entry.tool in WRITE_TOOLS
        if ended is None:
            return f"{'wrote' if write else 'edited'} {path}"
        return f"{'write' if write else 'edit'} {path} → {ended}"
    if entry.role == "read":
        verb = "listed" if entry.tool in _LIST_TOOLS else "read"
        return f"{verb} {path}" if ended is None else f"{verb} {path} → {ended}"
    args = head_tail(one_line(entry.args or ""), TOOL_ARGS_CHARS)
    call = f"{entry.tool or 'tool'} {args}".rstrip()
    return call if ended is None else f"{call} → {ended}"


def _structure(
    entries: Sequence[Entry], base_turn: int, kept_turns: int
) -> list[_Block | _Boundary]:
    """Entries (turn order) → user blocks with their assistant items, and compaction boundaries."""
    out: list[_Block | _Boundary] = []
    by_turn: dict[int, list[Entry]] = {}
    for entry in entries:
        by_turn.setdefault(entry.turn, []).append(entry)
    summary_turns = {e.turn for e in entries if e.role == "summary"}
    gone_marked = not kept_turns or base_turn in summary_turns
    removed_seen = False
    current: _Block | None = None
    for turn, group in by_turn.items():
        if not gone_marked and turn >= base_turn and removed_seen:
            out.append(_Boundary(base_turn, None, removed=True))
            current, gone_marked = None, True
        removed_seen = removed_seen or any(e.compacted for e in group)
        user = next((e for e in group if e.role == "user"), None)
        attached = [e.path for e in group if e.role == "attached" and e.path]
        if user is not None or attached:  # a user item (text or attachments) opens a block
            current = _Block(turn, group[0].time, user, attached)
            out.append(current)
        text = "\n\n".join(e.text for e in group if e.role == "assistant")
        tools = [e for e in group if e.role in ("command", "read", "edit", "tool")]
        if text.strip() or tools:
            if current is None:
                current = _Block(turn, group[0].time, None)
                out.append(current)
            current.responses.append(_Response(turn, group[0].time, text, tools))
        summary = next((e for e in group if e.role == "summary"), None)
        if summary is not None:
            out.append(_Boundary(turn, summary, removed_seen, earlier=turn > entries[0].turn))
            current = None
    return out


def _indent(text: str, prefix: str) -> list[str]:
    return [prefix + line if line.strip() else "" for line in text.split("\n")]


def _response_lines(
    number: int, response: _Response, workspace: str, full: bool, outputs: dict[int, str]
) -> list[str]:
    lead = f"  {number}. "
    pad = " " * len(lead)
    parts: list[str] = []
    if response.text.strip():
        if full:
            parts += response.text.strip("\n").split("\n")
        else:
            parts.append(preview(response.text))
    for tool in response.tools:
        parts.append(tool_summary(tool, workspace))
        output = outputs.get(tool.id) if full and tool.role != "read" else None
        if output and output.strip():
            shown = head_tail(output.strip("\n"), FULL_OUTPUT_CHARS, marker="\n[…]\n")
            parts += _indent(shown, "  ")
    return [lead + parts[0], *(pad + line if line else "" for line in parts[1:])]


def _user_text(text: str, full: bool) -> str:
    return text.strip() if full else head_tail(one_line(text), USER_CHARS)


def _count(n: int) -> str:
    return "-> no AI response" if n == 0 else f"-> {n} AI response{'s' if n > 1 else ''}"


def build_section(
    session: SessionSummary,
    entries: Sequence[Entry],
    *,
    base_turn: int = 0,
    until: int | None = None,
    full: Iterable[int] = (),
    outputs: dict[int, str] | None = None,
) -> tuple[str, list[LastUser]]:
    """One session's part of the transcript (entries before `until` only) and its last user
    requests.
    Turns in `full` show their text uncut and their tools' output (from `outputs`)."""
    full_turns = set(full)
    outputs = outputs or {}
    kept = [e for e in entries if until is None or e.turn < until]
    id8 = session.id[:8]
    title = one_line(session.title)
    lines = [
        f'## Session {session.id} · "{title}" · {session.workspace or "(no workspace)"}'
        f" · {iso(session.started)} → {iso(session.last_active)}"
    ]
    if until is not None:
        lines.append(f"## Current session: only what came before its last compaction (#{until})")
    if session.kept_turns:
        lines.append(
            f"## {session.kept_turns} turns are kept only by Deja: Continue's compaction"
            " removed them from its file"
        )
    if session.deleted:
        lines.append("## Continue's file for this session is gone; Deja kept what it had indexed")
    elements = _structure(kept, base_turn, session.kept_turns)
    if not elements:
        lines.append("")
        lines.append(
            "(nothing before its last compaction: Deja first saw it after Continue compacted it)"
            if until is not None
            else "(nothing to restore: the index holds no message or tool call of this session)"
        )
    for element in elements:
        lines.append("")
        if isinstance(element, _Boundary):
            lines += _boundary_lines(element, element.turn in full_turns)
            continue
        stamp = f"[Session:{id8} {iso(element.time)} #{element.turn}]"
        if element.user is not None:
            text = _user_text(element.user.text, element.turn in full_turns)
            lines.append(f'{stamp} User: "{text}"')
        else:
            lines.append(f"{stamp} (no user message)")
        if element.attached:
            shown = ", ".join(relative_path(p, session.workspace) for p in element.attached)
            lines.append(f"   attached: {shown}")
        lines.append(_count(len(element.responses)))
        for number, response in enumerate(element.responses, 1):
            lines += _response_lines(
                number, response, session.workspace, response.turn in full_turns, outputs
            )
    users = [e for e in kept if e.role == "user"][-LAST_USER_COUNT:]
    last_users = [LastUser(e.time, e.turn, cut(one_line(e.text), LAST_USER_CHARS)) for e in users]
    return "\n".join(lines) + "\n", last_users


def _boundary_lines(boundary: _Boundary, full: bool) -> list[str]:
    if boundary.summary is None:
        return [
            f"--- compaction before #{boundary.turn}: Continue's file no longer holds the turns"
            " above; only Deja still has them ---"
        ]
    if not boundary.earlier:
        what = "earlier turns, compacted before Deja indexed this session"
    elif boundary.removed:
        what = "the turns above; only Deja still has them"
    else:
        what = "the turns above; they are still in Continue's file"
    text = boundary.summary.text
    shown = text.strip() if full else preview(text, SUMMARY_CHARS)
    return [
        f"--- compaction at #{boundary.turn}: Continue summarised {what} ---",
        f'    summary: "{shown}"',
    ]


# The closing block ----------------------------------------------------------------------------


@dataclass(slots=True)
class RestoredSession:
    session: SessionSummary
    number: int | None  # its number in the listing, when picked by number
    until: int | None  # the current session: only turns before this one (its last compaction)
    last_users: list[LastUser]
    full_turns: list[int]
    cached: bool  # the section came from the cache


@dataclass(frozen=True, slots=True)
class Commits:
    workspace: str
    since: float
    until: float
    log: str  # `git log` output; empty when no commit was made in that range


def closing_block(restored: Sequence[RestoredSession], commits: Sequence[Commits]) -> str:
    """Turn times in the index are laid out from the start, so the range restored is the
    sessions' own: first start to last activity."""
    count = len(restored)
    span = ""
    if restored:
        start = min(r.session.started for r in restored)
        end = max(r.session.last_active for r in restored)
        span = f" · {iso(start)} → {iso(end)}"
    example = next(
        (
            f"deja show {r.session.id[:8]} --turn {r.last_users[-1].turn}"
            for r in reversed(restored)
            if r.last_users
        ),
        "deja show ID --turn N",
    )
    lines = [
        f"## Restored {count} session{'s' if count != 1 else ''}{span}",
        f"Read any turn in full: deja show <id> --turn N (e.g. {example})",
    ]
    users = sorted(
        (user.time, r.session.id[:8], user.turn, user.text)
        for r in restored
        for user in r.last_users
    )[-LAST_USER_COUNT:]
    if users:
        lines.append("Last user messages (oldest first):")
        lines += [f'  [{id8} #{turn}] "{text}"' for _, id8, turn, text in users]
    for found in commits:
        command = (
            f"git log --since={iso(found.since)} --until={iso(found.until)} --stat --no-merges"
        )
        if found.log.strip():
            lines.append(f"Commits in {found.workspace} during that time ({command}):")
            lines += _indent(found.log.rstrip("\n"), "  ")
        else:
            lines.append(f"No commits in {found.workspace} during that time ({command}).")
    scope = f"--session {restored[0].session.id[:8]}" if count == 1 else "--all"
    lines.append(
        f'Search deeper (no model call): deja search "words" {scope}'
        " · add --role user|command|edit to narrow"
    )
    return "\n".join(lines) + "\n"


def git_commits(workspace: str, since: float, until: float) -> str | None:
    """The workspace's commits in [since, until], or None when it is not a git work tree."""
    if not workspace or not os.path.isdir(workspace):
        return None
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}
    try:
        done = subprocess.run(
            [
                "git",
                "-C",
                workspace,
                "log",
                f"--since={iso(since)}",
                f"--until={iso(until)}",
                "--stat",
                "--no-merges",
                "--no-color",
                # The workspace path comes from a session file: run no diff driver it configures.
                "--no-textconv",
                "--no-ext-diff",
                f"--max-count={GIT_MAX_COMMITS}",
                "--format=%h %aI %an: %s",
                "--",
                ".",
            ],
            capture_output=True,
            text=True,
            errors="replace",
            timeout=GIT_TIMEOUT_S,
            env=env,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


# The listing ----------------------------------------------------------------------------------


@dataclass(slots=True)
class ListedSession:
    number: int  # 0: the current session, listed only when it lost context
    session: SessionSummary


@dataclass(frozen=True, slots=True)
class CurrentSession:
    """The session taken as the one being worked in (the newest in scope): left out of the
    numbers, or #0 when it lost context. Said, not hidden: run from a plain shell, the newest may
    be the very session the user wants back."""

    session: SessionSummary
    as_zero: bool

    def being_written(self, now: float) -> bool:
        return now - self.session.last_active < WRITING_S

    @property
    def restore_command(self) -> str:
        return f"deja restore --session {self.session.id[:8]}"


def _minute(timestamp: float, tz: tzinfo | None) -> str:
    return datetime.fromtimestamp(timestamp, tz).strftime("%Y-%m-%d %H:%M")


def current_lines(
    current: CurrentSession,
    *,
    scope_label: str,
    tz: tzinfo | None = None,
    now: float | None = None,
) -> list[str]:
    """Which session is current and why, and how to restore it anyway."""
    s = current.session
    moment = time.time() if now is None else now
    why = (
        f"written {ago(s.last_active, moment)} (open now)"
        if current.being_written(moment)
        else f"last active {_minute(s.last_active, tz)}"
    )
    place = "#0 above" if current.as_zero else "not numbered"
    lines = [
        f'Current session ({place}): "{one_line(s.title)}" ({s.id[:8]}),'
        f" the newest in {scope_label}, {why}"
    ]
    if not current.as_zero:
        lines.append(f"  Not the one you are in? {current.restore_command} restores it")
    return lines


def passed_over(current: CurrentSession, *, scope_label: str) -> str:
    """What `restore last` says when it skipped the current session for the one before it."""
    s = current.session
    return (
        f'last left out the current session "{one_line(s.title)}" ({s.id[:8]}),'
        f" the newest in {scope_label}; {current.restore_command} restores it"
    )


def listing_lines(
    listing: Sequence[ListedSession],
    *,
    scope_label: str,
    total: int,
    tz: tzinfo | None = None,
    current: CurrentSession | None = None,
    now: float | None = None,
) -> list[str]:
    """The numbered table `deja restore` prints (local times unless `tz` is given), and which
    session is current."""
    if not listing:
        return [NO_PREVIOUS]

    def when(timestamp: float) -> str:
        return _minute(timestamp, tz)

    numbered = [item for item in listing if item.number > 0]
    shown = f" (#{numbered[0].number}-#{numbered[-1].number} of {total})" if numbered else ""
    lines = [f"Sessions in {scope_label}, newest first{shown}:"]
    for item in listing:
        s = item.session
        note = " · current session, lost context to compaction" if item.number == 0 else ""
        if s.kept_turns and item.number:
            note = f" · {s.kept_turns} turns only in Deja (compacted)"
        lines.append(
            f"#{item.number:<3} {when(s.started)} → {when(s.last_active)}"
            f" · {human_size(s.size)} · {s.message_count} messages{note}"
        )
        lines.append(f"     first: {s.first_user}")
        if s.last_user != s.first_user:
            lines.append(f"     last:  {s.last_user}")
    if current is not None:
        lines += current_lines(current, scope_label=scope_label, tz=tz, now=now)
    lines.append("")
    picks = ["deja restore 1,3", "deja restore 1-4"] if numbered else []
    picks.append("deja restore last")
    if any(item.number == 0 for item in listing):
        picks.append("deja restore 0 (what compaction removed)")
    lines.append(f'Restore: {" · ".join(picks)} · add ": topic" to show the matching turns in full')
    if numbered and numbered[-1].number < total:
        lines.append(f"More: deja restore --offset {numbered[-1].number}")
    return lines


# From the index ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SessionState:
    """A session's row and what changes whenever the index rewrites any of its records."""

    session: SessionSummary
    mtime_ns: int
    base_turn: int
    last_summary: int | None
    record_count: int
    last_record: int

    @property
    def boundary(self) -> int | None:
        """The turn of its last compaction: its last summary item, or where the file's turns
        start when compaction left no summary."""
        turns = [self.last_summary] if self.last_summary is not None else []
        if self.session.kept_turns:
            turns.append(self.base_turn)
        return max(turns) if turns else None

    def cache_key(self, until: int | None) -> str:
        s = self.session
        parts = (
            FORMAT_VERSION,
            deja.__version__,
            s.id,
            s.title,
            s.workspace,
            s.started,
            s.last_active,
            s.size,
            s.kept_turns,
            s.deleted,
            self.mtime_ns,
            self.base_turn,
            self.record_count,
            self.last_record,
            until,
        )
        return hashlib.blake2b(repr(parts).encode(), digest_size=16).hexdigest()


_STATE_SQL = (
    f"SELECT {_SUMMARY_COLUMNS}, mtime_ns, base_turn,"
    " (SELECT max(turn) FROM items WHERE session_id = s.id AND is_summary = 1),"
    " (SELECT count(*) FROM records WHERE session_id = s.id),"
    " (SELECT coalesce(max(id), 0) FROM records WHERE session_id = s.id)"
    " FROM sessions s WHERE id = ?"
)
_SUMMARY_WIDTH = len(_SUMMARY_COLUMNS.split(","))


def load_state(db: sqlite3.Connection, session_id: str) -> SessionState:
    row = db.execute(_STATE_SQL, (session_id,)).fetchone()
    if row is None:
        raise RestoreError(f"no session {session_id!r} in the index")
    rest = row[_SUMMARY_WIDTH:]
    return SessionState(
        session=_summary(row[:_SUMMARY_WIDTH]),
        mtime_ns=int(rest[0]),
        base_turn=int(rest[1]),
        last_summary=None if rest[2] is None else int(rest[2]),
        record_count=int(rest[3]),
        last_record=int(rest[4]),
    )


def load_entries(db: sqlite3.Connection, session_id: str, until: int | None) -> list[Entry]:
    """One query: every record before `until`, text read only where a preview needs it (tool
    output and written text stay in the index)."""
    roles = ",".join(f"'{role}'" for role in _TEXT_ROLES)
    return [
        Entry(
            id=row[0],
            turn=row[1],
            role=row[2],
            time=row[3],
            text=row[4] or "",
            tool=row[5],
            status=row[6],
            path=row[7],
            exit_code=row[8],
            args=row[9],
            compacted=bool(row[10]),
        )
        for row in db.execute(
            "SELECT r.id, r.turn, r.role, r.time,"
            f" CASE WHEN r.role IN ({roles})"
            " THEN (SELECT body FROM records_fts WHERE rowid = r.id) END,"
            " r.tool, r.status, r.path, r.exit_code, r.args, r.compacted"
            " FROM records r WHERE r.session_id = ? AND r.turn < ? AND r.role != 'reasoning'"
            " ORDER BY r.turn, r.id",
            (session_id, _NO_CUT if until is None else until),
        )
    ]


def load_outputs(db: sqlite3.Connection, session_id: str, turns: Sequence[int]) -> dict[int, str]:
    if not turns:
        return {}
    rows = db.execute(
        "SELECT id, output FROM records WHERE session_id = ? AND output IS NOT NULL"
        f" AND turn IN ({','.join('?' * len(turns))})",
        [session_id, *turns],
    )
    return {int(row[0]): str(row[1]) for row in rows}


def _listable_where(scope: Scope, exclude: str | None) -> tuple[str, list[object]]:
    # Sessions with no genuine user message have nothing to restore.
    scope_sql, params = scope.sql("workspace")
    where = ["first_user != ''", *([scope_sql] if scope_sql else [])]
    if exclude is not None:
        where.append("id != ?")
        params.append(exclude)
    return " AND ".join(where), params


def listable(
    db: sqlite3.Connection, scope: Scope, exclude: str | None, limit: int, offset: int
) -> list[SessionSummary]:
    """The numbered sessions, newest first: #1 is at offset 0."""
    where, params = _listable_where(scope, exclude)
    rows = db.execute(
        f"SELECT {_SUMMARY_COLUMNS} FROM sessions WHERE {where}"
        f" ORDER BY {NEWEST_FIRST} LIMIT ? OFFSET ?",
        [*params, limit, offset],
    ).fetchall()
    return [_summary(row) for row in rows]


def count_listable(db: sqlite3.Connection, scope: Scope, exclude: str | None) -> int:
    where, params = _listable_where(scope, exclude)
    return int(db.execute(f"SELECT count(*) FROM sessions WHERE {where}", params).fetchone()[0])


# The cache ------------------------------------------------------------------------------------


class SectionCache:
    """One file per session (0600, in a 0700 folder under DEJA_HOME), holding its section as last
    built and the key it was built under. A file whose key differs is stale and rebuilt."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def path(self, session_id: str) -> Path:
        # Hashed: a session id never becomes part of a path.
        name = hashlib.blake2b(session_id.encode(), digest_size=16).hexdigest()
        return self.folder / f"{name}.json"

    def get(self, session_id: str, key: str) -> tuple[str, list[LastUser]] | None:
        try:
            data = orjson.loads(self.path(session_id).read_bytes())
        except (OSError, orjson.JSONDecodeError):
            return None
        if not isinstance(data, dict) or data.get("key") != key:
            return None
        return str(data["text"]), [LastUser(*user) for user in data["users"]]

    def put(self, session_id: str, key: str, text: str, users: Sequence[LastUser]) -> None:
        """Best effort: a cache that cannot be written only costs the next restore time."""
        data = orjson.dumps(
            {"key": key, "text": text, "users": [[u.time, u.turn, u.text] for u in users]}
        )
        target = self.path(session_id)
        temp = target.with_name(f".{target.stem}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
        try:
            self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            os.chmod(self.folder, 0o700)
            fd = os.open(temp, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
            with os.fdopen(fd, "wb") as out:
                out.write(data)
            os.replace(temp, target)
        except OSError:
            temp.unlink(missing_ok=True)

    def prune(self, session_ids: Iterable[str]) -> None:
        """Drop the files of sessions no longer in the index (`forget` removed them): the cache
        must not keep conversations the user asked Deja to forget."""
        keep = {self.path(session_id).name for session_id in session_ids}
        try:
            with os.scandir(self.folder) as entries:
                for entry in entries:
                    if entry.name.endswith(".json") and entry.name not in keep:
                        Path(entry.path).unlink(missing_ok=True)
        except OSError:
            pass


# The whole request ------------------------------------------------------------------------------


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


@dataclass(frozen=True, slots=True)
class _Pick:
    number: int | None
    state: SessionState
    until: int | None


def restore(
    db: sqlite3.Connection,
    cache: SectionCache,
    scope: Scope | None,
    *,
    notes: Sequence[str] = (),
    selection: str = "",
    session: str | None = None,
    topic: str | None = None,
    limit: int = 20,
    offset: int = 0,
) -> RestoreResult:
    """See `History.restore`. `scope` None: the directory belongs to no known workspace."""
    chosen = parse_selection(selection)
    if topic is not None and topic.strip():
        if chosen.topic is not None:
            raise RestoreError("the topic is given twice (after ':' and as a topic)")
        chosen = Selection(chosen.ranges, chosen.last, one_line(topic))
    result = RestoreResult(
        scope=scope.label if scope else "this directory",
        notes=list(notes),
        topic=chosen.topic,
        listing=[],
        total=0,
        offset=offset,
        restored=[],
    )
    if session is not None:
        if not chosen.is_default:
            raise RestoreError("give session numbers or --session, not both")
        state = load_state(db, resolve_session_id(db, session))
        # Current in its own workspace, whatever directory the request came from.
        newest = current_session(db, Scope((state.session.workspace,)))
        is_current = newest is not None and newest.id == state.session.id
        until = state.boundary if is_current and state.session.lost_context else None
        return _restore_picks(db, cache, result, [_Pick(None, state, until)])

    current = current_session(db, scope) if scope else None
    zero = _zero(db, current) if current else None
    exclude = current.id if current else None
    if current is not None:
        result.current = CurrentSession(current, as_zero=zero is not None)
    result.total = count_listable(db, scope, exclude) if scope else 0

    def numbered(numbers: Sequence[int]) -> list[_Pick]:
        """Numbers already checked against the listing; its sessions fetched in one query."""
        positive = [n for n in numbers if n > 0]
        low = min(positive, default=1)
        page: dict[int, SessionSummary] = {}
        if positive and scope is not None:
            rows = listable(db, scope, exclude, max(positive) - low + 1, low - 1)
            page = {low + i: summary for i, summary in enumerate(rows)}
        picks = []
        for number in numbers:
            if number == 0 and zero is not None:
                picks.append(_Pick(0, zero, zero.boundary))
            else:
                picks.append(_Pick(number, load_state(db, page[number].id), None))
        return picks

    if chosen.last:
        if zero is None and result.total == 0:
            result.message = NO_PREVIOUS
            return result
        return _restore_picks(db, cache, result, numbered([0 if zero else 1]))
    if chosen.ranges:
        numbers = expand(chosen.ranges, result.total, has_zero=zero is not None)
        return _restore_picks(db, cache, result, numbered(numbers))
    if chosen.topic is not None and zero is not None:
        return _restore_picks(db, cache, result, numbered([0]))
    # Nothing selected: the listing.
    if zero is not None and current is not None and offset == 0:
        result.listing.append(ListedSession(0, current))
    if scope is not None:
        page = listable(db, scope, exclude, limit, offset)
        result.listing += [ListedSession(offset + i, s) for i, s in enumerate(page, 1)]
    if not result.listing:
        result.message = NO_PREVIOUS
    elif chosen.topic is not None:
        result.message = (
            "Nothing selected: the current session lost no context to compaction. Pick sessions"
            f" by number, e.g. deja restore 1,3 : {chosen.topic}"
        )
    return result


def _zero(db: sqlite3.Connection, current: SessionSummary) -> SessionState | None:
    """The current session as #0: only when it lost context and the index still holds something
    from before its last compaction (not when Continue compacted it before Deja first saw it)."""
    if not (current.lost_context and current.first_user):
        return None
    state = load_state(db, current.id)
    if not state.boundary:
        return None
    before = db.execute(
        "SELECT 1 FROM records WHERE session_id = ? AND turn < ? LIMIT 1",
        (current.id, state.boundary),
    ).fetchone()
    return state if before else None


def _topic_turns(
    db: sqlite3.Connection, topic: str, picks: Sequence[_Pick]
) -> dict[str, list[int]]:
    """The TOPIC_TURNS turns the index ranks most relevant to `topic` across the picks."""
    best: dict[tuple[str, int], float] = {}
    for pick in picks:
        session_id = pick.state.session.id
        hits = search(db, SearchQuery(topic, session=session_id, limit=TOPIC_TURNS * 5)).hits
        for hit in hits:
            if pick.until is not None and hit.turn >= pick.until:
                continue
            key = (session_id, hit.turn)
            best[key] = max(best.get(key, hit.score), hit.score)
    ranked = sorted(best.items(), key=lambda item: -item[1])[:TOPIC_TURNS]
    turns: dict[str, list[int]] = {}
    for (session_id, turn), _ in ranked:
        turns.setdefault(session_id, []).append(turn)
    return {session_id: sorted(found) for session_id, found in turns.items()}


def _restore_picks(
    db: sqlite3.Connection, cache: SectionCache, result: RestoreResult, picks: list[_Pick]
) -> RestoreResult:
    # Oldest first: the transcript reads in the order things happened.
    picks = sorted(picks, key=lambda p: (p.state.session.started, p.state.session.id))
    topic = result.topic
    full = _topic_turns(db, topic, picks) if topic else {}
    sections: list[str] = []
    wrote = False
    for pick in picks:
        session_id = pick.state.session.id
        key = pick.state.cache_key(pick.until)
        turns = full.get(session_id, [])
        hit = None if topic else cache.get(session_id, key)
        if hit is not None:
            text, users = hit
        else:
            entries = load_entries(db, session_id, pick.until)
            text, users = build_section(
                pick.state.session,
                entries,
                base_turn=pick.state.base_turn,
                until=pick.until,
                full=turns,
                outputs=load_outputs(db, session_id, turns),
            )
            if not topic:  # a topic restore never modifies the cache
                cache.put(session_id, key, text, users)
                wrote = True
        sections.append(text)
        result.restored.append(
            RestoredSession(
                pick.state.session, pick.number, pick.until, users, turns, hit is not None
            )
        )
    if wrote:
        cache.prune(row[0] for row in db.execute("SELECT id FROM sessions"))
    head = [FORMAT_LINE]
    if topic:
        count = sum(len(turns) for turns in full.values())
        head.append(
            f'# topic: "{topic}" · {count} turns shown in full'
            if count
            else f'# topic: "{topic}" · no turn matched; previews only'
        )
    result.text = (
        "\n".join(head)
        + "\n\n"
        + "\n".join(sections)
        + "\n"
        + closing_block(result.restored, _commits(db, result.restored))
    )
    return result


def work_window(db: sqlite3.Connection, session: SessionSummary) -> tuple[float, float]:
    """The time whose commits are the session's work: from its first turn until the next session
    in its workspace starts or GIT_AFTER_S after its last activity, whichever is sooner (and never
    before its last activity: commits made right after a session are its outcome)."""
    row = db.execute(
        "SELECT min(started) FROM sessions WHERE workspace = ? AND started > ? AND id != ?",
        (session.workspace, session.started, session.id),
    ).fetchone()
    end = session.last_active + GIT_AFTER_S
    if row[0] is not None:
        end = min(end, float(row[0]))
    return session.started, max(end, session.last_active)


def merge_windows(windows: Iterable[tuple[float, float]]) -> list[tuple[float, float]]:
    """Overlapping or touching windows as one, in time order."""
    merged: list[tuple[float, float]] = []
    for since, until in sorted(windows):
        if merged and since <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], until))
        else:
            merged.append((since, until))
    return merged


def _commits(db: sqlite3.Connection, restored: Sequence[RestoredSession]) -> list[Commits]:
    windows: dict[str, list[tuple[float, float]]] = {}
    for r in restored:
        if r.session.workspace:
            windows.setdefault(r.session.workspace, []).append(work_window(db, r.session))
    found = []
    for workspace, spans in windows.items():
        for since, until in merge_windows(spans):
            log = git_commits(workspace, since, until)
            if log is None:
                break  # not a git work tree: no other window of it is either
            found.append(Commits(workspace, since, until, log))
    return found
