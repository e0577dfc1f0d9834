"""What went wrong with the index file, in the user's words: damaged (a page or the header), or
not writable (a full disk, a read-only or foreign DEJA_HOME). A damaged file is noted in
`index.damaged` by whichever command meets it, so `deja index` (which reads little) says so
too until `deja index --rebuild`."""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3

from deja.errors import DejaError

TYPE_CHECKING = False  # not `typing`'s: start-up (tests/cli/test_cli_startup.py)
if TYPE_CHECKING:
    from .schema import StrPath

DAMAGE_NOTE = "index.damaged"
_DAMAGE_CODES = {sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB}
_WRITE_CODES = {
    sqlite3.SQLITE_FULL,
    sqlite3.SQLITE_READONLY,
    sqlite3.SQLITE_IOERR,
    sqlite3.SQLITE_CANTOPEN,
    sqlite3.SQLITE_PERM,
}
_WRITE_ERRNOS = {errno.ENOSPC, errno.EROFS, errno.EACCES, errno.EPERM, errno.EDQUOT}
REBUILD = (
    "`deja index --rebuild` moves it aside, keeps what it can still read (forgotten sessions, "
    "compacted turns) and rebuilds it from Continue's store"
)


class IndexDamaged(DejaError):
    """The index file is damaged: the reason and the fix, in one line."""


class IndexUnwritable(DejaError):
    """The index cannot be written (full disk, read-only home); reads still answer."""


def root_cause(error: BaseException) -> BaseException:
    """The SQLite or system error under a wrapper (`IndexCorrupt`)."""
    while isinstance(error.__cause__, (sqlite3.Error, OSError)):
        error = error.__cause__
    return error


def _code(error: BaseException) -> int | None:
    code = getattr(error, "sqlite_errorcode", None)
    return None if code is None else int(code) & 0xFF


def is_damage(error: BaseException) -> bool:
    error = root_cause(error)
    if _code(error) in _DAMAGE_CODES:
        return True
    # SQLite says so in words where the module gives no code (a malformed schema).
    text = str(error)
    return isinstance(error, sqlite3.DatabaseError) and (
        "malformed" in text or "not a database" in text
    )


def is_write_failure(error: BaseException) -> bool:
    error = root_cause(error)
    if isinstance(error, OSError):
        return error.errno in _WRITE_ERRNOS
    if not isinstance(error, sqlite3.Error):
        return False
    return _code(error) in _WRITE_CODES or "readonly" in str(error)


def why_unwritable(error: BaseException, home: StrPath) -> str:
    """The reason a write failed, as the user can act on it."""
    error = root_cause(error)
    with contextlib.suppress(OSError):
        space = os.statvfs(home)
        if space.f_bavail * space.f_frsize < 64 * 1024 or _code(error) == sqlite3.SQLITE_FULL:
            return "the disk holding it is full"
    if isinstance(error, OSError) and error.errno == errno.ENOSPC:
        return "the disk holding it is full"
    if (isinstance(error, OSError) and error.errno == errno.EROFS) or not os.access(home, os.W_OK):
        return "it is read-only"
    return error.strerror if isinstance(error, OSError) and error.strerror else str(error)


def unwritable(home: StrPath, reason: str) -> IndexUnwritable:
    return IndexUnwritable(f"cannot write the index in {home}: {reason}")


def damaged(path: StrPath, error: BaseException) -> IndexDamaged:
    """The one line a damaged index gives, noted for `deja index` (best effort)."""
    reason = str(root_cause(error))
    note_damage(path, reason)
    return IndexDamaged(f"the index {path} is damaged ({reason}); {REBUILD}")


def _note_of(path: StrPath) -> str:
    """The damage note beside the index file at `path`."""
    return os.path.join(os.path.dirname(os.fspath(path)), DAMAGE_NOTE)


def note_damage(path: StrPath, reason: str) -> None:
    with contextlib.suppress(OSError):
        text = f"{os.stat(path).st_ino}\n{reason}\n"
        with open(_note_of(path), "w", encoding="utf-8") as note:
            note.write(text)


def noted_damage(path: StrPath) -> str | None:
    """The damage a command met in the index file now at `path`, if any (a file put back in its
    place since is another file)."""
    try:
        with open(_note_of(path), encoding="utf-8") as note:
            inode, reason = note.read().split("\n")[:2]
        return reason if int(inode) == os.stat(path).st_ino else None
    except (OSError, ValueError):
        return None


def clear_damage(home: StrPath) -> None:
    with contextlib.suppress(OSError):
        os.unlink(os.path.join(home, DAMAGE_NOTE))


def check_whole(db: sqlite3.Connection) -> str | None:
    """SQLite's quick check over the whole file: None when it is sound, else the first fault.
    Reads every page: for `doctor` and `--rebuild`, not for every command."""
    try:
        row = db.execute("PRAGMA quick_check(1)").fetchone()
    except sqlite3.DatabaseError as error:
        if is_damage(error):
            return str(error)
        raise
    if row is None or row[0] == "ok":
        return None
    # One line: SQLite heads its report with "*** in database main ***".
    return " ".join(line for line in str(row[0]).splitlines() if not line.startswith("***"))


def check_roots(db: sqlite3.Connection) -> str | None:
    """The first row of every table (its root page and the path to its first leaf): a damaged
    root, which every read of that table meets, found in well under a millisecond, where
    `check_whole` reads the file (about 1.5 s a GB)."""
    try:
        tables = "SELECT name FROM sqlite_master WHERE type = 'table' AND rootpage > 0"
        for (name,) in db.execute(tables).fetchall():
            # `*`: a narrower column list may be read from an index instead of the table.
            db.execute(f'SELECT * FROM "{name}" LIMIT 1').fetchall()
    except sqlite3.DatabaseError as error:
        if is_damage(error):
            return str(error)
        raise
    return None
