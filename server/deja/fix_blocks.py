"""Plain text of `deja fix` and `deja files` answers, one block per past failure or file: the
CLI prints it, MCP fits whole blocks into its answer, the sidecar sends it as markdown. Pure."""

from __future__ import annotations

from deja.continue_store.tool_calls import edit_verb
from deja.one_line import cut
from deja.quantities import count
from deja.query import FilesResult, FixResult, FixStep, PastFailure, TouchedFile
from deja.time_format import day

CALL_CHARS = 160
ERROR_CHARS = 240
MAX_SESSIONS = 5


def _outcome(step: FixStep) -> str:
    if step.exit_code is not None:
        return f" → exit {step.exit_code}"
    return f" → {step.status}" if step.status not in (None, "done") else ""


def step_text(step: FixStep) -> str:
    if step.role == "edit":
        return f"{edit_verb(step.tool, ran=step.status == 'done')} {step.what} (turn {step.turn})"
    return f"`{cut(step.what, CALL_CHARS)}`{_outcome(step)} (turn {step.turn})"


def failure_block(number: int, failure: PastFailure) -> list[str]:
    """Where and when, the failed call and its error, then what made it go away (or not)."""
    code = f" (exit {failure.exit_code})" if failure.exit_code is not None else ""
    tries = f", failed {failure.attempts} times" if failure.attempts > 1 else ""
    lines = [
        f"[{number}] {failure.project or '-'} · {day(failure.time)} · "
        f"{failure.title or 'Untitled'} · {failure.session_id} · turn {failure.turn}",
        f"    failed: `{cut(failure.call, CALL_CHARS)}`{code}{tries}",
        f"    error: {cut(failure.error, ERROR_CHARS)}",
    ]
    steps = [f"      - {step_text(step)}" for step in failure.steps]
    if not failure.fixed:
        lines.append("    never fixed in that session: the error was still there when it ended")
    elif failure.confirmed and failure.passed_by is not None:
        lines += ["    fixed by:", *steps] if steps else []
        lines.append(f"    then {step_text(failure.passed_by)} ran without the error")
    else:
        lines += ["    probably fixed by (no re-run confirmed it; the error did not come back):"]
        lines += steps
    if failure.same_fix:
        times = "once" if failure.same_fix == 1 else f"{failure.same_fix} times"
        lines.append(f"    the same fix worked {times} more for this error")
    return lines


def fix_blocks(result: FixResult) -> list[list[str]]:
    return [failure_block(n, f) for n, f in enumerate(result.failures, 1)]


def fix_nothing(result: FixResult, where: str) -> str:
    return f"No past failure with this error in {where} (signature: {cut(result.error, 200)})."


def file_block(number: int, touched: TouchedFile) -> list[str]:
    counts = ((touched.edits, "edit"), (touched.writes, "write"), (touched.reads, "read"))
    did = [f"{n} {word}{'s' if n > 1 else ''}" for n, word in counts if n]
    lines = [f"[{number}] {touched.relative} · {', '.join(did)} · {touched.workspace}"]
    for session in touched.sessions[:MAX_SESSIONS]:
        lines.append(
            f"    {day(session.last_active)} · {cut(session.title or 'Untitled', 80)}"
            f" · {session.session_id} ({session.events}×)"
        )
    if len(touched.sessions) > MAX_SESSIONS:
        more = count(len(touched.sessions) - MAX_SESSIONS, "more session", "more sessions")
        lines.append(f"    … and {more}")
    return lines


def files_blocks(result: FilesResult) -> list[list[str]]:
    return [file_block(n, f) for n, f in enumerate(result.files, 1)]


def files_nothing(result: FilesResult, where: str) -> str:
    if not result.sessions:
        return f"No session in {where} matches {result.topic!r}."
    return (
        f"{count(result.sessions, 'session')} in {where}"
        f" {'matches' if result.sessions == 1 else 'match'} {result.topic!r}, "
        "but none of them edited, wrote or read a file."
    )
