"""`deja stats`: what the index holds."""

from __future__ import annotations

import argparse

from deja.quantities import human_size
from deja.wire import iso, stats_json

from ..common import emit, opened_history


def run(args: argparse.Namespace) -> int:
    with opened_history() as history:
        stats = history.stats()

        def lines() -> list[str]:
            ratio = (
                f" ({stats.index_bytes / stats.store_bytes:.0%} of the store)"
                if stats.store_bytes
                else ""
            )
            return [
                f"sessions: {stats.sessions} ({stats.deleted_sessions} deleted from the store)",
                f"records: {stats.records} ({stats.compacted_records} compacted: only Deja has"
                " them)",
                f"index: {human_size(stats.index_bytes)}{ratio} at {stats.index_path}",
                f"store: {human_size(stats.store_bytes)} at {stats.store_path}",
                f"last change indexed: {iso(stats.last_pass) or 'never'}",
                f"search by meaning: {stats.meaning.summary}",
            ]

        emit(args, "stats", lines, **stats_json(stats))
    return 0
