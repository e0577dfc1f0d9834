"""Rows read by column name: the query modules build their dataclasses from `sqlite3.Row`, so a
column added or reordered in a SELECT cannot shift a field."""

from __future__ import annotations

import sqlite3


def named(db: sqlite3.Connection) -> sqlite3.Cursor:
    """A cursor whose rows are read by column name."""
    cursor = db.cursor()
    cursor.row_factory = sqlite3.Row
    return cursor
