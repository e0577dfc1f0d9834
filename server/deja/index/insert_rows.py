"""A session's records as the rows the index inserts, made before the writer runs its SQL.

The identifier parts, the hunks' JSON and whether the view can make a record's text
(`text.made_text`, which SQLite evaluated per row before) were about half of a cold pass's
writer CPU (CLI-heavy store: 5.4–6.5 s → 3.2–3.4 s): a large pass makes them in the reader
workers (`reader_pool.py`), so the writer only runs SQL; a small one makes them in process,
with the same code, so the index is the same either way. Long texts are packed here too
(pack.py), off the writer."""

from __future__ import annotations

import contextlib
import os
import pickle
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any

from deja import jsonlib, settings
from deja.continue_store import Record, SessionRead, SessionRef, read_session

from .pack import pack, pack_output
from .searchable_text import made_text
from .tokens import identifier_parts

# A record without what the writer adds (its id, session, base turn and time): turn, role,
# tool, status, path, exit_code, output (packed), args, hunks (JSON, packed), body (packed;
# None when the view makes the text), parts, text.
RecordRow = tuple[
    int,
    str,
    str | None,
    str | None,
    str | None,
    int | None,
    str | bytes | None,
    str | None,
    str | bytes | None,
    str | bytes | None,
    str,
    str,
]


@dataclass(slots=True)
class PreparedRead:
    """A file read, its session's records made into `rows` (the session keeps no `records`:
    they would cross from the worker twice)."""

    read: SessionRead
    rows: Iterable[RecordRow] = field(default_factory=list)


def hunks_json(record: Record) -> str | None:
    if not record.hunks:
        return None
    return jsonlib.dumps([[hunk.replaced, hunk.written] for hunk in record.hunks]).decode()


def record_row(record: Record) -> RecordRow:
    text = record.text
    made = made_text(
        record.role, record.tool, record.args, record.output, record.path, record.hunks
    )
    return (
        record.turn,
        record.role,
        record.tool,
        record.status,
        record.path,
        record.exit_code,
        pack_output(record.output, record.status, record.exit_code),
        record.args,
        pack(hunks_json(record)),
        None if made == text else pack(text),
        identifier_parts(text),
        text,
    )


class SpooledRows:
    """A streamed session's rows, made as its records are read and kept in a temporary file
    (0600, in Deja's folder) instead of memory; iterable as often as the writer needs (a
    batch rolled back writes a session again). The file goes when its owner is collected:
    the object that made it, or the copy it was pickled to (from a reader worker)."""

    def __init__(self) -> None:
        self.path: str | None = None
        self._file: IO[bytes] | None = None
        self._owner = True

    def add(self, records: list[Record]) -> None:
        if self._file is None:
            folder = settings.deja_home()
            fd, self.path = tempfile.mkstemp(
                prefix="rows-", suffix=".tmp", dir=folder if folder.is_dir() else None
            )
            self._file = os.fdopen(fd, "wb")
        pickle.dump([record_row(record) for record in records], self._file, protocol=5)

    def reset(self) -> None:
        if self._file is not None:
            self._file.seek(0)
            self._file.truncate()

    @property
    def used(self) -> bool:
        return self.path is not None

    def _close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def __iter__(self) -> Iterator[RecordRow]:
        self._close()
        if self.path is None:
            return
        with open(self.path, "rb") as file:
            while True:
                try:
                    chunk: list[RecordRow] = pickle.load(file)
                except EOFError:
                    return
                yield from chunk

    def __getstate__(self) -> dict[str, Any]:
        self._close()
        self._owner = False  # the copy owns the file now
        return {"path": self.path}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.path, self._file, self._owner = state["path"], None, True

    def __del__(self) -> None:
        self._close()
        if self._owner and self.path is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.path)


class RecordRows:
    """A session's records, made into rows as the writer takes them: read in process, the
    turns a grown session keeps (`ingest.held_turns`) are never made into rows. Iterable as
    often as the writer needs, each time the same rows."""

    __slots__ = ("records",)

    def __init__(self, records: list[Record]) -> None:
        self.records = records

    def __iter__(self) -> Iterator[RecordRow]:
        return map(record_row, self.records)

    def from_turn(self, turn: int) -> Iterator[RecordRow]:
        return map(record_row, [record for record in self.records if record.turn >= turn])


def rows_from(rows: Iterable[RecordRow], turn: int) -> Iterable[RecordRow]:
    """The rows of the turns from `turn` on (made only for those, when still records)."""
    if isinstance(rows, RecordRows):
        return rows.from_turn(turn)
    return (row for row in rows if row[0] >= turn)


def prepare(
    read: SessionRead, spill: SpooledRows | None = None, *, in_process: bool = False
) -> PreparedRead:
    """The read with its rows: made now in a reader worker (the writer then only runs SQL),
    as the writer takes them in process."""
    session = read.session
    if session is None:
        return PreparedRead(read)
    if spill is not None and spill.used:
        return PreparedRead(read, spill)
    records, session.records = session.records, []
    rows = RecordRows(records)
    return PreparedRead(read, rows if in_process else list(rows))


def read_prepared(
    ref: SessionRef, *, redact_secrets: bool, max_bytes: int, in_process: bool = False
) -> PreparedRead:
    """`read_session`, then the rows: what the reader worker runs for each file. A streamed
    file's rows are made as it is read, into a `SpooledRows`."""
    spill = SpooledRows()
    read = read_session(ref, redact_secrets=redact_secrets, max_bytes=max_bytes, spill=spill)
    return prepare(read, spill, in_process=in_process)
