"""A file's past as the editor sees it: every recorded edit, write and read of the file, and
which edit wrote each line of the document's current text (its provenance, in the client's
units). Kept per document version: a keystroke re-checks only the lines it changed."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from lsprotocol import types
from pygls.workspace import PositionCodec

from deja.continue_store.tool_calls import call_outcome
from deja.query import FileEvent, History, LineRange, Provenance
from deja.query.provenance_update import updated

# A file over this is not read from disk to place edits (an open document is always used).
MAX_DOCUMENT_BYTES = 8 * 1024 * 1024
CACHED_VIEWS = 64


@dataclass(frozen=True, slots=True)
class Placed:
    """One hunk of a past edit whose written lines stand in the document (`changed`: the line
    asked about is that text changed since)."""

    event: FileEvent
    hunk: int
    range: types.Range
    changed: bool = False


@dataclass
class FileView:
    uri: str
    path: str
    events: list[FileEvent] = field(default_factory=list)
    mapping: Provenance | None = None
    codec: PositionCodec | None = None

    @cached_property
    def placed(self) -> list[Placed]:
        """Every hunk that claims lines, newest event first, spanning its first to last line."""
        mapping = self.mapping
        if mapping is None:
            return []
        found: list[Placed] = []
        for index, event in enumerate(mapping.events):
            for hunk, span in enumerate(mapping.event_ranges(index)):
                if span is not None:
                    found.append(Placed(event, hunk, self._client(span)))
        return found

    def covering(self, position: types.Position) -> list[Placed]:
        """The edits that wrote the line: its owner first (its range the run of lines it owns
        around the position), then the older claims on it, newest first (their range the line:
        only the owner's is shown)."""
        mapping = self.mapping
        if mapping is None:
            return []
        owner = mapping.owner(position.line)
        if owner is None:
            return []
        first, last = mapping.run(position.line)
        span = mapping.columns.get((owner.event, owner.hunk))
        if span is None or (span.start_line, span.end_line) != (first, last):
            span = LineRange(first, 0, last, len(mapping.texts[last]))
        found = [Placed(mapping.events[owner.event], owner.hunk, self._client(span), owner.changed)]
        line = position.line
        here = self._client(LineRange(line, 0, line, len(mapping.texts[line])))
        seen = {owner.event}
        for claim in reversed(mapping.stacks[line]):
            if claim.event not in seen:
                seen.add(claim.event)
                event = mapping.events[claim.event]
                found.append(Placed(event, claim.hunk, here, claim.changed))
        return found

    @cached_property
    def changed(self) -> frozenset[int]:
        """The `id`s of the events a line of which was edited after they wrote it: the line is
        only similar to their text now ("changed since")."""
        mapping = self.mapping
        if mapping is None:
            return frozenset()
        return frozenset(
            id(mapping.events[claim.event])
            for stack in mapping.stacks
            for claim in stack
            if claim.changed
        )

    def runs(self) -> list[tuple[int, FileEvent]]:
        """The first line of each run of lines the same edit owns, and that edit."""
        mapping = self.mapping
        return [] if mapping is None else [(n, mapping.events[c.event]) for n, c in mapping.runs()]

    def changed_by(self) -> set[str]:
        """The sessions that changed the file: an edit that ran (not refused, errored or
        unanswered); reads and attached copies change nothing."""
        return {
            event.session_id
            for event in self.events
            if event.role == "edit" and call_outcome(event.status) is None
        }

    def _client(self, found: LineRange) -> types.Range:
        assert self.mapping is not None and self.codec is not None
        return client_range(self.mapping.texts, found, self.codec)


def client_range(lines: list[str], found: LineRange, codec: PositionCodec) -> types.Range:
    """Code-point columns (what provenance gives) → the client's position encoding."""

    def column(line: int, char: int) -> int:
        text = lines[line] if line < len(lines) else ""
        return int(codec.client_num_units(text[:char]))

    return types.Range(
        start=types.Position(found.start_line, column(found.start_line, found.start_char)),
        end=types.Position(found.end_line, column(found.end_line, found.end_char)),
    )


def build_view(
    history: History,
    uri: str,
    path: str,
    text: str | None,
    codec: PositionCodec,
    previous: FileView | None = None,
) -> FileView:
    """The file's events and its text's provenance. From `previous` (the same document at an
    older version, the same index), the events are reused and only changed lines re-checked."""
    # Edits are recorded with "\n"; a CRLF document keeps the same lines and columns without "\r".
    document = text.replace("\r\n", "\n") if text is not None else None
    if previous is not None and previous.mapping is not None and document is not None:
        mapping = updated(previous.mapping, document)
        return FileView(uri, path, previous.events, mapping, codec)
    events = history.file_history(path)
    if document is None:
        return FileView(uri, path, events)
    return FileView(uri, path, events, history.provenance(events, document), codec)


def read_document(path: str) -> str | None:
    """The file as it is on disk, for a document the editor has not opened."""
    try:
        file = Path(path)
        if file.stat().st_size > MAX_DOCUMENT_BYTES:
            return None
        return file.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


class FileViews:
    """Views of open documents, kept per (document version, index generation): hover and code
    lens then answer without a query."""

    def __init__(self) -> None:
        self.generation = 0
        self._views: OrderedDict[str, tuple[tuple[int, int], FileView]] = OrderedDict()

    def get(
        self, uri: str, version: int | None, build: Callable[[FileView | None], FileView]
    ) -> FileView:
        """The view of this version; else one built, from the last version's when the index
        has not changed since."""
        if version is None:
            return build(None)
        key = (version, self.generation)
        cached = self._views.get(uri)
        if cached is not None and cached[0] == key:
            self._views.move_to_end(uri)
            return cached[1]
        previous = cached[1] if cached is not None and cached[0][1] == self.generation else None
        view = build(previous)
        self._views[uri] = (key, view)
        self._views.move_to_end(uri)
        while len(self._views) > CACHED_VIEWS:
            self._views.popitem(last=False)
        return view

    def index_changed(self) -> None:
        self.generation += 1

    def forget(self, uri: str) -> None:
        self._views.pop(uri, None)
