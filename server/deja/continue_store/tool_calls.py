"""Tool calls as Continue records them in `toolCallStates[]`, turned into records."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from .. import jsonlib
from .content import MAX_ARGS_CHARS, MAX_OUTPUT_CHARS, clean_text, clip
from .records import Hunk, Record
from .tool_args import (
    COMMAND_TOOLS,
    EDIT_TOOLS,
    READ_TOOLS,
    arg_path,
    canonical,
    edit_hunks,
)
from .tool_args import (
    writes_whole_file as writes_whole_file,
)
from .workspace import resolve_tool_path

TOOL_ROLES = frozenset({"command", "read", "edit", "tool"})  # the record roles of a tool call

# `cn` records a call it did not run because the user or a policy refused it as `canceled`, with
# one of these as its output (extensions/cli/src/stream/toolPermissionResult.ts).
_REFUSAL = re.compile(
    r"^\s*(?:Permission denied|Command blocked by security policy"
    r"|Interactive permission prompt unavailable)"
)
_ENDINGS = frozenset({"errored", "canceled", "refused"})

# Exit codes exist only where Continue wrote them: the CLI's Bash error text, the IDE's status.
_CLI_EXIT = re.compile(r"^Error executing tool Bash: Error \(exit code (-?\d+)\)")
_IDE_EXIT = re.compile(r"Command failed with exit code (-?\d+)")
Redactor = Callable[[str], str]


def tool_arguments(state: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """`parsedArgs`, falling back to parsing `toolCall.function.arguments`; also the raw text."""
    raw = ""
    call = state.get("toolCall")
    if isinstance(call, dict) and isinstance(call.get("function"), dict):
        arguments = call["function"].get("arguments")
        if isinstance(arguments, str):
            raw = arguments
    parsed = state.get("parsedArgs")
    if isinstance(parsed, dict) and parsed:
        return parsed, raw
    if raw:
        try:
            loaded = jsonlib.loads(raw)
        except jsonlib.JSONDecodeError:
            return {}, raw
        if isinstance(loaded, dict):
            return loaded, raw
    return {}, raw


def tool_name(state: dict[str, Any]) -> str:
    call = state.get("toolCall")
    if isinstance(call, dict) and isinstance(call.get("function"), dict):
        name = call["function"].get("name")
        if isinstance(name, str):
            return name
    return ""


def output_parts(state: dict[str, Any]) -> tuple[str, list[str]]:
    """The output's text and the IDE's `status` strings of its items."""
    output = state.get("output")
    texts: list[str] = []
    statuses: list[str] = []
    if isinstance(output, list):
        for item in output:
            if isinstance(item, dict):
                if isinstance(item.get("content"), str):
                    texts.append(item["content"])
                if isinstance(item.get("status"), str):
                    statuses.append(item["status"])
            elif isinstance(item, str):
                texts.append(item)
    elif isinstance(output, str):
        texts.append(output)
    return "\n".join(texts), statuses


def exit_code(output: str, statuses: list[str]) -> int | None:
    found = _CLI_EXIT.match(output)
    if found:
        return int(found.group(1))
    for status in statuses:
        found = _IDE_EXIT.search(status)
        if found:
            return int(found.group(1))
    found = _IDE_EXIT.search(output)
    return int(found.group(1)) if found else None


def call_status(status: str | None, output: str) -> str | None:
    """Continue's status of a call, with one distinction it does not make: a canceled call whose
    output says permission was refused is `refused` (other cancellations stay `canceled`)."""
    if status == "canceled" and _REFUSAL.match(output):
        return "refused"
    return status


def edit_verb(tool: str | None, *, ran: bool) -> str:
    """How every renderer names an edit record: `wrote`/`edited` for a call that ran,
    `write`/`edit` (the renderer adds ` → <call_outcome>`) for one that did not."""
    if writes_whole_file(tool):
        return "wrote" if ran else "write"
    return "edited" if ran else "edit"


def call_outcome(status: str | None) -> str | None:
    """How a tool call ended when it did not simply run, in the one word every renderer shows:
    None for `done`; `errored`, `canceled`, `refused`; else `no result` (the file stops before
    the result: still generating, awaiting approval or running, or no status written)."""
    if status == "done":
        return None
    return status if status in _ENDINGS else "no result"


def json_text(value: object) -> str:
    """Compact JSON of already-parsed data; stdlib fallback for what orjson refuses (huge ints,
    lone surrogates)."""
    try:
        return jsonlib.dumps(value).decode()
    except TypeError:
        return clean_text(json.dumps(value, ensure_ascii=False, default=str))


def tool_record(
    state: dict[str, Any],
    *,
    turn: int,
    time: float,
    workspace: str,
    fallback_output: str,
    redact: Redactor,
) -> Record:
    name = tool_name(state) or "unknown"
    args, raw_args = tool_arguments(state)
    output, statuses = output_parts(state)
    output = clean_text(output or fallback_output)
    status = call_status(
        state.get("status") if isinstance(state.get("status"), str) else None, output
    )
    kind = canonical(name)
    path = resolve_tool_path(arg_path(name, args, state), workspace)
    if kind in READ_TOOLS:  # keeps less of its output, redacted below (a read's is a file)
        return Record(
            turn=turn,
            role="read",
            text=f"{name} {path}",
            time=time,
            tool=name,
            status=status,
            path=path,
            output=redact(clip(output, 2_000)),
        )
    shown_output = redact(clip(output, MAX_OUTPUT_CHARS))
    if kind in COMMAND_TOOLS:
        command = args.get("command")
        command = redact(
            clip(clean_text(command) if isinstance(command, str) else "", MAX_ARGS_CHARS)
        )
        return Record(
            turn=turn,
            role="command",
            text=f"{command}\n{shown_output}",
            time=time,
            tool=name,
            status=status,
            exit_code=exit_code(output, statuses),
            output=shown_output,
            args=command,
        )
    if kind in EDIT_TOOLS:
        return _edit_record(name, args, status, turn, time, path, shown_output, redact)
    args_text = redact(clip(json_text(args) if args else clean_text(raw_args), MAX_ARGS_CHARS))
    return Record(
        turn=turn,
        role="tool",
        text=f"{name} {args_text}\n{shown_output}",
        time=time,
        tool=name,
        status=status,
        path=path or None,
        output=shown_output,
        args=args_text,
    )


def _edit_record(
    name: str,
    args: dict[str, Any],
    status: str | None,
    turn: int,
    time: float,
    path: str,
    shown_output: str,
    redact: Redactor,
) -> Record:
    # Only a call that ran (`done`) changed the file; others keep their path and status only.
    hunks = edit_hunks(name, args) if status == "done" else []
    hunks = [
        Hunk(
            None if hunk.replaced is None else redact(clip(hunk.replaced, MAX_OUTPUT_CHARS)),
            redact(clip(hunk.written, MAX_OUTPUT_CHARS)),
        )
        for hunk in hunks
    ]
    body = "\n".join(part for hunk in hunks for part in (hunk.replaced or "", hunk.written) if part)
    return Record(
        turn=turn,
        role="edit",
        text=f"{name} {path}\n{clip(body, MAX_OUTPUT_CHARS)}\n{shown_output}".rstrip("\n"),
        time=time,
        tool=name,
        status=status,
        path=path,
        output=shown_output,
        hunks=tuple(hunks),
    )
