"""Large stored text kept compressed (schema 3): `pack` turns a text the index stores into what
goes in its column, a raw-deflate BLOB when that pays, else the text itself; `unpack` gives the
text back, and is registered on every connection as the SQL function `unpack` that the view
`record_texts` and every reader of `records.output`, `hunks` and `body` use. A TEXT value is
its own text, so a column may hold both kinds and an index of schema 2 reads the same. Pure."""

from __future__ import annotations

import sqlite3
import zlib

# Shorter text gains too little to pay for the call that gives it back.
PACK_MIN_BYTES = 256
# Kept as text unless the BLOB is at most this share of its UTF-8 bytes.
_PAYS = 0.9
# Higher levels save few bytes for much more CPU on session text (bench/RESULTS.md has the A/B).
_LEVEL = 1
_RAW = -15  # raw deflate: no header or checksum (SQLite's pages have their own)


def pack(text: str | None) -> str | bytes | None:
    """The value to store for `text`: a BLOB when deflate makes it 10 % smaller or more."""
    if text is None or len(text) < PACK_MIN_BYTES:
        return text
    raw = text.encode()
    packed = zlib.compress(raw, _LEVEL, _RAW)
    return packed if len(packed) <= len(raw) * _PAYS else text


def failed_sql(alias: str = "") -> str:
    """A failed call in SQL, its columns named `alias` + name: what `deja fix` scans
    (`query/fix.py`, the partial index `records_failed`) and what keeps its output as text."""
    status, code = f"{alias}status", f"{alias}exit_code"
    return f"({status} = 'errored' OR ({code} IS NOT NULL AND {code} != 0))"


def pack_output(
    output: str | None, status: str | None, exit_code: int | None
) -> str | bytes | None:
    """A call's output to store: a failed call's stays text, since `deja fix` searches every
    failed output in SQL, and an `unpack` per row there costs far more than the bytes packing
    would save."""
    if status == "errored" or (exit_code is not None and exit_code != 0):
        return output
    return pack(output)


# The view reads an edit's hunks up to nine times for one row (one_line.py): the last one is kept.
_last: tuple[bytes, str] = (b"", "")


def unpack(value: str | bytes | None) -> str | None:
    """The text a stored value holds (`pack`'s inverse); a text or NULL is itself."""
    global _last
    if not isinstance(value, bytes):
        return value
    last = _last
    if last[0] == value:
        return last[1]
    text = zlib.decompress(value, _RAW).decode()
    _last = (value, text)
    return text


def _pack_sql(value: str | bytes | None) -> str | bytes | None:
    return pack(value) if isinstance(value, str) else value


def as_text(column: str) -> str:
    """SQL for a packed column's text that calls `unpack` only for a BLOB: for a scan of many
    rows that are mostly text (a failed call's output always is: `pack_output`)."""
    return f"CASE WHEN typeof({column}) = 'blob' THEN unpack({column}) ELSE {column} END"


def register(db: sqlite3.Connection) -> None:
    """Make `unpack` and `pack` callable from SQL on `db`: the view `record_texts` needs the
    one, an insert's text that is not made from its columns (one_line.py) the other."""
    db.create_function("unpack", 1, unpack, deterministic=True)
    db.create_function("pack", 1, _pack_sql, deterministic=True)
