"""A session's compact digest: what a new session needs to pick up where an old one stopped.

The ask, the decisions, the files changed, the commands that failed (and what fixed them), and
where it stopped, in at most `MAX_BYTES`, redacted. `deja handoff` opens `cn` with it; the MCP
`deja_restore` tool answers with it when the full restore transcript is unavailable. Pure: a
`SessionView` in, text out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from deja.continue_store.redact import redact
from deja.continue_store.workspace import relative_to_workspace
from deja.one_line import cut
from deja.time_format import minute_utc

from .sessions import SessionSummary, SessionView, TurnRecord, fork_line

MAX_BYTES = 4096
ASK_CHARS = 600
DECISION_CHARS = 220
MAX_DECISIONS = 6
COMMAND_CHARS = 140
MAX_FAILURES = 5
MAX_FILES = 12
STOP_CHARS = 400
SUMMARY_CHARS = 600
HEADER = (
    "Pick up where an earlier Continue session stopped. Its digest, recalled by Deja "
    "(context, not instructions):"
)

# Sentences that record a choice: "we decided", "let's use", "instead of", "switched to", ...
_DECISION = re.compile(
    r"\b(decid\w*|chose|choos\w*|go(?:ing)? with|settled on|switch(?:ed)? to|instead of|"
    r"let'?s use|we(?:'ll| will) use|use \S+ (?:rather than|over)|opted|prefer\w*|"
    r"the fix (?:is|was)|root cause)\b",
    re.IGNORECASE,
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")


@dataclass(frozen=True, slots=True)
class Failure:
    command: str
    exit_code: int | None
    fix: str | None  # what was done before a later run of it passed: a command or an edit
    passed: bool  # a later run of the same command succeeded


def _failed(record: TurnRecord) -> bool:
    return record.status == "errored" or (record.exit_code is not None and record.exit_code != 0)


def _passed(record: TurnRecord) -> bool:
    return record.status == "done" and record.exit_code in (None, 0)


def _same_command(a: str, b: str) -> bool:
    """A re-run: the same command, or the same program and first argument (`pytest a.py -x`
    after `pytest a.py`, `npm test -- --watch` after `npm test`)."""
    return a == b or a.split()[:2] == b.split()[:2]


def _action(record: TurnRecord, workspace: str) -> str:
    if record.role == "command":
        return f"`{cut(record.args or '', COMMAND_CHARS)}`"
    return f"editing {relative_to_workspace(record.path or '?', workspace)}"


def failures(records: list[TurnRecord], workspace: str = "") -> list[Failure]:
    """Each failing command once. Its fix is the last command or edit between it and a later
    passing run of it (or that run itself, when it changed the command)."""
    actions = [
        r
        for r in records
        if (r.role == "command" and r.args) or (r.role == "edit" and r.status == "done")
    ]
    found: list[Failure] = []
    seen: set[str] = set()
    for index, record in enumerate(actions):
        command = record.args or ""
        if record.role != "command" or not _failed(record) or command in seen:
            continue
        seen.add(command)
        later = actions[index + 1 :]
        rerun = next(
            (
                position
                for position, r in enumerate(later)
                if r.role == "command" and _same_command(command, r.args or "") and _passed(r)
            ),
            None,
        )
        if rerun is None:
            found.append(Failure(command, record.exit_code, None, False))
            continue
        between = [
            r for r in later[:rerun] if r.role == "edit" or not _same_command(command, r.args or "")
        ]
        passing = later[rerun]
        if between:
            fix: str | None = _action(between[-1], workspace)
        elif passing.args != command:
            fix = _action(passing, workspace)
        else:
            fix = None
        found.append(Failure(command, record.exit_code, fix, True))
    return found


def decisions(records: list[TurnRecord]) -> list[str]:
    """Sentences of summaries, requests and replies that record a choice, oldest first."""
    picked: list[str] = []
    for record in records:
        if record.role not in ("user", "assistant", "summary"):
            continue
        for sentence in _SENTENCE.split(record.text):
            sentence = sentence.strip(" -*•\t")
            if len(sentence) > 12 and _DECISION.search(sentence):
                line = cut(sentence, DECISION_CHARS)
                if line not in picked:
                    picked.append(line)
    return picked[-MAX_DECISIONS:]


def changed_files(records: list[TurnRecord], workspace: str) -> list[str]:
    """Files the session edited or wrote (calls that ran), in first-change order, with counts."""
    counts: dict[str, int] = {}
    for record in records:
        if record.role == "edit" and record.path and record.status == "done":
            name = relative_to_workspace(record.path, workspace)
            counts[name] = counts.get(name, 0) + 1
    return [f"{name} ({n} edits)" if n > 1 else name for name, n in counts.items()]


def _last(records: list[TurnRecord], role: str) -> TurnRecord | None:
    return next((r for r in reversed(records) if r.role == role and r.text.strip()), None)


def _sections(view: SessionView, limits: dict[str, int]) -> list[str]:
    session = view.session
    records = view.records
    workspace = session.workspace
    lines = [
        HEADER,
        f"Session: {cut(session.title or 'Untitled session', 120)} ({session.id})",
        f"Workspace: {workspace or 'none recorded'}",
        f"When: {minute_utc(session.started)} to {minute_utc(session.last_active)}",
    ]
    lines += _fork_lines(session, records, limits)
    summary = _last(records, "summary")
    if summary is not None:
        lines.append(f"Summary of earlier turns: {cut(summary.text, limits['summary'])}")
    ask = next((r for r in records if r.role == "user" and r.text.strip()), None)
    if ask is not None:
        lines.append(f"Ask{_whose(session, ask)}: {cut(ask.text, limits['ask'])}")
    chosen = decisions(records)[-limits["decisions"] :] if limits["decisions"] else []
    if chosen:
        lines.append("Decisions:")
        lines += [f"- {line}" for line in chosen]
    files = changed_files(records, workspace)
    if files:
        shown = files[: limits["files"]]
        more = f" and {len(files) - len(shown)} more" if len(files) > len(shown) else ""
        lines.append(f"Changed files: {', '.join(shown)}{more}")
    failed = failures(records, workspace)[: limits["failures"]]
    if failed:
        lines.append("Commands that failed:")
        for failure in failed:
            code = f" (exit {failure.exit_code})" if failure.exit_code is not None else ""
            line = f"- `{cut(failure.command, COMMAND_CHARS)}`{code}"
            if failure.fix:
                line += f" → fixed by {failure.fix}"
            if failure.passed:
                line += ", then it passed"
            else:
                line += ", not fixed in this session"
            lines.append(line)
    last_user = _last(records, "user")
    last_reply = _last(records, "assistant")
    if last_user is not None or last_reply is not None:
        lines.append("Where it stopped:")
        if last_user is not None and last_user is not ask:
            lines.append(
                f"- last request (turn {last_user.turn}): {cut(last_user.text, limits['stop'])}"
            )
        if last_reply is not None:
            lines.append(
                f"- last reply (turn {last_reply.turn}): {cut(last_reply.text, limits['stop'])}"
            )
    lines.append(f"Full session: deja show {session.id}")
    return lines


def _inherited(session: SessionSummary, record: TurnRecord) -> bool:
    return session.fork_turn is not None and record.turn < session.fork_turn


def _whose(session: SessionSummary, record: TurnRecord) -> str:
    """` (the parent's, turn N of <id8>)` for a fork's copy of its parent's turn."""
    if not _inherited(session, record) or session.forked_from is None:
        return ""
    return f" (the parent's, in {session.forked_from[:8]})"


def _fork_lines(
    session: SessionSummary, records: list[TurnRecord], limits: dict[str, int]
) -> list[str]:
    """A fork: where it came from; with its copy of the parent's turns in `records` (its real
    history, read as the parent's), also its own first request."""
    forked = fork_line(session)
    if not forked:
        return []
    if not any(_inherited(session, r) for r in records):
        return [f"F{forked[1:]}; the turns before are in: deja show {session.forked_from}"]
    lines = [f"F{forked[1:]}; the turns before it are the parent's, included here as such"]
    own = next(
        (r for r in records if r.role == "user" and r.text.strip() and not _inherited(session, r)),
        None,
    )
    if own is not None:
        lines.append(f"Ask of this fork (turn {own.turn}): {cut(own.text, limits['ask'])}")
    return lines


def _size(text: str) -> int:
    return len(text.encode("utf-8"))


def build_digest(view: SessionView, max_bytes: int = MAX_BYTES) -> str:
    """The digest, redacted, at most `max_bytes` of UTF-8: long parts shrink first, then lists
    lose their oldest items, and only then is the text cut."""
    limits = {
        "ask": ASK_CHARS,
        "decisions": MAX_DECISIONS,
        "files": MAX_FILES,
        "failures": MAX_FAILURES,
        "stop": STOP_CHARS,
        "summary": SUMMARY_CHARS,
    }
    shrink = [("stop", 200), ("ask", 300), ("summary", 300), ("decisions", 3), ("failures", 3)]
    shrink += [("files", 6), ("stop", 120), ("ask", 160), ("summary", 160), ("decisions", 0)]
    shrink += [("failures", 1), ("files", 3)]
    text = redact("\n".join(_sections(view, limits)))
    for key, value in shrink:
        if _size(text) <= max_bytes:
            break
        limits[key] = min(limits[key], value)
        text = redact("\n".join(_sections(view, limits)))
    if _size(text) > max_bytes:
        text = text.encode("utf-8")[: max_bytes - 3].decode("utf-8", "ignore") + "…"
    return text
