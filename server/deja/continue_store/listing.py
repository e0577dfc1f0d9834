"""Which session files Continue's store holds: the whole folder listed (`scan_session_files`,
one `lstat` per file) or a few named files looked at (`stat_session_files`), each file judged
the same way. Read-only."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from .parse import is_safe_file_id
from .records import Diagnostic

SESSIONS_LIST = "sessions.json"


@dataclass(frozen=True, slots=True)
class SessionFile:
    """A session file as a directory scan sees it: enough to tell whether it changed."""

    id: str
    path: str
    size: int
    mtime_ns: int


# What the scan says when the store has no sessions folder at all (not one it cannot list).
NO_SESSIONS_FOLDER = "no Continue sessions folder here"
NOT_A_SESSION_ID = "file name is not a session id"


def scan_session_files(root: Path) -> tuple[list[SessionFile] | None, list[Diagnostic]]:
    """Every `sessions/*.json` but the list, with its size and mtime; None when there is no
    sessions folder. One `lstat` per file: this is all a pass with nothing changed costs."""
    folder = root / "sessions"
    diagnostics: list[Diagnostic] = []
    try:
        scan = list(os.scandir(folder))
    except FileNotFoundError:
        return None, [Diagnostic(str(folder), NO_SESSIONS_FOLDER)]
    except OSError as error:
        return None, [Diagnostic(str(folder), f"cannot list: {error}")]
    files: list[SessionFile] = []
    for dirent in scan:
        name = dirent.name
        if not name.endswith(".json") or name == SESSIONS_LIST:
            continue
        session_id = name[: -len(".json")]
        if not is_safe_file_id(session_id):
            diagnostics.append(Diagnostic(dirent.path, NOT_A_SESSION_ID))
            continue
        try:
            info = dirent.stat(follow_symlinks=False)
        except OSError as error:
            diagnostics.append(Diagnostic(dirent.path, f"cannot stat: {error}"))
            continue
        _judge_file(session_id, dirent.path, info, files, diagnostics)
    return files, diagnostics


def stat_session_files(
    root: Path, session_ids: set[str]
) -> tuple[list[SessionFile], list[Diagnostic], set[str]]:
    """The files of these sessions alone, each judged as `scan_session_files` judges it, and
    the ids whose file is not there: a pass told which files changed need not list the store."""
    folder = os.path.join(root, "sessions")
    diagnostics: list[Diagnostic] = []
    files: list[SessionFile] = []
    missing: set[str] = set()
    for session_id in sorted(session_ids):
        path = os.path.join(folder, session_id + ".json")
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
        _judge_file(session_id, path, info, files, diagnostics)
    return files, diagnostics, missing


def _judge_file(
    session_id: str,
    path: str,
    info: os.stat_result,
    files: list[SessionFile],
    diagnostics: list[Diagnostic],
) -> None:
    """A regular file is read; a symlink or anything else is said and skipped."""
    if stat.S_ISLNK(info.st_mode):
        diagnostics.append(Diagnostic(path, "a symlink; not followed"))
    elif not stat.S_ISREG(info.st_mode):
        diagnostics.append(Diagnostic(path, "not a regular file; skipped"))
    else:
        files.append(SessionFile(session_id, path, info.st_size, info.st_mtime_ns))
