"""What each of Continue's built-in tools is (a command, a read, an edit or another tool) and
what its arguments say: the file a call names and the hunks an edit made. The table of every
tool, IDE and CLI, old names included, is in docs/continue-tools.md."""

from __future__ import annotations

import re
from typing import Any

from .content import clean_text
from .records import Hunk

# Older IDE releases named their built-in tools `builtin_<name>`; sessions they wrote keep them.
_OLD_PREFIX = "builtin_"

COMMAND_TOOLS = frozenset({"Bash", "run_terminal_command"})
READ_TOOLS = frozenset(
    {
        "Read",
        "List",
        "read_file",
        "read_file_range",
        "read_file_head",
        "read_currently_open_file",
        "ls",
        "view_subdirectory",
    }
)
EDIT_TOOLS = frozenset(
    {
        "Edit",
        "MultiEdit",
        "Write",
        "create_new_file",
        "edit_existing_file",
        "single_find_and_replace",
        "multi_edit",
        "search_and_replace_in_file",
        "create_rule_block",
    }
)
# The edit tools that write a whole file ("wrote"), not part of one ("edited").
_WRITE_TOOLS = frozenset({"Write", "create_new_file", "create_rule_block"})
_PATH_KEYS = ("filepath", "file_path", "dirpath", "dirPath", "directory_path", "path", "filePath")
# Tools whose file is named only in their result (`uri` of the context item they return).
_PATH_IN_RESULT = frozenset({"read_currently_open_file", "create_rule_block"})

# `edit_existing_file` marks the untouched parts of a file with `// ... existing code ...` lines.
_PLACEHOLDER = re.compile(
    r"^\s*(?://|#|--|/\*|<!--|;|%)?\s*\.\.\.\s*existing code\s*\.\.\.\s*(?:\*/|-->)?\s*$",
    re.IGNORECASE,
)
# `search_and_replace_in_file` (and the CLI's Edit of the same time): `diffs` is a list of
# strings, each holding blocks of these three marker lines (core/edit/searchAndReplace).
_SEARCH = re.compile(r"^-{3,} SEARCH$")
_DIVIDER = re.compile(r"^={3,}$")
_REPLACE = re.compile(r"^\+{3,} REPLACE$")


def canonical(name: str | None) -> str:
    """The tool's current name: an old IDE's `builtin_read_file` is `read_file`."""
    if name is None:
        return ""
    return name[len(_OLD_PREFIX) :] if name.startswith(_OLD_PREFIX) else name


def writes_whole_file(tool: str | None) -> bool:
    """Whether an edit call writes the whole file ("wrote") rather than changing part of it
    ("edited"); decided by the tool, since a placeholder edit's hunks look like a write's."""
    return canonical(tool) in _WRITE_TOOLS


def _text(value: object) -> str:
    return clean_text(value) if isinstance(value, str) else ""


def result_uri(state: dict[str, Any]) -> str:
    """The file the call's first result item names (`uri: {type: "file", value}`), or ""."""
    output = state.get("output")
    for item in output if isinstance(output, list) else ():
        uri = item.get("uri") if isinstance(item, dict) else None
        if (
            isinstance(uri, dict)
            and uri.get("type") == "file"
            and isinstance(uri.get("value"), str)
        ):
            return str(uri["value"])
    return ""


def arg_path(name: str, args: dict[str, Any], state: dict[str, Any]) -> str:
    """The file or folder the call names, as the model gave it (or as its result names it)."""
    if canonical(name) in _PATH_IN_RESULT:
        return result_uri(state)
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


def search_replace_hunks(diffs: object) -> list[Hunk]:
    """Each complete SEARCH/REPLACE block of each string in `diffs`, its two sides trimmed as
    Continue trims them before it applies the block; an unfinished block is left out."""
    hunks: list[Hunk] = []
    for diff in diffs if isinstance(diffs, list) else [diffs]:
        if not isinstance(diff, str):
            continue
        side: list[str] | None = None
        search: list[str] = []
        replace: list[str] = []
        for line in clean_text(diff).replace("\r\n", "\n").split("\n"):
            if _SEARCH.match(line):
                search, replace = [], []
                side = search
            elif _DIVIDER.match(line) and side is search:
                side = replace
            elif _REPLACE.match(line) and side is replace:
                hunks.append(Hunk("\n".join(search).strip(), "\n".join(replace).strip()))
                side = None
            elif side is not None:
                side.append(line)
    return hunks


def edit_hunks(name: str, args: dict[str, Any]) -> list[Hunk]:
    """The replaced and written sides of an edit tool's arguments."""
    tool = canonical(name)
    if "diffs" in args and tool in ("Edit", "search_and_replace_in_file"):
        return search_replace_hunks(args.get("diffs"))
    if tool in ("Edit", "single_find_and_replace"):
        return _pair_hunks([args])
    if tool in ("MultiEdit", "multi_edit"):
        return _pair_hunks(args.get("edits"))
    if tool == "Write":
        return [Hunk(None, _text(args.get("content")))] if "content" in args else []
    if tool == "create_new_file":
        return [Hunk(None, _text(args.get("contents")))] if "contents" in args else []
    if tool == "create_rule_block":
        return [Hunk(None, _text(args.get("rule")))] if "rule" in args else []
    if tool == "edit_existing_file":
        return _without_placeholders(_text(args.get("changes")))
    return []
