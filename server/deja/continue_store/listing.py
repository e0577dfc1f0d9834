"""Which session files Continue's store holds. One listing, `list_sessions`: the folder's names,
those that name a session file (`is_session_name`), one `lstat` each (a symlink is not followed),
a regular file kept with its size and mtime and anything else set aside with why. Everything
that lists the store builds on it: the store stamp's listing (`index/store_stamp.py`, which
turns away a listing with anything set aside), the watcher's poll (`watch.py`, which leaves it
out) and `scan_session_files` (which says it). `stat_session_files` looks at a few named files,
each judged the same way. Read-only.

Light to import (no `pathlib`, `re` nor `dataclasses`): a quiet `deja index` and a search over
an unchanged store list the folder through this module."""

from __future__ import annotations

import os
from stat import S_ISLNK, S_ISREG

from deja.plain_record import Plain

TYPE_CHECKING = False  # not `typing`'s: start-up (tests/cli/test_cli_startup.py)
if TYPE_CHECKING:
    from pathlib import Path

    from .records import Diagnostic

SESSIONS_LIST = "sessions.json"
_SUFFIX = ".json"
# Stat each file by the folder's descriptor where the system can (one name looked up, not every
# component of the path, a measurable share of the listing on Linux); Windows lists by path,
# its stats free with the names.
_BY_FD = os.listdir in os.supports_fd and os.stat in os.supports_dir_fd
_FOLDER_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)

# What the scan says when the store has no sessions folder at all (not one it cannot list).
NO_SESSIONS_FOLDER = "no Continue sessions folder here"
NOT_A_SESSION_ID = "file name is not a session id"


class SessionFile(Plain):
    """A session file as a directory scan sees it: enough to tell whether it changed. (Not a
    dataclass nor a named tuple: either costs a quiet `deja index` more to build than its
    listing.)"""

    __slots__ = ("id", "mtime_ns", "path", "size")

    def __init__(self, id: str, path: str, size: int, mtime_ns: int) -> None:
        self.id, self.path, self.size, self.mtime_ns = id, path, size, mtime_ns


def session_names(names: list[str]) -> list[str]:
    """The names in `sessions/` that stand for a session's file (its id: the name less
    `.json`); whether that id is one the reader accepts is `parse.is_safe_file_id`'s to say."""
    return [name for name in names if name.endswith(_SUFFIX) and name != SESSIONS_LIST]


def not_read(mode: int) -> str | None:
    """Why a session file of this `lstat` mode is not read; None for a regular file."""
    return None if S_ISREG(mode) else _why_not_read(mode)


def _why_not_read(mode: int) -> str:
    return "a symlink; not followed" if S_ISLNK(mode) else "not a regular file; skipped"


def entry(session_id: str, size: int, mtime_ns: int) -> str:
    """A listed file as `id size mtime_ns`: the store stamp's form (a session id holds no `/`),
    what the plan judges and what the watcher compares; the id is all but the last two
    fields."""
    return f"{session_id} {size} {mtime_ns}"


class Listed:
    """One listing of `sessions/`: each session file's `entry` in the folder's order, the
    positions of those written after the instant asked about (`recent`), and the session names
    not read, with why (a symlink, not a regular file, gone or unreadable between the listing
    and its stat). (No dataclass: see the module's note.)"""

    __slots__ = ("entries", "recent", "set_aside")

    def __init__(self) -> None:
        self.entries: list[str] = []
        self.recent: list[int] = []
        self.set_aside: list[tuple[str, str]] = []


def list_sessions(folder: str | Path, recent_after: int = 1 << 63) -> Listed:
    """The session files of `folder` (`sessions/`), in one tight loop: polling runs it every
    few seconds and a search over an unchanged store runs nothing else (so each file's entry is
    made here, in the form its callers keep). Raises `OSError` when the folder cannot be listed
    (`FileNotFoundError`: there is none)."""
    if not _BY_FD:
        return _list_entries(folder, recent_after)
    fd = os.open(folder, _FOLDER_FLAGS)
    try:
        return _list_at(fd, recent_after)
    finally:
        os.close(fd)


def _list_at(fd: int, recent_after: int) -> Listed:
    """Names, then one `lstat` each relative to the folder (no `DirEntry` objects to build)."""
    listed = Listed()
    entries, recent, set_aside, lstat = listed.entries, listed.recent, listed.set_aside, os.lstat
    for name in session_names(os.listdir(fd)):
        try:
            info = lstat(name, dir_fd=fd)
        except OSError as error:
            set_aside.append((name, f"cannot stat: {error}"))
            continue
        if not S_ISREG(info.st_mode):  # `not_read`, unrolled: this loop is the hot one
            set_aside.append((name, _why_not_read(info.st_mode)))
            continue
        mtime_ns = info.st_mtime_ns
        if mtime_ns > recent_after:
            recent.append(len(entries))
        entries.append(f"{name[:-5]} {info.st_size} {mtime_ns}")  # `entry`, unrolled
    return listed


def _list_entries(folder: str | Path, recent_after: int) -> Listed:
    """Where stats cannot be taken by the folder's descriptor (Windows, whose `scandir` gives
    them with the names)."""
    listed = Listed()
    with os.scandir(folder) as listing:
        found = {dirent.name: dirent for dirent in listing}
    for name in session_names(list(found)):
        try:
            info = found[name].stat(follow_symlinks=False)
        except OSError as error:
            listed.set_aside.append((name, f"cannot stat: {error}"))
            continue
        why = not_read(info.st_mode)
        if why is not None:
            listed.set_aside.append((name, why))
            continue
        if info.st_mtime_ns > recent_after:
            listed.recent.append(len(listed.entries))
        listed.entries.append(entry(name[:-5], info.st_size, info.st_mtime_ns))
    return listed


def scan_session_files(root: Path) -> tuple[list[SessionFile] | None, list[Diagnostic]]:
    """Every session file with its size and mtime, and what is odd in the folder said; None
    when there is no sessions folder."""
    from .parse import is_safe_file_id
    from .records import Diagnostic

    folder = str(root / "sessions")
    try:
        listed = list_sessions(folder)
    except FileNotFoundError:
        return None, [Diagnostic(folder, NO_SESSIONS_FOLDER)]
    except OSError as error:
        return None, [Diagnostic(folder, f"cannot list: {error}")]
    files: list[SessionFile] = []
    diagnostics: list[Diagnostic] = []
    for listed_entry in listed.entries:
        session_id, size, mtime_ns = listed_entry.rsplit(" ", 2)
        path = os.path.join(folder, session_id + _SUFFIX)
        if is_safe_file_id(session_id):
            files.append(SessionFile(session_id, path, int(size), int(mtime_ns)))
        else:
            diagnostics.append(Diagnostic(path, NOT_A_SESSION_ID))
    for name, why in listed.set_aside:
        why = why if is_safe_file_id(name[: -len(_SUFFIX)]) else NOT_A_SESSION_ID
        diagnostics.append(Diagnostic(os.path.join(folder, name), why))
    return files, diagnostics


def stat_session_files(
    root: Path, session_ids: set[str]
) -> tuple[list[SessionFile], list[Diagnostic], set[str]]:
    """The files of these sessions alone, each judged as `list_sessions` judges it, and the ids
    whose file is not there: a pass told which files changed need not list the store."""
    from .parse import is_safe_file_id
    from .records import Diagnostic

    folder = os.path.join(root, "sessions")
    diagnostics: list[Diagnostic] = []
    files: list[SessionFile] = []
    missing: set[str] = set()
    for session_id in sorted(session_ids):
        path = os.path.join(folder, session_id + _SUFFIX)
        if not is_safe_file_id(session_id):
            diagnostics.append(Diagnostic(path, NOT_A_SESSION_ID))
            continue
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            missing.add(session_id)
            continue
        except OSError as error:
            diagnostics.append(Diagnostic(path, f"cannot stat: {error}"))
            continue
        why = not_read(info.st_mode)
        if why is None:
            files.append(SessionFile(session_id, path, info.st_size, info.st_mtime_ns))
        else:
            diagnostics.append(Diagnostic(path, why))
    return files, diagnostics, missing
