"""The store refusal check: a pass that would mark every session deleted because the store is
missing, unreadable or empty is reported, not applied."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from deja.continue_store import Diagnostic
from deja.continue_store.listing import NO_SESSIONS_FOLDER

# A store listing no session file while the index holds this many live sessions is reported,
# not applied: an unmounted home looks just like that. One session deleted is just a delete.
EMPTIED_STORE_SESSIONS = 2


# "other": a valid store, but not the one the index holds (store_identity.py).
StoreProblem = Literal["missing", "unreadable", "empty", "other"]


@dataclass(frozen=True, slots=True)
class StoreRefusal:
    """Why a pass left the index as it was: applying this store would mark every session it
    holds deleted, and a wrong setting or an unmounted home looks just like that."""

    problem: StoreProblem
    message: str


def store_refusal(
    root: Path,
    files: int | None,
    scan_notes: list[Diagnostic],
    live: int,
    accept_empty: bool,
) -> StoreRefusal | None:
    """Why the store scanned at `root` (`files` session files; None: it could not be listed)
    must not be applied to an index of `live` sessions."""
    folder = root / "sessions"
    kept = "not applied"
    if live:
        kept += f": the index keeps its {live} session{'s' * (live != 1)} as they were"
    if files is None:
        reason = scan_notes[0].message if scan_notes else "not a folder"
        if reason == NO_SESSIONS_FOLDER:  # the scan's own word: nothing there at all
            return StoreRefusal(
                "missing",
                f"there is no Continue session store at {folder}; {kept} (set "
                "DEJA_CONTINUE_ROOT or CONTINUE_GLOBAL_DIR to where Continue keeps it)",
            )
        return StoreRefusal(
            "unreadable", f"cannot list Continue's session store {folder} ({reason}); {kept}"
        )
    if not files and live >= EMPTIED_STORE_SESSIONS and not accept_empty:
        # An unmounted or half-synced home looks exactly like this.
        return StoreRefusal(
            "empty",
            f"Continue's session store {folder} holds no session file; {kept}. If every "
            "session really is gone, `deja index --accept-empty` marks them deleted",
        )
    return None
