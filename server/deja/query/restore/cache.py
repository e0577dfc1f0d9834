"""The per-session cache of built sections under DEJA_HOME, and the key a section is built
under: what changes whenever the index rewrites any of the session's records."""

from __future__ import annotations

import hashlib
import os
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path

import deja

from ... import jsonlib
from ..sessions import session_ids
from .load import SessionState
from .section import FORMAT_VERSION, LastUser

CACHE_DIR = "restore-cache"
# What a section holds beyond the format (a fork's inherited turns: 2); sections cached before a
# change are rebuilt.
_LAYOUT = 2


def cache_key(state: SessionState, until: int | None, inherited: bool = False) -> str:
    """`inherited`: a fork's section shows the turns it copied from its parent."""
    s = state.session
    parts = (
        FORMAT_VERSION,
        _LAYOUT,
        inherited,
        deja.__version__,
        s.id,
        s.title,
        s.workspace,
        s.started,
        s.last_active,
        s.size,
        s.kept_turns,
        s.deleted,
        s.forked_from,
        s.forked_from_title,
        s.fork_turn,
        state.mtime_ns,
        state.base_turn,
        state.record_count,
        state.last_record,
        until,
    )
    return hashlib.blake2b(repr(parts).encode(), digest_size=16).hexdigest()


class SectionCache:
    """One file per session (0600, in a 0700 folder under DEJA_HOME), holding its section as last
    built and the key it was built under. A file whose key differs is stale and rebuilt."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def path(self, session_id: str) -> Path:
        # Hashed: a session id never becomes part of a path.
        name = hashlib.blake2b(session_id.encode(), digest_size=16).hexdigest()
        return self.folder / f"{name}.json"

    def get(self, session_id: str, key: str) -> tuple[str, list[LastUser]] | None:
        try:
            data = jsonlib.loads(self.path(session_id).read_bytes())
        except (OSError, jsonlib.JSONDecodeError):
            return None
        if not isinstance(data, dict) or data.get("key") != key:
            return None
        return str(data["text"]), [LastUser(*user) for user in data["users"]]

    def put(self, session_id: str, key: str, text: str, users: Sequence[LastUser]) -> None:
        """Best effort: a cache that cannot be written only costs the next restore time."""
        data = jsonlib.dumps(
            {"key": key, "text": text, "users": [[u.time, u.turn, u.text] for u in users]}
        )
        target = self.path(session_id)
        temp = target.with_name(f".{target.stem}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
        try:
            self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            os.chmod(self.folder, 0o700)
            fd = os.open(temp, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
            with os.fdopen(fd, "wb") as out:
                out.write(data)
            os.replace(temp, target)
        except OSError:
            temp.unlink(missing_ok=True)

    def prune(self, session_ids: Iterable[str]) -> None:
        """Drop the files of sessions no longer in the index (`forget` removed them): the cache
        must not keep conversations the user asked Deja to forget."""
        keep = {self.path(session_id).name for session_id in session_ids}
        try:
            with os.scandir(self.folder) as entries:
                for entry in entries:
                    if entry.name.endswith(".json") and entry.name not in keep:
                        Path(entry.path).unlink(missing_ok=True)
        except OSError:
            pass


def prune_cache(db: sqlite3.Connection, home: Path) -> None:
    """Drop the cached sections of sessions the index no longer holds."""
    SectionCache(home / CACHE_DIR).prune(session_ids(db))
