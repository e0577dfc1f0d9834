"""What an index pass does for vectors: two calls from `index/refresh.py`. Before the sessions,
`prepare` brings the vectors up to date when the model or the settings changed (a quiet pass
only reads two meta rows); after each session is ingested, in its transaction, `after_ingest`
embeds its new records. A model that cannot load leaves search by words, never a failed pass."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import AbstractContextManager

from . import enabled
from .identity import ModelUnavailable
from .vectors import catch_up, embed_session, mark_incomplete, up_to_date

Transaction = Callable[[], AbstractContextManager[sqlite3.Connection]]


def prepare(db: sqlite3.Connection, transaction: Transaction) -> bool:
    """Whether this pass makes vectors."""
    if not enabled():
        return False
    if up_to_date(db):
        return True
    try:
        with transaction() as writer:
            catch_up(writer)
    except ModelUnavailable:
        return False
    return True


def after_ingest(db: sqlite3.Connection, session_id: str, on: bool) -> None:
    if not on:
        mark_incomplete(db)
        return
    try:
        embed_session(db, session_id)
    except ModelUnavailable:
        mark_incomplete(db)
