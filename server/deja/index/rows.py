"""A session's records as the rows the index inserts, made before the writer runs its SQL.

The identifier parts, the hunks' JSON and whether the view can make a record's text
(`text.made_text`, which SQLite evaluated per row before) were about half of a cold pass's
writer CPU (CLI-heavy store: 5.4–6.5 s → 3.2–3.4 s): a large pass makes them in the reader
workers (`reader_pool.py`), so the writer only runs SQL; a small one makes them in process,
with the same code, so the index is the same either way. Long texts are packed here too
(pack.py), off the writer."""

from __future__ import annotations

from dataclasses import dataclass, field

from deja import jsonlib
from deja.continue_store import Record, SessionRead, SessionRef, read_session

from .pack import pack, pack_output
from .text import made_text
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
    rows: list[RecordRow] = field(default_factory=list)


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


def prepare(read: SessionRead) -> PreparedRead:
    session = read.session
    if session is None:
        return PreparedRead(read)
    rows = [record_row(record) for record in session.records]
    session.records = []
    return PreparedRead(read, rows)


def read_prepared(ref: SessionRef, *, redact_secrets: bool, max_bytes: int) -> PreparedRead:
    """`read_session`, then the rows: what the reader worker runs for each file."""
    return prepare(read_session(ref, redact_secrets=redact_secrets, max_bytes=max_bytes))
