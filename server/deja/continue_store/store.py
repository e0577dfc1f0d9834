"""Finding and reading Continue's store on disk. Read-only: nothing here writes or touches it."""

from __future__ import annotations

import os
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deja import settings
from deja.quantities import human_size

from . import stream
from .listing import SESSIONS_LIST, SessionFile, scan_session_files
from .parse import SessionError, SessionStart, decode_json, is_safe_file_id, parse_document
from .records import Diagnostic, ListEntry, RecordSink, Session
from .tool_calls import Redactor

# Continue rewrites files in place without a lock: a half-written file gets one more chance.
RETRY_DELAY_S = 0.15
# From this size a file's history is streamed rather than parsed whole: a whole parse holds
# several times the file's size in memory.
STREAM_MIN_BYTES = 16 * 1024 * 1024
# Without ijson (a Python it has no wheel for) a file is parsed whole: up to this size only.
WHOLE_MAX_BYTES = 64 * 1024 * 1024

# Where the store is: `DEJA_CONTINUE_ROOT`, else `CONTINUE_GLOBAL_DIR`, else `~/.continue`.
resolve_root = settings.continue_root


@dataclass(frozen=True, slots=True)
class SessionRef:
    """A session the store knows of: a file, a list entry, or both."""

    id: str
    file: Path | None
    entry: ListEntry | None
    size: int = 0
    mtime_ns: int = 0


@dataclass(slots=True)
class StoreListing:
    root: Path
    refs: list[SessionRef] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    exists: bool = True


@dataclass(slots=True)
class SessionRead:
    session: Session | None
    diagnostics: list[Diagnostic] = field(default_factory=list)


def _entries(
    data: Any, path: str, diagnostics: list[Diagnostic], wanted: set[str] | None = None
) -> list[ListEntry]:
    if not isinstance(data, list):
        diagnostics.append(Diagnostic(path, f"expected a list, found {type(data).__name__}"))
        return []
    entries: list[ListEntry] = []
    for index, raw in enumerate(data):
        if not isinstance(raw, dict):
            diagnostics.append(Diagnostic(path, f"entry {index} is not an object"))
            continue
        session_id = raw.get("sessionId")
        if not isinstance(session_id, str):
            if isinstance(raw.get("session_id"), str):
                continue  # legacy entry from Continue's old Python server: Continue skips it too
            diagnostics.append(Diagnostic(path, f"entry {index} has no sessionId"))
            continue
        if not is_safe_file_id(session_id):
            diagnostics.append(Diagnostic(path, f"entry {index} has an unsafe id {session_id!r}"))
            continue
        if wanted is not None and session_id not in wanted:
            continue  # checked all the same: what is wrong with the list is said either way

        def text(key: str, raw: dict[str, Any] = raw) -> str | None:
            value = raw.get(key)
            return value if isinstance(value, str) else None

        date = raw.get("dateCreated")
        entries.append(
            ListEntry(
                session_id=session_id,
                title=text("title"),
                date_created=str(date) if isinstance(date, str | int | float) else None,
                workspace_directory=text("workspaceDirectory"),
            )
        )
    return entries


def _open_regular_file(path: Path, limit: int) -> tuple[int, os.stat_result]:
    """An open descriptor of a regular file (not a FIFO, device or symlink) and its stat,
    refusing a file over `limit`; the caller closes it."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    fd = os.open(path, flags)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(f"not a regular file ({stat.filemode(info.st_mode)})")
        if info.st_size > limit:
            raise OSError(
                f"{human_size(info.st_size)} is over the {_cap(limit)}; not read "
                f"(raise {settings.MAX_SESSION_BYTES_VAR} to read it)"
            )
    except BaseException:
        os.close(fd)
        raise
    return fd, info


def _read_all(fd: int, limit: int) -> bytes:
    chunks: list[bytes] = []
    remaining = limit + 1
    while remaining > 0:
        chunk = os.read(fd, min(remaining, 1 << 22))
        if not chunk:
            break
        chunks.append(chunk)
        remaining -= len(chunk)
    data = b"".join(chunks)
    if len(data) > limit:
        raise OSError(f"grew past the {_cap(limit)} while being read; not read")
    return data


def _read_regular_file(path: Path, limit: int) -> tuple[bytes, os.stat_result]:
    """Bytes of a regular file, refusing files over `limit`."""
    fd, info = _open_regular_file(path, limit)
    try:
        return _read_all(fd, limit), info
    finally:
        os.close(fd)


def _cap(limit: int) -> str:
    """The cap in force, as the user would set it."""
    return f"{human_size(limit)} cap ({settings.MAX_SESSION_BYTES_VAR}={limit})"


def _read_list(
    path: Path, limit: int, diagnostics: list[Diagnostic], wanted: set[str] | None
) -> list[ListEntry]:
    for attempt in (0, 1):
        try:
            data, _ = _read_regular_file(path, limit)
        except FileNotFoundError:
            return []
        except OSError as error:
            diagnostics.append(Diagnostic(str(path), f"cannot read: {error}"))
            return []
        if not data.strip():
            return []
        try:
            return _entries(decode_json(data), str(path), diagnostics, wanted)
        except SessionError as error:
            if attempt == 0 and error.transient:
                time.sleep(RETRY_DELAY_S)
                continue
            diagnostics.append(Diagnostic(str(path), f"{error}; the session files still count"))
            break
    return []


def read_session_list(
    root: Path, *, max_bytes: int | None = None, only: set[str] | None = None
) -> tuple[dict[str, ListEntry], list[Diagnostic]]:
    """`sessions/sessions.json` by id (first entry wins), and what is wrong with it; with
    `only`, the entries of those ids alone (a pass reading a few files: building every entry
    was a fifth of re-reading one 1 MB session in a 2,680-session store)."""
    diagnostics: list[Diagnostic] = []
    entries: dict[str, ListEntry] = {}
    limit = settings.max_session_bytes() if max_bytes is None else max_bytes
    for entry in _read_list(root / "sessions" / SESSIONS_LIST, limit, diagnostics, only):
        entries.setdefault(entry.session_id, entry)
    return entries, diagnostics


def session_refs(
    files: list[SessionFile],
    entries: dict[str, ListEntry],
    folder: Path,
    diagnostics: list[Diagnostic],
) -> list[SessionRef]:
    """Files joined with their list entries; entries without a file and files without an entry
    are reported, and neither is fatal."""
    refs: list[SessionRef] = []
    present = {file.id for file in files}
    for session_id, entry in entries.items():
        if session_id not in present:
            diagnostics.append(
                Diagnostic(str(folder / f"{session_id}.json"), "listed in sessions.json, no file")
            )
            refs.append(SessionRef(session_id, None, entry))
    for file in files:
        listed = entries.get(file.id)
        if listed is None:
            # Valid all the same: Continue's own `--resume` scan reads such files.
            diagnostics.append(Diagnostic(file.path, "not in sessions.json; read anyway"))
        refs.append(SessionRef(file.id, Path(file.path), listed, file.size, file.mtime_ns))
    return refs


def list_store(root: Path, *, max_bytes: int | None = None) -> StoreListing:
    """`sessions/sessions.json` ∪ `sessions/*.json`, deduplicated by id, with what is amiss."""
    listing = StoreListing(root=root)
    files, diagnostics = scan_session_files(root)
    listing.diagnostics.extend(diagnostics)
    if files is None:
        listing.exists = False
        return listing
    entries, list_diagnostics = read_session_list(root, max_bytes=max_bytes)
    listing.diagnostics.extend(list_diagnostics)
    listing.refs = session_refs(files, entries, root / "sessions", listing.diagnostics)
    return listing


def read_session(
    ref: SessionRef,
    *,
    redact_secrets: bool | None = None,
    max_bytes: int | None = None,
    spill: RecordSink | None = None,
) -> SessionRead:
    """Parse one session file; a half-written file is retried once, then reported. Settings
    not given are read from the environment (`DEJA_NO_REDACT`, `DEJA_MAX_SESSION_BYTES`).
    A file of `STREAM_MIN_BYTES` or more has its history streamed (memory does not grow with
    it), its records handed to `spill` when given."""
    if ref.file is None:
        return SessionRead(None, [Diagnostic(f"{ref.id}.json", "no session file")])
    if redact_secrets is None:
        redact_secrets = settings.redact_secrets()
    limit = settings.max_session_bytes() if max_bytes is None else max_bytes
    if redact_secrets:
        # Imported on first read: compiling its patterns costs a search that reads nothing.
        from .redact import redact as redactor
    else:
        redactor = _keep
    path = str(ref.file)
    last_error = ""
    for attempt in (0, 1):
        try:
            session, warnings = _parse_file(ref, path, limit, redactor, spill)
        except OSError as error:
            return SessionRead(None, [Diagnostic(path, f"cannot read: {error}")])
        except SessionError as error:
            if not error.transient:
                return SessionRead(None, [Diagnostic(path, str(error))])
            last_error = str(error)
            if attempt == 0:
                time.sleep(RETRY_DELAY_S)
            continue
        except RecursionError:
            return SessionRead(None, [Diagnostic(path, "nested too deeply to read")])
        return SessionRead(session, [Diagnostic(path, warning) for warning in warnings])
    return SessionRead(None, [Diagnostic(path, f"{last_error} (retried once; left for later)")])


def _parse_file(
    ref: SessionRef, path: str, limit: int, redactor: Redactor, spill: RecordSink | None
) -> tuple[Session, list[str]]:
    """The one decision between the two ways of reading a file: whole, or streamed."""
    assert ref.file is not None
    fd, info = _open_regular_file(ref.file, limit)
    try:
        streamed = info.st_size >= STREAM_MIN_BYTES and stream.available()
        if not streamed and info.st_size > WHOLE_MAX_BYTES:
            raise OSError(
                f"{human_size(info.st_size)} is too large to parse whole, and ijson, which "
                "would stream it, is not installed"
            )
        start = SessionStart(
            ref.id,
            ref.entry,
            path,
            info.st_size,
            info.st_mtime_ns,
            redactor,
            spill if streamed else None,
        )
        if not streamed:
            return parse_document(_read_all(fd, limit), start)
        with os.fdopen(os.dup(fd), "rb") as file:
            return stream.stream_session(file, start)
    finally:
        os.close(fd)


def _keep(text: str) -> str:
    return text


@dataclass(slots=True)
class StoreRead:
    sessions: list[Session]
    diagnostics: list[Diagnostic]


def read_store(root: Path, *, redact_secrets: bool | None = None) -> StoreRead:
    """Every readable session of the store, and a diagnostic for each problem."""
    if redact_secrets is None:
        redact_secrets = settings.redact_secrets()
    limit = settings.max_session_bytes()
    listing = list_store(root, max_bytes=limit)
    result = StoreRead([], list(listing.diagnostics))
    for ref in listing.refs:
        if ref.file is None:
            continue
        read = read_session(ref, redact_secrets=redact_secrets, max_bytes=limit)
        result.diagnostics.extend(read.diagnostics)
        if read.session is not None:
            result.sessions.append(read.session)
    return result
