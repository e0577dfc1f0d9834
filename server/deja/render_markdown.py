"""Markdown renderings of query results, one renderer shared by every front door that shows
markdown (the sidecar's hovers and documents, MCP, restore).

Session text is untrusted: in short forms (hover) it is escaped, in documents it is fenced, so a
client that trusts markdown (VS Code command links) never follows a link a session carried."""

from __future__ import annotations

import re
import shlex
import time

from deja.continue_store.tool_calls import TOOL_ROLES, call_outcome, edit_verb
from deja.facts import event_facts, hit_facts
from deja.one_line import cut, one_line
from deja.quantities import count, human_size
from deja.query import (
    HIGHLIGHT_END,
    HIGHLIGHT_START,
    FileEvent,
    Hit,
    SessionSummary,
    SessionView,
    TurnRecord,
    fork_line,
)
from deja.query.fork_command import ForkCommand
from deja.time_format import ago, ago_and_iso
from deja.time_format import iso_time as iso

_INLINE = re.compile(r"([\\`*_\[\]<>|~])")
# What starts a heading, quote, list or rule at the beginning of a line.
_LINE_START = re.compile(r"^(\s*)([#+=-])|^(\s*\d+)([.)])", re.MULTILINE)
_BACKTICKS = re.compile(r"`+")
DIFF_LINES = 12
QUOTE_CHARS = 300
ROLE_LABELS = {
    "user": "User",
    "assistant": "Assistant",
    "reasoning": "Reasoning",
    "summary": "Summary of earlier turns",
}


def escape(text: str) -> str:
    """Text that markdown shows as it is: no emphasis, links, HTML, headings or lists."""
    inline = _INLINE.sub(r"\\\1", text)
    return _LINE_START.sub(lambda m: f"{m[1]}\\{m[2]}" if m[2] else f"{m[3]}\\{m[4]}", inline)


def fence(text: str, language: str = "") -> str:
    """A code block whose fence is longer than any backtick run inside, so nothing escapes it."""
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    marks = "`" * max(3, longest + 1)
    return f"{marks}{language}\n{text.rstrip(chr(10))}\n{marks}"


def code(text: str) -> str:
    """Inline code, for paths and ids."""
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    marks = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{marks}{pad}{text}{pad}{marks}"


def diff(hunks: list[tuple[str | None, str]], max_lines: int | None = None) -> str:
    return fence("\n".join(diff_lines(hunks, max_lines)), "diff")


def diff_lines(hunks: list[tuple[str | None, str]], max_lines: int | None = None) -> list[str]:
    """Replaced lines as `-`, written lines as `+`; a whole-file write has only `+` lines."""
    lines: list[str] = []
    for replaced, written in hunks:
        lines += [f"- {line}" for line in (replaced or "").splitlines()]
        lines += [f"+ {line}" for line in written.splitlines()]
    if max_lines is not None and len(lines) > max_lines:
        hidden = len(lines) - max_lines
        lines = [*lines[:max_lines], f"… {hidden} more line{'s' if hidden > 1 else ''}"]
    return lines


def when(timestamp: float, now: float | None = None) -> str:
    return ago_and_iso(timestamp, now)


def snippet(text: str) -> str:
    """A search snippet: escaped, with the matched words in bold."""
    out: list[str] = []
    for index, part in enumerate(re.split(f"[{HIGHLIGHT_START}{HIGHLIGHT_END}]", text)):
        out.append(f"**{escape(part)}**" if index % 2 and part else escape(part))
    return "".join(out)


def _event(event: FileEvent) -> tuple[str, str, bool]:
    """What the event did, ` → errored` when the call did not simply run, and whether only Deja
    still has it (`event_facts`, the words every door shows)."""
    facts = {fact.label: fact.value for fact in event_facts(event)}
    ended = f" → {facts['status']}" if "status" in facts else ""
    return facts["what"], ended, "compacted" in facts


def _status(status: str | None, role: str) -> str:
    """` → errored` for a tool call that did not simply run (`call_outcome`: the words of
    `deja show` and restore); nothing for one that did, nor for an attached file."""
    ended = call_outcome(status) if role in TOOL_ROLES else None
    return f" → {ended}" if ended else ""


# Short forms ------------------------------------------------------------------------------------


def repeats_title(request: str, title: str) -> bool:
    """The request says no more than the title (a title made from it, maybe cut with `…`)."""
    asked, named = one_line(request).casefold(), one_line(title).casefold()
    if not named:
        return False
    stem = named.removesuffix("…").removesuffix("...").rstrip()
    return asked == named or (stem != named and bool(stem) and asked.startswith(stem))


def edit_summary(event: FileEvent, hunk: int | None = None, now: float | None = None) -> str:
    """One past edit, as a hover shows it: session, when, the request behind it, the diff."""
    hunks = event.hunks if hunk is None else event.hunks[hunk : hunk + 1]
    _, ended, compacted = _event(event)
    parts = [
        f"**{escape(event.title or 'Untitled session')}** · {ago(event.time, now)} · "
        f"turn {event.turn}{ended}"
        + (" · compacted (only Deja still has it)" if compacted else ""),
    ]
    if event.request and not repeats_title(event.request, event.title):
        parts.append(f"> {escape(cut(event.request, QUOTE_CHARS))}")
    if hunks:
        parts.append(diff(hunks, DIFF_LINES))
    return "\n\n".join(parts)


# Documents --------------------------------------------------------------------------------------


def session_header(summary: SessionSummary, now: float | None = None) -> list[str]:
    facts = [
        code(summary.id),
        code(summary.workspace) if summary.workspace else "no workspace",
        f"started {when(summary.started, now)}",
        f"last active {ago(summary.last_active, now)}",
        count(summary.message_count, "message"),
        human_size(summary.size),
    ]
    if summary.lost_context:
        facts.append("compacted: earlier turns are kept here only")
    if summary.deleted:
        facts.append("deleted from Continue's store")
    header = [f"# {escape(summary.title or 'Untitled session')}", "", " · ".join(facts)]
    forked = fork_line(summary)
    if forked:
        header += ["", f"{escape(forked)}: the turns before it are shown under that session"]
    return header


def record(item: TurnRecord) -> list[str]:
    label = ROLE_LABELS.get(item.role)
    if label:
        return [f"**{label}**", "", fence(item.text, "text")]
    if item.role == "command":
        if item.exit_code is not None:
            ended = f" → exit {item.exit_code}"
        else:
            ended = _status(item.status, item.role)
        lines = [
            f"Ran a command{ended}",
            "",
            fence(item.args or "", "sh"),
        ]
        if item.output:
            lines += ["", fence(item.output, "text")]
        return lines
    if item.role == "edit":
        verb = edit_verb(item.tool, ran=not call_outcome(item.status)).capitalize()
        lines = [f"{verb} {code(item.path or '?')}{_status(item.status, item.role)}"]
        return lines + (["", diff(item.hunks)] if item.hunks else [])
    if item.role == "read":
        return [f"Read {code(item.path or '?')}{_status(item.status, item.role)}"]
    if item.role == "attached":
        return [f"Attached {code(item.path or '?')}"]
    lines = [f"Tool {code(item.tool or '?')}{_status(item.status, item.role)}"]
    if item.args:
        lines += ["", fence(item.args, "json")]
    return lines


def session(view: SessionView, now: float | None = None) -> str:
    """A whole session (or one turn of it), compacted turns included and marked."""
    lines = session_header(view.session, now)
    current: int | None = None
    for item in view.records:
        if item.turn != current:
            current = item.turn
            mark = " · compacted: no longer on disk, only Deja has it" if item.compacted else ""
            lines += ["", f"## Turn {item.turn} · {iso(item.time)}{mark}"]
        lines += ["", *record(item)]
    if not view.records:
        lines += ["", "_No turns recorded._"]
    return "\n".join(lines) + "\n"


def file_history(path: str, events: list[FileEvent], now: float | None = None) -> str:
    """Every recorded edit, write and read of a file, newest first."""
    now = now or time.time()
    lines = [f"# History of {code(path)}", ""]
    if not events:
        return "\n".join([*lines, "No Continue session edited, wrote or read this file."]) + "\n"
    sessions = {event.session_id for event in events}
    lines.append(
        f"{len(events)} recorded events from {len(sessions)} Continue "
        f"session{'s' if len(sessions) > 1 else ''}, newest first."
    )
    for event in events:
        what, ended, compacted = _event(event)
        lines += [
            "",
            f"## {what.capitalize()} {when(event.time, now)}{ended}",
            "",
            f"{escape(event.title or 'Untitled session')} · {code(event.session_id)} · "
            f"turn {event.turn}" + (" · compacted" if compacted else ""),
        ]
        if event.path != path:
            lines += ["", f"As {code(event.path)}"]
        if event.request:
            lines += ["", "Asked:", "", fence(event.request, "text")]
        if event.hunks:
            lines += ["", diff(event.hunks)]
    return "\n".join(lines) + "\n"


def search(
    query: str, scope: str, hits: list[Hit], notes: list[str], now: float | None = None
) -> str:
    lines = [f"# Continue history: {escape(query)}", "", f"In {escape(scope)}."]
    for note in notes:
        lines += ["", f"_{escape(note)}_"]
    if not hits:
        lines += ["", "Nothing found."]
    for hit in hits:
        facts = [f"turn {hit.turn}", ago(hit.time, now), *(fact.value for fact in hit_facts(hit))]
        lines += [
            "",
            f"## {escape(hit.title or 'Untitled session')}",
            "",
            f"{code(hit.session_id)} · {escape(hit.project or '-')} · "
            + " · ".join(escape(fact) for fact in facts),
        ]
        if hit.file:
            lines += ["", code(hit.file)]
        lines += ["", snippet(hit.snippet)]
    return "\n".join(lines) + "\n"


def fork(command: ForkCommand) -> str:
    line = " ".join([command.command, *command.args])
    if command.cwd:
        where, run = f"in {code(command.cwd)}", f"cd {shlex.quote(command.cwd)} && {line}"
    else:
        where, run = "in the folder you want to work in", line
    lines = [f"# Fork session {code(command.args[-1])}", "", f"Run {where}:", "", fence(run, "sh")]
    return "\n".join([*lines, "", escape(command.note)]) + "\n"
