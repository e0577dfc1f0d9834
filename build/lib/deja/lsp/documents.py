"""A file's past as the editor sees it: every recorded edit, write and read of the file, and
where each edit's written text stands in the document's current text (in the client's units)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from lsprotocol import types
from pygls.workspace import PositionCodec

from deja.query import FileEvent, History, LineRange

# A file over this is not read from disk to place edits (an open document is always used).
MAX_DOCUMENT_BYTES = 8 * 1024 * 1024
CACHED_VIEWS = 64


@dataclass(frozen=True, slots=True)
class Placed:
    """One hunk of a past edit whose written text still stands in the document."""

    event: FileEvent
    hunk: int
    range: types.Range


@dataclass(slots=True)
class FileView:
    uri: str
    path: str
    events: list[FileEvent] = field(default_factory=list)
    placed: list[Placed] = field(default_factory=list)

    def covering(self, position: types.Position) -> list[Placed]:
        """Newest first, as `events` are."""
        return [placed for placed in self.placed if contains(placed.range, position)]

    def session_count(self) -> int:
        return len({event.session_id for event in self.events})


def contains(span: types.Range, position: types.Position) -> bool:
    start, end = span.start, span.end
    after_start = (position.line, position.character) >= (start.line, start.character)
    return after_start and (position.line, position.character) <= (end.line, end.character)


def client_range(lines: list[str], found: LineRange, codec: PositionCodec) -> types.Range:
    """Code-point columns (what `locate` gives) → the client's position encoding."""

    def column(line: int, char: int) -> int:
        text = lines[line] if line < len(lines) else ""
        return int(codec.client_num_units(text[:char]))

    return types.Range(
        start=types.Position(found.start_line, column(found.start_line, found.start_char)),
        end=types.Position(found.end_line, column(found.end_line, found.end_char)),
    )


def build_view(
    history: History, uri: str, path: str, text: str | None, codec: PositionCodec
) -> FileView:
    # Edits are recorded with "\n"; a CRLF document keeps the same lines and columns without "\r".
    document = text.replace("\r\n", "\n") if text is not None else None
    events = history.file_history(path, document=document)
    view = FileView(uri, path, events)
    if document is None:
        return view
    lines = document.split("\n")
    for event in events:
        for hunk, found in enumerate(event.ranges):
            if found is not None:
                view.placed.append(Placed(event, hunk, client_range(lines, found, codec)))
    return view


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

    def get(self, uri: str, version: int | None, build: Callable[[], FileView]) -> FileView:
        if version is None:
            return build()
        key = (version, self.generation)
        cached = self._views.get(uri)
        if cached is not None and cached[0] == key:
            self._views.move_to_end(uri)
            return cached[1]
        view = build()
        self._views[uri] = (key, view)
        self._views.move_to_end(uri)
        while len(self._views) > CACHED_VIEWS:
            self._views.popitem(last=False)
        return view

    def index_changed(self) -> None:
        self.generation += 1

    def forget(self, uri: str) -> None:
        self._views.pop(uri, None)
