"""A session as Continue can load it again, made from what the index holds: the turns
compaction removed, the turns a fork inherited, a session whose file is gone. Pure query: the
document is written into the store by `deja.continue_write`, nowhere else.

The shape is Continue's own (`core/index.d.ts`: `Session`, `ChatHistoryItem`, `ToolCallState`),
rebuilt from the index's records: each tool call's arguments from what the index kept of them
(a command line, a path, an edit's hunks, a tool's JSON), its output as the index holds it
(redacted, and cut where the index cuts it)."""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from deja import jsonlib
from deja.continue_store.tool_calls import TOOL_ROLES
from deja.errors import DejaError

from .lost import recovered_as
from .rows import named
from .sessions import (
    TURN_RECORDS_SQL,
    SessionSummary,
    TurnRecord,
    session_summary,
    turn_record,
)

if TYPE_CHECKING:
    from deja.continue_write import NewSession

    from .handoff import Launch

RECOVERED_MARK = "(recovered)"
_PLACEHOLDER_LINE = "// ... existing code ..."
_STATUSES = frozenset({"done", "errored", "canceled"})


@dataclass(slots=True)
class Recovered:
    """What `deja recover` would write: Continue's `Session` document without its id, and
    how many of its turns only Deja held."""

    session: SessionSummary
    title: str
    workspace_directory: str
    history: list[dict[str, Any]] = field(default_factory=list)
    only_deja: int = 0
    inherited: int = 0
    recovered_as: str | None = None  # a session an earlier `deja recover` wrote for it

    @property
    def whole_in_continue(self) -> bool:
        """Continue's file still holds every turn Deja would write."""
        return not self.session.deleted and self.only_deja == 0

    @property
    def message_count(self) -> int:
        """`sessions.json`'s `messageCount`: the assistant items."""
        return sum(1 for item in self.history if item["message"]["role"] == "assistant")

    def document(self, session_id: str) -> dict[str, Any]:
        """The session file's JSON, keys in the order Continue saves them."""
        return {
            "sessionId": session_id,
            "title": self.title,
            "workspaceDirectory": self.workspace_directory,
            "history": self.history,
        }


class NothingToRecover(DejaError):
    """Continue still holds the whole session (or Deja holds no turn of it)."""


def check_recoverable(recovered: Recovered, *, copy: bool) -> None:
    session = recovered.session
    if not recovered.history:
        raise NothingToRecover(f"nothing to recover: the index holds no turn of {session.id}")
    if recovered.whole_in_continue and not copy:
        raise NothingToRecover(
            f"nothing to recover: Continue still holds session {session.id} whole"
            " (--copy writes a copy anyway)"
        )
    if recovered.recovered_as is not None and not copy:
        raise NothingToRecover(
            f"already recovered: Continue holds it as session {recovered.recovered_as}"
            " (--copy writes another)"
        )


@dataclass(frozen=True, slots=True)
class RecoverOutcome:
    """What `History.recover` wrote (or, with `written` False, would write)."""

    recovered: Recovered
    new: NewSession
    written: bool

    def fork(self) -> Launch:
        """`cd WORKSPACE && cn --fork NEWID` (`deja resume`'s line for the new session)."""
        from dataclasses import replace

        from .handoff import resume

        return resume(replace(self.recovered.session, id=self.new.session_id))


def recovered_session(db: sqlite3.Connection, session_id: str) -> Recovered:
    """The session `session_id` (a full id) as a Continue document."""
    summary = session_summary(db, session_id)
    source, workspace = _origin(db, session_id)
    turns = _held_turns(db, session_id, None, depth=0)
    inherited = sum(1 for owner, _, _, _ in turns if owner != session_id)
    history = _history(turns)
    title = " ".join(summary.title.split()) or "(untitled)"
    recovered = Recovered(
        session=summary,
        title=f"{title} {RECOVERED_MARK}",
        workspace_directory=workspace_directory(workspace, source),
        history=history,
        inherited=inherited,
    )
    recovered.recovered_as = recovered_as(db, session_id)
    own = sum(1 for owner, _, _, _ in turns if owner == session_id)
    recovered.only_deja = (own if summary.deleted else summary.kept_turns) + inherited
    return recovered


def workspace_directory(workspace: str, source: str) -> str:
    """`workspaceDirectory` as Continue wrote it: a `file://` URI for the IDE (as VS Code's
    `uri.toString()`: `file:///c%3A/…` on Windows), a plain path for the CLI."""
    if source != "ide" or not workspace:
        return workspace
    from urllib.parse import quote

    if len(workspace) > 1 and workspace[1] == ":":
        return "file:///" + quote(workspace[0].lower() + ":" + workspace[2:], safe="/")
    if workspace.startswith("//"):
        return "file:" + quote(workspace, safe="/")
    return "file://" + quote(workspace, safe="/")


def _origin(db: sqlite3.Connection, session_id: str) -> tuple[str, str]:
    row = db.execute(
        "SELECT source, workspace FROM sessions WHERE id = ?", (session_id,)
    ).fetchone()
    return str(row[0]), str(row[1])


# One held turn: whose turn it is, its turn number there, (the item's role, whether it carries
# a compaction summary), and its records.
HeldTurn = tuple[str, int, tuple[str, bool], list[TurnRecord]]


def _held_turns(
    db: sqlite3.Connection, session_id: str, until: int | None, *, depth: int
) -> list[HeldTurn]:
    """The session's turns before `until` (all when None), preceded, for a fork whose copy
    began at a compaction summary of its parent, by the parent's turns before that summary."""
    turns: list[HeldTurn] = []
    fork = db.execute(
        "SELECT parent_id, parent_turn FROM forks WHERE session_id = ?", (session_id,)
    ).fetchone()
    if fork is not None and int(fork[1]) > 0 and depth < 32:
        turns.extend(_held_turns(db, str(fork[0]), int(fork[1]), depth=depth + 1))
    records: dict[int, list[TurnRecord]] = defaultdict(list)
    limit = 1 << 62 if until is None else until
    for row in named(db).execute(
        f"{TURN_RECORDS_SQL} WHERE r.session_id = ? AND r.turn < ? ORDER BY r.turn, r.id",
        (session_id, limit),
    ):
        record = turn_record(row)
        records[record.turn].append(record)
    for turn, role, is_summary in db.execute(
        "SELECT turn, role, is_summary FROM items WHERE session_id = ? AND turn < ? ORDER BY turn",
        (session_id, limit),
    ):
        turns.append((session_id, int(turn), (str(role), bool(is_summary)), records.get(turn, [])))
    return turns


def _history(
    turns: list[HeldTurn],
) -> list[dict[str, Any]]:
    history: list[dict[str, Any]] = []
    pending: list[tuple[str, str]] = []  # the last assistant item's (call id, output)
    for owner, turn, (role, is_summary), records in turns:
        texts = {r.role: r.text for r in records if r.role not in TOOL_ROLES}
        summary = texts.get("summary") if is_summary else None
        if role == "assistant":
            if summary is not None and "assistant" not in texts and history:
                continue  # a CLI summary item: the turns it summarised are written whole
            item, pending = _assistant(f"{owner[:8]}_{turn}", texts, records)
        elif role == "user":
            item = _item({"role": "user", "content": texts.get("user", "")})
        elif role == "thinking":
            item = _item({"role": "thinking", "content": texts.get("reasoning", "")})
        elif role == "tool" and pending:
            call_id, output = pending.pop(0)
            item = _item({"role": "tool", "content": output, "toolCallId": call_id})
        else:
            continue  # system items (the CLI drops them too) and items that were not valid
        if summary is not None and not history:
            # Nothing earlier is held: the summary stands for it, as in Continue's file.
            item["conversationSummary"] = summary
            if not item["message"]["content"]:
                item["message"]["content"] = summary
        history.append(item)
    return history


def _item(message: dict[str, Any]) -> dict[str, Any]:
    return {"message": message, "contextItems": []}


def _assistant(
    prefix: str, texts: dict[str, str], records: list[TurnRecord]
) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    message: dict[str, Any] = {"role": "assistant", "content": texts.get("assistant", "")}
    item = _item(message)
    if "reasoning" in texts:
        item["reasoning"] = {"active": False, "text": texts["reasoning"], "startAt": 0}
    calls = [r for r in records if r.role in TOOL_ROLES]
    if not calls:
        return item, []
    states: list[dict[str, Any]] = []
    for number, record in enumerate(calls):
        call_id = f"deja_{prefix}_{number}"
        name = record.tool or "unknown"
        args = call_arguments(record)
        arguments = jsonlib.dumps(args).decode()
        call = {
            "id": call_id,
            "type": "function",
            "function": {"name": name, "arguments": arguments},
        }
        state: dict[str, Any] = {
            "toolCallId": call_id,
            "toolCall": call,
            "status": _status(record.status),
            "parsedArgs": args,
        }
        if record.output is not None:
            state["output"] = [_output_item(record)]
        states.append(state)
    message["toolCalls"] = [state["toolCall"] for state in states]
    item["toolCallStates"] = states
    return item, [
        (s["toolCallId"], s["output"][0]["content"] if "output" in s else "") for s in states
    ]


def _output_item(record: TurnRecord) -> dict[str, Any]:
    """A call's output as Continue stores it; the IDE's terminal tool keeps its exit code in
    the item's `status`, where Continue wrote it (the CLI's is in the text)."""
    item: dict[str, Any] = {
        "name": "Tool Result",
        "description": "Tool execution result",
        "content": record.output,
    }
    if record.tool == "run_terminal_command" and record.exit_code is not None:
        item["status"] = f"Command failed with exit code {record.exit_code}"
    return item


def _status(status: str | None) -> str:
    """Continue's status words: a refusal was `canceled`; a call the file stopped before the
    end of (`generating`, `calling`…) did not run, and is written as canceled."""
    if status in _STATUSES:
        return str(status)
    return "canceled"


def call_arguments(record: TurnRecord) -> dict[str, Any]:
    """A tool call's arguments rebuilt from what the index kept of them, under the names the
    tool takes (`continue_store.tool_calls` reads them back the same way)."""
    tool, path = record.tool or "", record.path or ""
    if record.role == "command":
        return {"command": record.args or ""}
    if record.role == "read":
        key = {"List": "dirpath", "ls": "dirPath"}.get(tool, "filepath")
        return {key: path}
    if record.role == "edit":
        return _edit_arguments(tool, path, record.hunks)
    if record.args:
        try:
            loaded = jsonlib.loads(record.args)
        except jsonlib.JSONDecodeError:
            return {"arguments": record.args}
        if isinstance(loaded, dict):
            return loaded
    return {}


def _edit_arguments(tool: str, path: str, hunks: list[tuple[str | None, str]]) -> dict[str, Any]:
    path_key = "file_path" if tool in ("Edit", "MultiEdit") else "filepath"
    args: dict[str, Any] = {path_key: path}
    if not hunks:
        return args
    pairs = [{"old_string": old or "", "new_string": new} for old, new in hunks]
    if tool in ("Edit", "single_find_and_replace"):
        args.update(pairs[0])
    elif tool in ("MultiEdit", "multi_edit"):
        args["edits"] = pairs
    elif tool == "Write":
        args["content"] = hunks[0][1]
    elif tool == "create_new_file":
        args["contents"] = hunks[0][1]
    elif tool == "edit_existing_file":
        args["changes"] = f"\n{_PLACEHOLDER_LINE}\n".join(new for _, new in hunks)
    return args
