"""One session document (bytes) → a typed `Session`. Pure: no I/O."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any

from .. import jsonlib
from .content import MAX_MESSAGE_CHARS, clean_text, clip, content_text
from .records import Item, ListEntry, Record, RecordSink, Role, Session, Source
from .times import parse_date_created, turn_time
from .tool_calls import Redactor, output_parts, tool_record
from .workspace import normalize_workspace, project_name, resolve_tool_path

PLACEHOLDER_TITLES = frozenset({"new session", "untitled session", ""})
_TITLE_CHARS = 80
# Records handed to a sink at a time (the memory a streamed session holds between items).
_FLUSH_RECORDS = 256


class SessionError(ValueError):
    """The document cannot be read as a session at all. `transient` errors (a cut-off document)
    may be a write in progress and are worth one retry."""

    def __init__(self, message: str, *, transient: bool = False) -> None:
        super().__init__(message)
        self.transient = transient


def decode_json(data: bytes) -> Any:
    """orjson's strict rules first (`jsonlib`); the stdlib for what they refuse but JSON allows
    (huge integers, lone surrogate escapes) and for invalid UTF-8, replaced rather than fatal."""
    try:
        return jsonlib.loads(data)
    except jsonlib.JSONDecodeError as fast_error:
        try:
            return json.loads(data.decode("utf-8", "replace"))
        except RecursionError:
            raise SessionError("JSON nested too deeply to read") from None
        except ValueError:
            raise SessionError(f"invalid JSON: {fast_error}", transient=True) from None


def is_placeholder_title(title: object) -> bool:
    if not isinstance(title, str):
        return True
    text = title.strip()
    return text.lower() in PLACEHOLDER_TITLES or text.startswith("[object Object]")


def title_from_message(text: str) -> str:
    for line in text.splitlines():
        line = " ".join(line.split())
        if line and line != "[image]":
            return line if len(line) <= _TITLE_CHARS else line[: _TITLE_CHARS - 1] + "…"
    return ""


def _fingerprint(*parts: str) -> str:
    digest = hashlib.blake2b(digest_size=12)
    for part in parts:
        digest.update(part.encode("utf-8", "surrogatepass"))
        digest.update(b"\x1f")
    return digest.hexdigest()


def _source(head: dict[str, Any], ide_item_seen: bool) -> Source:
    """The IDE writes `mode`/`chatModelTitle`, and message ids or `promptLogs` on its items
    (looked for in the first five); the CLI writes `usage`."""
    if "mode" in head or "chatModelTitle" in head or ide_item_seen:
        return "ide"
    if "usage" in head:
        return "cli"
    return "unknown"


def _looks_ide(item: object) -> bool:
    if not isinstance(item, dict):
        return False
    message = item.get("message")
    return isinstance(message, dict) and ("id" in message or "promptLogs" in item)


def _attached_paths(context_items: object, workspace: str) -> list[str]:
    """Context items' file paths are kept as facts; their contents are not indexed."""
    paths: list[str] = []
    if not isinstance(context_items, list):
        return paths
    for context in context_items:
        if not isinstance(context, dict):
            continue
        uri = context.get("uri")
        if (
            isinstance(uri, dict)
            and uri.get("type") == "file"
            and isinstance(uri.get("value"), str)
        ):
            path = resolve_tool_path(uri["value"], workspace)
            if path and path not in paths:
                paths.append(path)
    return paths


def tool_item_output(item: object) -> tuple[str, str] | None:
    """An IDE `role:"tool"` item's (call id, output): it duplicates a call's output, a fallback
    when the call's state has none."""
    if isinstance(item, dict) and isinstance(item.get("message"), dict):
        message = item["message"]
        if message.get("role") == "tool" and isinstance(message.get("toolCallId"), str):
            return message["toolCallId"], content_text(message.get("content"))
    return None


def _tool_outputs(history: list[Any]) -> dict[str, str]:
    outputs: dict[str, str] = {}
    for item in history:
        found = tool_item_output(item)
        if found is not None:
            outputs[found[0]] = found[1]
    return outputs


def _tool_states(item: dict[str, Any], message: dict[str, Any]) -> list[dict[str, Any]]:
    states = item.get("toolCallStates")
    if isinstance(states, list) and states:
        return [state for state in states if isinstance(state, dict)]
    # Older files carry only `message.toolCalls`: known calls, unknown outcome.
    calls = message.get("toolCalls")
    if isinstance(calls, list):
        return [
            {"toolCallId": call.get("id"), "toolCall": call, "status": None}
            for call in calls
            if isinstance(call, dict)
        ]
    return []


def parse_session(
    data: bytes,
    *,
    session_id: str,
    entry: ListEntry | None,
    file: str,
    size: int,
    mtime_ns: int,
    redact: Redactor,
) -> tuple[Session, list[str]]:
    """The session and a list of warnings about parts of it that could not be read."""
    start = SessionStart(session_id, entry, file, size, mtime_ns, redact)
    return parse_document(data, start)


def parse_document(data: bytes, start: SessionStart) -> tuple[Session, list[str]]:
    """`parse_session` for a whole document in memory (a file under `STREAM_MIN_BYTES`)."""
    doc = decode_json(data)
    if not isinstance(doc, dict):
        raise SessionError(f"expected a JSON object, found {type(doc).__name__}")
    warnings: list[str] = []
    history = doc.get("history")
    if not isinstance(history, list):
        if history is not None:
            warnings.append(f"history is {type(history).__name__}, not a list")
        history = []
    turns = start.reader(doc, _tool_outputs(history), warnings)
    for turn, item in enumerate(history):
        turns.read(turn, item)
    return turns.finish(doc), warnings


@dataclass(frozen=True, slots=True)
class SessionStart:
    """What a session is read with besides its history: the file's facts, the list entry, the
    redactor and the sink. Both ways of reading a file (the whole document, or its history
    streamed: `stream.py`) go through `reader` and `finish`, so a session is the same either way."""

    session_id: str
    entry: ListEntry | None
    file: str
    size: int
    mtime_ns: int
    redact: Redactor
    sink: RecordSink | None = None

    def workspace(self, head: dict[str, Any]) -> str:
        entry = self.entry
        return normalize_workspace(head.get("workspaceDirectory")) or normalize_workspace(
            entry.workspace_directory if entry else None
        )

    def reader(
        self, head: dict[str, Any], fallback_outputs: dict[str, str], warnings: list[str]
    ) -> _TurnReader:
        """A reader of history items, for a document whose other fields known so far are
        `head`; `fallback_outputs` are the IDE's tool items' outputs by call id."""
        last_active = self.mtime_ns / 1e9
        started = parse_date_created(self.entry.date_created if self.entry else None)
        workspace = self.workspace(head)
        session = Session(
            id=self.session_id,
            title="",
            workspace=workspace,
            project=project_name(workspace),
            started=last_active if started is None else started,
            last_active=last_active,
            source="unknown",
            file=self.file,
            size=self.size,
            mtime_ns=self.mtime_ns,
            message_count=0,
            compacted_on_disk=False,
        )
        title = self.entry.title if self.entry else None
        return _TurnReader(
            session, self.redact, fallback_outputs, warnings, sink=self.sink, entry_title=title
        )


@dataclass(slots=True)
class _TurnReader:
    """Reads history items, in order, into the session's records and items."""

    session: Session
    redact: Redactor
    fallback_outputs: dict[str, str]
    warnings: list[str]
    first_user: str = ""
    sink: RecordSink | None = None
    entry_title: str | None = None
    ide_item_seen: bool = False
    # Call ids whose state had no output, looked up in `fallback_outputs` (stream.py).
    looked_up: set[str] = field(default_factory=set)
    lookups: dict[str, int] = field(default_factory=dict)  # those ids, by their call's turn
    tool_items: dict[str, int] = field(default_factory=dict)  # the last tool item of each id

    def finish(self, head: dict[str, Any]) -> Session:
        """The session, once every item is read; `head` is every field of the document but
        its history."""
        session = self.session
        self.flush()
        session.source = _source(head, self.ide_item_seen)
        raw_title = head.get("title")
        if is_placeholder_title(raw_title) and self.entry_title is not None:
            raw_title = self.entry_title
        session.title_from_request = is_placeholder_title(raw_title)
        session.title = _title(raw_title, self.first_user, self.redact)
        session.borrows = [(turn, self.tool_items.get(cid)) for cid, turn in self.lookups.items()]
        return session

    def flush(self) -> None:
        if self.sink is not None and self.session.records:
            self.sink.add(self.session.records)
            self.session.records = []

    def add(self, turn: int, role: Role, text: str, time: float) -> None:
        text = clean_text(text)
        if text.strip():
            self.session.records.append(
                Record(turn, role, self.redact(clip(text, MAX_MESSAGE_CHARS)), time)
            )

    def read(self, turn: int, item: object) -> None:
        self._read(turn, item)
        if turn < 5 and _looks_ide(item):
            self.ide_item_seen = True
        if len(self.session.records) >= _FLUSH_RECORDS:
            self.flush()

    def _read(self, turn: int, item: object) -> None:
        session = self.session
        time = turn_time(session.started, session.last_active, turn)
        if not isinstance(item, dict) or not isinstance(item.get("message"), dict):
            self.warnings.append(f"history[{turn}] has no message object")
            session.items.append(Item(turn, _fingerprint("invalid", str(turn)), "invalid", False))
            return
        message = item["message"]
        role = message.get("role") if isinstance(message.get("role"), str) else ""
        text = content_text(message.get("content"))
        summary = item.get("conversationSummary")
        is_summary = isinstance(summary, str) and bool(summary.strip())
        first_record = len(session.records)
        if is_summary:
            session.compacted_on_disk = True
            self.add(turn, "summary", str(summary), time)
        if role == "user":
            session.message_count += 1
            if not self.first_user and text.strip():
                self.first_user = text
            self.add(turn, "user", text, time)
            for path in _attached_paths(item.get("contextItems"), session.workspace):
                session.records.append(
                    Record(turn, "attached", f"attached {path}", time, path=path)
                )
        elif role == "assistant":
            session.message_count += 1
            # The CLI's summary item repeats the summary as its content: one record is enough.
            if not (is_summary and text.strip() == str(summary).strip()):
                self.add(turn, "assistant", text, time)
            self._assistant_extras(turn, item, message, time)
        elif role == "thinking":
            self.add(turn, "reasoning", text, time)
        elif role == "tool" and isinstance(message.get("toolCallId"), str):
            self.tool_items[message["toolCallId"]] = turn  # as `tool_item_output` reads it
        elif role not in ("system", "tool"):
            self.warnings.append(f"history[{turn}] has unknown role {role!r}")
        # The fingerprint covers everything the item put in the index: an item whose records
        # did not change is the same item, whatever else Continue rewrote around it.
        derived = [
            f"{r.role}\x1e{r.text}\x1e{r.status}\x1e{r.exit_code}\x1e{r.path}\x1e{r.hunks}"
            for r in session.records[first_record:]
        ]
        session.items.append(Item(turn, _fingerprint(role, text, *derived), role, is_summary))

    def _assistant_extras(
        self, turn: int, item: dict[str, Any], message: dict[str, Any], time: float
    ) -> None:
        """An assistant turn's reasoning and its tool calls."""
        reasoning = item.get("reasoning")
        if isinstance(reasoning, dict) and isinstance(reasoning.get("text"), str):
            self.add(turn, "reasoning", reasoning["text"], time)
        for state in _tool_states(item, message):
            call_id = state.get("toolCallId")
            if isinstance(call_id, str) and not output_parts(state)[0]:
                self.looked_up.add(call_id)
                self.lookups.setdefault(call_id, turn)
            self.session.records.append(
                tool_record(
                    state,
                    turn=turn,
                    time=time,
                    workspace=self.session.workspace,
                    fallback_output=self.fallback_outputs.get(call_id, "")
                    if isinstance(call_id, str)
                    else "",
                    redact=self.redact,
                )
            )


def _title(raw_title: object, first_user: str, redact: Redactor) -> str:
    if is_placeholder_title(raw_title):
        # Redact before cutting: a secret cut in half would no longer be recognised.
        opening = clean_text(first_user[:2_000])
        return title_from_message(redact(opening)) or "(untitled)"
    return redact(clean_text(str(raw_title).strip()))


# Matched whole (`fullmatch`, cheaper than `^…$`: a pass checks every id of the list).
_UUIDISH = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")


def is_safe_file_id(value: str) -> bool:
    """Ids the reader accepts as a session file's name in the store (no separators, no `..`).
    Which ids may go into a command (`cn --fork ID`) is the stricter `query.handoff.is_plain_id`.
    A final newline is let through, as the `$` this rule was first written with let it."""
    whole = value[:-1] if value.endswith("\n") else value
    return bool(_UUIDISH.fullmatch(whole)) and ".." not in value
