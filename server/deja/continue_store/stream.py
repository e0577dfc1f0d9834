"""A very large session file read with its `history[]` streamed (ijson), item by item, so that
memory does not grow with the file: the items go through the same `_TurnReader` as a whole
document's (`parse.py`), so the session is the same either way.

A streamed file is read once, unless what an item's records depend on turned up after it: the
workspace written after `history`, or an IDE `role:"tool"` item whose output a call before it
lacked. Then it is read again with those known (a file Continue wrote never needs it)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO, Any

from .parse import SessionError, SessionStart, tool_item_output
from .records import Session

_ITEM = "history.item"
_ITEM_LEN = len(_ITEM)
_END = object()
_EMPTY: dict[str, type] = {"start_map": dict, "start_array": list}
# Events inside a field's value that carry the field's own prefix.
_NOT_A_VALUE = frozenset({"map_key", "end_map", "end_array"})


def available() -> bool:
    """Whether ijson is installed (its C backend when the platform has one, else pure Python)."""
    try:
        import ijson  # noqa: F401
    except ImportError:
        return False
    return True


@dataclass(slots=True)
class _Document:
    """The document's fields but its history, as the events pass: a scalar as it is, a
    container as an empty one of its type (nothing reads more of one)."""

    head: dict[str, Any] = field(default_factory=dict)
    history_type: str | None = None
    root_type: str | None = None

    def events(self, file: IO[bytes]) -> Iterator[tuple[str, str, Any]]:
        import ijson

        for event in ijson.parse(file, use_float=True, buf_size=1 << 16):
            prefix, kind, value = event
            if prefix.startswith(_ITEM) and (len(prefix) == _ITEM_LEN or prefix[_ITEM_LEN] == "."):
                if self.history_type == "list":
                    yield event
            elif not prefix:
                if self.root_type is None:
                    self.root_type = _type_name(kind, value)
            elif "." not in prefix and kind not in _NOT_A_VALUE:
                self._field(prefix, kind, value)

    def _field(self, key: str, kind: str, value: Any) -> None:
        if key == "history":
            if self.history_type is not None:
                raise SessionError("history written twice; not read")
            self.history_type = _type_name(kind, value)
            return
        self.head[key] = _EMPTY[kind]() if kind in _EMPTY else value


def _type_name(kind: str, value: Any) -> str:
    return _EMPTY[kind].__name__ if kind in _EMPTY else type(value).__name__


@dataclass(slots=True)
class _Pass:
    """What one reading of the file found besides the session."""

    session: Session
    warnings: list[str]
    head: dict[str, Any]
    needs_outputs: set[str]  # call ids that lacked an output and have a tool item after them
    outputs: dict[str, str]  # those tool items' outputs, the last one of each id
    early_tool_ids: set[str]  # tool items seen before a call looked their id up


def _read_pass(
    file: IO[bytes], start: SessionStart, head: dict[str, Any] | None, outputs: dict[str, str]
) -> _Pass:
    import ijson

    document = _Document()
    warnings: list[str] = []
    found: dict[str, str] = {}
    needs: set[str] = set()
    early: set[str] = set()
    try:
        items = iter(ijson.items(document.events(file), _ITEM))
        item = next(items, _END)  # the fields before `history` are known from here
        if document.root_type not in (None, "dict"):
            raise SessionError(f"expected a JSON object, found {document.root_type}")
        turns = start.reader(document.head if head is None else head, outputs, warnings)
        turn = 0
        while item is not _END:
            turns.read(turn, item)
            tool = tool_item_output(item)
            if tool is not None:
                if tool[0] in turns.looked_up:
                    needs.add(tool[0])
                    found[tool[0]] = tool[1]
                else:
                    early.add(tool[0])
            turn += 1
            item = next(items, _END)
    except ijson.JSONError as error:
        raise SessionError(f"invalid JSON: {error}", transient=True) from None
    if document.root_type is None:
        raise SessionError("invalid JSON: the file is empty", transient=True)
    kind = document.history_type
    if kind not in (None, "list", "NoneType"):
        warnings.insert(0, f"history is {kind}, not a list")
    session = turns.finish(document.head)
    return _Pass(session, warnings, document.head, needs, found, early & turns.looked_up)


def stream_session(file: IO[bytes], start: SessionStart) -> tuple[Session, list[str]]:
    """The session in `file` (open at its start) and the warnings, as `parse_session` gives
    them for the same bytes; records go to `start.sink` when there is one."""
    done = _read_pass(file, start, None, {})
    workspace_moved = start.workspace(done.head) != done.session.workspace
    if not (workspace_moved or done.needs_outputs or done.early_tool_ids):
        return done.session, done.warnings
    outputs = done.outputs
    if done.early_tool_ids:
        outputs = _tool_outputs(file, done.early_tool_ids | set(done.outputs))
    file.seek(0)
    if start.sink is not None:
        start.sink.reset()
    again = _read_pass(file, start, done.head, outputs)
    return again.session, again.warnings


def _tool_outputs(file: IO[bytes], wanted: set[str]) -> dict[str, str]:
    """The outputs of the tool items of `wanted` ids, the last of each (as `parse.py` keeps)."""
    import ijson

    file.seek(0)
    outputs: dict[str, str] = {}
    document = _Document()
    for item in ijson.items(document.events(file), _ITEM):
        tool = tool_item_output(item)
        if tool is not None and tool[0] in wanted:
            outputs[tool[0]] = tool[1]
    return outputs
