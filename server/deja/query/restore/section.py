"""One session's part of the transcript: its records as user blocks with numbered previews of
the assistant's items, and compaction boundaries. Works on plain rows (`Entry`), no database."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from deja.continue_store.tool_calls import call_outcome, edit_verb
from deja.continue_store.workspace import relative_to_workspace
from deja.one_line import cut, one_line
from deja.quantities import count
from deja.time_format import iso_time as iso

from ..sessions import SessionSummary, fork_line
from .shaping import head_tail, indent, preview

# The transcript's format: its first line, and part of every cached section's key.
FORMAT_VERSION = 1
FORMAT_LINE = f"# deja-restore-format: {FORMAT_VERSION}"

USER_CHARS = 300  # a user request's preview
COMMAND_CHARS = 120
TOOL_ARGS_CHARS = 100
SUMMARY_CHARS = 300  # a compaction summary's preview
FULL_OUTPUT_CHARS = 1_200  # a tool's output under a turn shown in full
LAST_USER_COUNT = 5
LAST_USER_CHARS = 101  # 100 characters and the cut mark

_LIST_TOOLS = frozenset({"List", "ls"})


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


@dataclass(frozen=True, slots=True)
class Inherited:
    """A fork's copy of its parent's turns: its real history, shown once and as the parent's
    (the parent's id and turn numbers, which `deja show` reads). `entries` is empty when the
    parent is in the same transcript: the turns are shown there."""

    entries: Sequence[Entry]
    parent_turn: int  # the parent's turn the copy starts at


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
    return relative_to_workspace(path, workspace)


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
        verb = edit_verb(entry.tool, ran=ended is None)
        return f"{verb} {path}" if ended is None else f"{verb} {path} → {ended}"
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
            parts += indent(shown, "  ")
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
    inherited: Inherited | None = None,
) -> tuple[str, list[LastUser]]:
    """One session's part of the transcript (entries before `until` only) and its last user
    requests; a fork's `inherited` turns first, as its parent's.
    Turns in `full` show their text uncut and their tools' output (from `outputs`)."""
    full_turns = set(full)
    outputs = outputs or {}
    kept = [e for e in entries if until is None or e.turn < until]
    title = one_line(session.title)
    lines = [
        f'## Session {session.id} · "{title}" · {session.workspace or "(no workspace)"}'
        f" · {iso(session.started)} → {iso(session.last_active)}"
    ]
    if until is not None:
        lines.append(_current_line(kept, until))
    if session.kept_turns:
        lines.append(
            f"## {count(session.kept_turns, 'turn')}"
            f" {'is' if session.kept_turns == 1 else 'are'} kept only by Deja:"
            " Continue's compaction removed them from its file"
        )
    if session.deleted:
        lines.append("## Continue's file for this session is gone; Deja kept what it had indexed")
    lines += _inherited_lines(session, inherited, until)
    elements = _structure(kept, base_turn, session.kept_turns)
    if not elements:
        lines.append("")
        lines.append(
            "(nothing before its last compaction: Deja first saw it after Continue compacted it)"
            if until is not None
            else "(nothing to restore: the index holds no message or tool call of this session)"
        )
    lines += _element_lines(elements, session.id[:8], session.workspace, full_turns, outputs)
    users = [e for e in kept if e.role == "user"][-LAST_USER_COUNT:]
    last_users = [LastUser(e.time, e.turn, cut(e.text, LAST_USER_CHARS)) for e in users]
    return "\n".join(lines) + "\n", last_users


def _element_lines(
    elements: Sequence[_Block | _Boundary],
    id8: str,
    workspace: str,
    full_turns: set[int],
    outputs: dict[int, str],
    shift: int = 0,
) -> list[str]:
    """The blocks and boundaries, each turn stamped `[Session:<id8> <time> #<turn + shift>]`."""
    lines: list[str] = []
    for element in elements:
        lines.append("")
        if isinstance(element, _Boundary):
            lines += _boundary_lines(element, element.turn in full_turns)
            continue
        stamp = f"[Session:{id8} {iso(element.time)} #{element.turn + shift}]"
        if element.user is not None:
            text = _user_text(element.user.text, element.turn in full_turns)
            lines.append(f'{stamp} User: "{text}"')
        else:
            lines.append(f"{stamp} (no user message)")
        if element.attached:
            shown = ", ".join(relative_path(p, workspace) for p in element.attached)
            lines.append(f"   attached: {shown}")
        lines.append(_count(len(element.responses)))
        for number, response in enumerate(element.responses, 1):
            lines += _response_lines(
                number, response, workspace, response.turn in full_turns, outputs
            )
    return lines


def _inherited_lines(
    session: SessionSummary, inherited: Inherited | None, until: int | None
) -> list[str]:
    """A fork's header line and, unless its parent is restored with it, the turns it carries
    from the parent, marked as the parent's, then where its own turns start."""
    forked = fork_line(session)
    if not forked or session.forked_from is None or session.fork_turn is None:
        return []
    parent8 = session.forked_from[:8]
    if inherited is None or not inherited.entries:
        where = "above under that session" if inherited is not None else "under that session"
        return [f"## {forked}: the turns before it are the parent's, restored {where}"]
    copied = [e for e in inherited.entries if until is None or e.turn < until]
    first, last = inherited.parent_turn, inherited.parent_turn + session.fork_turn - 1
    elements = _structure(copied, 0, 0)
    return [
        f"## {forked}: the turns before it are the parent's, restored here as the parent's",
        "",
        f"--- inherited: turns #{first}-#{last} of {parent8}, the history this fork carries ---",
        *_element_lines(elements, parent8, session.workspace, set(), {}, inherited.parent_turn),
        "",
        f"--- {session.id[:8]}'s own turns, from #{session.fork_turn} ---",
    ]


def _current_line(kept: Sequence[Entry], until: int) -> str:
    summary_only = bool(kept) and all(e.turn == until - 1 for e in kept)
    if summary_only and any(e.role == "summary" for e in kept):
        # `lost_until`: the index holds nothing from before the compaction but its summary.
        return (
            f"## Current session: Deja first saw it after Continue compacted it; all it holds of"
            f" the turns removed is Continue's summary (#{until - 1})"
        )
    return f"## Current session: only what came before its last compaction (#{until})"


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
