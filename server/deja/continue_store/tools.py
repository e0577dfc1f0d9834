"""Tool calls as Continue records them in `toolCallStates[]`, turned into records."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from .. import jsonlib
from .content import MAX_ARGS_CHARS, MAX_OUTPUT_CHARS, clean_text, clip
from .records import Hunk, Record
from .workspace import resolve_tool_path

COMMAND_TOOLS = frozenset({"Bash", "run_terminal_command"})
READ_TOOLS = frozenset({"Read", "read_file", "read_file_range", "List", "ls"})
EDIT_TOOLS = frozenset(
    {
        "Edit",
        "MultiEdit",
        "Write",
        "create_new_file",
        "edit_existing_file",
        "single_find_and_replace",
        "multi_edit",
    }
)
_WRITE_TOOLS = frozenset({"Write", "create_new_file"})  # the edit tools that write a whole file
TOOL_ROLES = frozenset({"command", "read", "edit", "tool"})  # the record roles of a tool call
_PATH_KEYS = ("filepath", "file_path", "dirpath", "dirPath", "path")

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
# `edit_existing_file` marks the untouched parts of a file with `// ... existing code ...` lines.
_PLACEHOLDER = re.compile(
    r"^\s*(?://|#|--|/\*|<!--|;|%)?\s*\.\.\.\s*existing code\s*\.\.\.\s*(?:\*/|-->)?\s*$",
    re.IGNORECASE,
)

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


def writes_whole_file(tool: str | None) -> bool:
    """Whether an edit call writes the whole file ("wrote") rather than changing part of it
    ("edited"); decided by the tool, since a placeholder edit's hunks look like a write's."""
    return tool in _WRITE_TOOLS


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


def _text(value: object) -> str:
    return clean_text(value) if isinstance(value, str) else ""


def _arg_path(args: dict[str, Any]) -> str:
    for key in _PATH_KEYS:
        value = args.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return ""


def _pair_hunks(edits: object) -> list[Hunk]:
    hunks: list[Hunk] = []
    if isinstance(edits, list):
        for edit in edits:
            if isinstance(edit, dict) and isinstance(edit.get("new_string"), str):
                hunks.append(Hunk(_text(edit.get("old_string")), _text(edit["new_string"])))
    return hunks


def _without_placeholders(changes: str) -> list[Hunk]:
    """Each run of written lines between placeholders is one hunk."""
    hunks: list[Hunk] = []
    block: list[str] = []
    for line in changes.split("\n"):
        if _PLACEHOLDER.match(line):
            if any(part.strip() for part in block):
                hunks.append(Hunk(None, "\n".join(block).strip("\n")))
            block = []
        else:
            block.append(line)
    if any(part.strip() for part in block):
        hunks.append(Hunk(None, "\n".join(block).strip("\n")))
    return hunks


def edit_hunks(name: str, args: dict[str, Any]) -> list[Hunk]:
    """The replaced and written sides of an edit tool's arguments."""
    if name in ("Edit", "single_find_and_replace"):
        return _pair_hunks([args])
    if name in ("MultiEdit", "multi_edit"):
        return _pair_hunks(args.get("edits"))
    if name == "Write":
        return [Hunk(None, _text(args.get("content")))] if "content" in args else []
    if name == "create_new_file":
        return [Hunk(None, _text(args.get("contents")))] if "contents" in args else []
    if name == "edit_existing_file":
        return _without_placeholders(_text(args.get("changes")))
    return []


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
    path = resolve_tool_path(_arg_path(args), workspace)
    shown_output = redact(clip(output, MAX_OUTPUT_CHARS))
    if name in COMMAND_TOOLS:
        command = redact(clip(_text(args.get("command")), MAX_ARGS_CHARS))
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
    if name in READ_TOOLS:
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
    if name in EDIT_TOOLS:
        # Only a call that ran (`done`) changed the file; others keep their path and status only.
        hunks = edit_hunks(name, args) if status == "done" else []
        hunks = [
            Hunk(
                None if hunk.replaced is None else redact(clip(hunk.replaced, MAX_OUTPUT_CHARS)),
                redact(clip(hunk.written, MAX_OUTPUT_CHARS)),
            )
            for hunk in hunks
        ]
        body = "\n".join(
            part for hunk in hunks for part in (hunk.replaced or "", hunk.written) if part
        )
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
