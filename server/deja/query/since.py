"""`since`: how far back a search looks, as every front door takes it (`7d`, `12h`, `30m`, `2w`
ago, or a date `2026-11-01`)."""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime

from .query_syntax import QueryError

_UNITS = {"m": 60, "h": 3_600, "d": 86_400, "w": 604_800}


def parse_since(value: str, now: float | None = None) -> float:
    """Epoch seconds; a `QueryError` naming the value (each door names its field) when it is
    neither form."""
    match = re.fullmatch(r"(\d+)([mhdw])", value.strip())
    if match:
        return (time.time() if now is None else now) - int(match.group(1)) * _UNITS[match.group(2)]
    try:
        parsed = datetime.fromisoformat(value.strip())
    except ValueError:
        raise QueryError(f"{value!r} is not a duration (7d, 12h) or a date (2026-11-01)") from None
    return (parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)).timestamp()
