"""Terminal renderings of query results (the JSON forms are `deja.wire`'s)."""

from __future__ import annotations

import os
import sys

from deja.facts import Fact, event_facts, hit_facts
from deja.quantities import count, human_size
from deja.query import HIGHLIGHT_END, HIGHLIGHT_START
from deja.time_format import ago, since_bound
from deja.wire import iso

TYPE_CHECKING = False  # not `typing`'s: start-up (tests/cli/test_cli_startup.py)
if TYPE_CHECKING:
    from typing import TextIO

    from deja.query import FileEvent, Hit, SessionSummary, SessionView, TurnRecord


class Style:
    """ANSI styling on a TTY (and not under NO_COLOR); plain text otherwise."""

    def __init__(self, stream: TextIO) -> None:
        self.on = stream.isatty() and not os.environ.get("NO_COLOR")

    def _wrap(self, code: str, text: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.on else text

    def bold(self, text: str) -> str:
        return self._wrap("1", text)

    def dim(self, text: str) -> str:
        return self._wrap("2", text)

    def red(self, text: str) -> str:
        return self._wrap("31", text)

    def green(self, text: str) -> str:
        return self._wrap("32", text)

    def cyan(self, text: str) -> str:
        return self._wrap("36", text)

    def highlight(self, snippet: str) -> str:
        if self.on:
            return snippet.replace(HIGHLIGHT_START, "\x1b[1;33m").replace(HIGHLIGHT_END, "\x1b[0m")
        return snippet.replace(HIGHLIGHT_START, "[").replace(HIGHLIGHT_END, "]")


def short_id(session_id: str) -> str:
    return session_id[:8]


def _styled(fact: Fact, style: Style) -> str:
    """A fact as the terminal shows it: a failing exit in red, what only Deja holds in cyan."""
    if fact.label == "exit" and fact.value != "exit 0":
        return style.red(fact.value)
    if fact.label in ("compacted", "meaning"):
        return style.cyan(fact.value)
    return fact.value


def hit_lines(hit: Hit, style: Style, now: float) -> list[str]:
    head = (
        f"{style.bold(hit.title)} {style.dim(short_id(hit.session_id))} "
        f"{style.dim(f'#{hit.turn}')} · {hit.project or '-'} · {ago(hit.time, now)} · "
        + " ".join(_styled(fact, style) for fact in hit_facts(hit))
    )
    lines = [head]
    if hit.file:
        lines.append(f"    {style.dim(hit.file)}")
    snippet = style.highlight(hit.snippet)
    lines.append(f"    {style.dim(snippet) if hit.role == 'reasoning' else snippet}")
    return lines


def page_note(noun: str, shown: int, offset: int, total: int) -> str | None:
    """What a page leaves out: `showing 10 of 57 hits …`; None when it shows everything."""
    if shown == total:
        return None
    if not shown:
        return f"no {noun} at offset {offset}; there {'is' if total == 1 else 'are'} {total}"
    where = f"{offset + 1}–{offset + shown}" if offset else str(shown)
    return f"showing {where} of {total} {noun} (use --limit/--offset)"


def nothing_found(
    text: str, scope: str, filters: dict[str, str | None], since: float | None
) -> str:
    """`nothing found for 'x' in <scope> (role: …, file: …, since: …)`: every filter named."""
    named = [f"{name}: {value}" for name, value in filters.items() if value]
    if since is not None:
        named.append(f"since: {since_bound(since)}")
    return f"nothing found for {text!r} in {scope}" + (f" ({', '.join(named)})" if named else "")


def session_lines(summary: SessionSummary, style: Style, now: float) -> list[str]:
    marks = []
    if summary.current:
        marks.append(style.green("current"))
    if summary.lost_context:
        marks.append(style.cyan("compacted"))
    if summary.deleted:
        marks.append("deleted")
    head = f"{style.dim(summary.id)}  {style.bold(summary.title)}" + (
        f"  [{', '.join(marks)}]" if marks else ""
    )
    info = (
        f"    {summary.project or '-'} · started {ago(summary.started, now)} · last active "
        f"{ago(summary.last_active, now)} · {count(summary.message_count, 'message')} · "
        f"{human_size(summary.size)}"
    )
    lines = [head, info]
    from deja.query import fork_line  # the sessions module: not for `deja search`

    forked = fork_line(summary)
    if forked:
        lines.append(f"    {forked}")
    if summary.first_user:
        lines.append(f"    first: {summary.first_user}")
    if summary.last_user and summary.last_user != summary.first_user:
        lines.append(f"    last:  {summary.last_user}")
    return lines


def _changed_lines(hunks: list[tuple[str | None, str]]) -> tuple[int, int]:
    added = sum(len(w.splitlines()) for _, w in hunks)
    removed = sum(len(r.splitlines()) for r, _ in hunks if r)
    return added, removed


def record_line(record: TurnRecord, style: Style) -> str:
    """One record in a line; a tool call that did not simply run ends `→ errored`, `→ canceled`,
    `→ refused` or `→ no result` (`call_outcome`, the words restore and the sidecar use)."""
    # The reader's tools module (and its records) only here, not for `deja search`'s hits.
    from deja.continue_store.tool_calls import TOOL_ROLES, call_outcome, edit_verb

    ended = call_outcome(record.status) if record.role in TOOL_ROLES else None
    outcome = f" → {ended}" if ended else ""
    if record.role == "command":
        code = f" → exit {record.exit_code}" if record.exit_code is not None else outcome
        return f"$ {record.args or ''}{code}"
    if record.role == "edit":
        verb = edit_verb(record.tool, ran=not ended)
        if ended:  # nothing was written: no line counts
            return f"{verb} {record.path}{outcome}"
        added, removed = _changed_lines(record.hunks)
        return f"{verb} {record.path} (+{added} −{removed})"
    if record.role == "read":
        return f"read {record.path}{outcome}"
    if record.role == "attached":
        return f"attached {record.path}"
    if record.role == "tool":
        return f"tool {record.tool} {record.args or ''}".rstrip() + outcome
    return record.text


def record_details(record: TurnRecord, style: Style) -> list[str]:
    """What `show --full` adds under a record: a command's or tool's output, an edit's diff, and
    why a call that did not run ended so."""
    from deja.continue_store.tool_calls import TOOL_ROLES, call_outcome

    failed = record.role in TOOL_ROLES and call_outcome(record.status) is not None
    lines: list[str] = []
    if record.role == "edit":
        for replaced, written in record.hunks:
            lines += [style.red(f"- {line}") for line in (replaced or "").splitlines()]
            lines += [style.green(f"+ {line}") for line in written.splitlines()]
    if record.output and (record.role in ("command", "tool") or failed):
        lines += record.output.rstrip("\n").splitlines()
    return lines


def _unlabelled(text: str, label: str) -> str:
    """`Summary: …` under the label `Summary:` once, not twice."""
    head = f"{label}:"
    return text[len(head) :].lstrip() if text[: len(head)].lower() == head.lower() else text


def show_lines(view: SessionView, style: Style, *, full: bool = False) -> list[str]:
    summary = view.session
    lines = [
        style.bold(summary.title),
        style.dim(f"{summary.id} · {summary.workspace or '-'} · started {iso(summary.started)}"),
    ]
    from deja.query import fork_line  # the sessions module: not for `deja search`

    forked = fork_line(summary)
    if forked:
        lines.append(f"{forked}: the turns before it are shown under that session")
    current_turn = None
    for record in view.records:
        if record.turn != current_turn:
            current_turn = record.turn
            mark = style.cyan(" [compacted: no longer on disk]") if record.compacted else ""
            lines.append("")
            lines.append(style.dim(f"── turn {record.turn} · {iso(record.time)}") + mark)
        label = {
            "user": "User",
            "assistant": "Assistant",
            "reasoning": "Reasoning",
            "summary": "Summary",
        }.get(record.role)
        body = record_line(record, style)
        if label:
            text = f"{style.bold(label + ':')} {_unlabelled(body, label)}"
            lines.append(style.dim(text) if record.role == "reasoning" else text)
        else:
            lines.append(f"  {body}")
            if full:
                lines += [f"      {line}" if line else "" for line in record_details(record, style)]
    return lines


def event_lines(event: FileEvent, style: Style, now: float) -> list[str]:
    # A call that did not run is named as `show` names it: `edit path → refused`, not "edited".
    facts = {fact.label: fact.value for fact in event_facts(event)}
    status = f" → {facts['status']}" if "status" in facts else ""
    compacted = style.cyan(f" {facts['compacted']}") if "compacted" in facts else ""
    lines = [
        f"{style.bold(event.title)} {style.dim(short_id(event.session_id))} "
        f"#{event.turn} · {ago(event.time, now)} · {facts['what']} {event.path}{status}{compacted}"
    ]
    if event.request:
        lines.append(f"    asked: {' '.join(event.request.split())[:120]}")
    for replaced, written in event.hunks:
        for line in (replaced or "").splitlines()[:6]:
            lines.append("    " + style.red(f"- {line}"))
        for line in written.splitlines()[:6]:
            lines.append("    " + style.green(f"+ {line}"))
    return lines


def line_owner_line(line: int, path: str, event: FileEvent | None, changed: bool) -> str:
    """`deja blame --line`'s first line: who wrote the line as it is now."""
    if event is None:
        return f"line {line} of {path}: no recorded edit wrote it"
    since = ", changed since" if changed else ""
    return (
        f"line {line}: written by {event.title or 'Untitled session'}"
        f" ({short_id(event.session_id)}) #{event.turn}{since}"
    )


def write_lines(lines: list[str], stream: TextIO | None = None) -> None:
    out = stream or sys.stdout
    out.write("\n".join(lines) + ("\n" if lines else ""))
