"""The one place Deja writes into Continue's store: `deja recover` adding a NEW session.

Everything else in Deja only reads the store (`continue_store` opens it read-only). This module
never changes a file that exists: the session file is created under a fresh id and linked into
place (a name that exists is an error, not an overwrite); `sessions.json` is read again just
before it is replaced, atomically (a temporary file renamed over it), with one entry appended —
and a `sessions.json` that does not parse is a refusal, so a list Continue could still repair is
never lost. What is written is the index's text, so it is redacted as the index is."""

from __future__ import annotations

import json
import os
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from deja.errors import DejaError

LIST_NAME = "sessions.json"


class StoreWriteRefused(DejaError):
    """The store is not in a state Deja may add to; nothing was written."""


@dataclass(frozen=True, slots=True)
class NewSession:
    """A session file to add and its `sessions.json` entry."""

    session_id: str
    file: Path
    text: str
    list_file: Path
    entry: dict[str, Any]


def continue_json(value: object) -> str:
    """JSON as Continue writes it (`JSON.stringify(value, undefined, 2)`)."""
    return json.dumps(value, indent=2, ensure_ascii=False)


def plan_new_session(
    root: Path, document: dict[str, Any], *, message_count: int, now: float | None = None
) -> NewSession:
    """The file and entry a new session `document` (its `sessionId` replaced by a fresh one)
    would be written as; nothing is written. Refuses when the list does not parse."""
    folder = root / "sessions"
    if not folder.is_dir():
        raise StoreWriteRefused(f"no Continue sessions folder at {folder}: nothing written")
    read_list(folder / LIST_NAME)
    session_id = str(uuid.uuid4())
    while (folder / f"{session_id}.json").exists():
        session_id = str(uuid.uuid4())
    document = {**document, "sessionId": session_id}
    entry = {
        "sessionId": session_id,
        "title": document.get("title", ""),
        "dateCreated": str(int((time.time() if now is None else now) * 1000)),
        "workspaceDirectory": document.get("workspaceDirectory", ""),
        "messageCount": message_count,
    }
    return NewSession(
        session_id,
        folder / f"{session_id}.json",
        continue_json(document),
        folder / LIST_NAME,
        entry,
    )


def read_list(path: Path) -> list[Any]:
    """`sessions.json` as a list: a missing or empty file is an empty list (as Continue reads
    it); anything that is not a JSON list is a refusal."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    except OSError as error:
        raise StoreWriteRefused(f"cannot read {path}: {error.strerror}; nothing written") from None
    if not data.strip():
        return []
    try:
        entries = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        raise StoreWriteRefused(
            f"{path} does not parse as JSON: left as it is, nothing written"
            " (Continue refuses to save until it is fixed)"
        ) from None
    if not isinstance(entries, list):
        raise StoreWriteRefused(f"{path} is not a JSON list: left as it is, nothing written")
    return entries


def write_new_session(new: NewSession) -> None:
    """Create the session file (never over an existing one), then replace `sessions.json` with
    the list read again now plus the entry. A refusal at the second step takes the new file
    back out, so the store is as it was."""
    _create(new.file, new.text)
    try:
        entries = read_list(new.list_file)
        entries.append(new.entry)
        _replace(new.list_file, continue_json(entries))
    except BaseException:
        new.file.unlink(missing_ok=True)
        raise


def _create(path: Path, text: str) -> None:
    """Write to a temporary name, then link it to `path`: the file appears whole, and a name
    that exists fails instead of being replaced."""
    temporary = path.with_name(f".{path.stem}.deja-tmp")
    _write(temporary, text, exclusive=True)
    try:
        os.link(temporary, path)
    except FileExistsError:
        raise StoreWriteRefused(f"{path} exists: nothing written") from None
    except OSError:
        # A file system without hard links: create the name exclusively instead.
        _write(path, text, exclusive=True)
    finally:
        temporary.unlink(missing_ok=True)


def _replace(path: Path, text: str) -> None:
    temporary = path.with_name(f".{path.name}.deja-tmp")
    _write(temporary, text, exclusive=False)
    try:
        os.replace(temporary, path)
    except OSError:
        temporary.unlink(missing_ok=True)
        raise


def _write(path: Path, text: str, *, exclusive: bool) -> None:
    flags = os.O_WRONLY | os.O_CREAT | (os.O_EXCL if exclusive else os.O_TRUNC)
    fd = os.open(path, flags | getattr(os, "O_BINARY", 0), 0o644)
    with os.fdopen(fd, "wb") as file:
        file.write(text.encode("utf-8", "replace"))
        file.flush()
        os.fsync(file.fileno())
