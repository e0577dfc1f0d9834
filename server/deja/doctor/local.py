"""The checks of this machine's own parts: Continue's store (where Deja looked), its sessions
(readable or not, and why), the index, and the exclude list."""

from __future__ import annotations

import os
from pathlib import Path

from deja import settings
from deja.continue_store import Diagnostic
from deja.continue_store.listing import NO_SESSIONS_FOLDER, scan_session_files
from deja.errors import DejaError
from deja.index import PassReport
from deja.index.exclude import load_exclude_list
from deja.index.faults import IndexDamaged, IndexUnwritable
from deja.quantities import count, human_size
from deja.query import History
from deja.query.history import OPEN_ERRORS
from deja.query.stats import Meaning
from deja.wire import iso

from .checks import Check, failed, passed

REBUILD_FIX = (
    "run `deja index --rebuild`: it moves the file aside, keeps what it can still read "
    "(forgotten sessions, compacted turns) and rebuilds the rest from Continue's store"
)


def where_looked() -> list[str]:
    """Each place the store may be named, in the order Deja takes them."""
    looked = [
        f"{name}={os.environ[name]}" if os.environ.get(name) else f"{name} unset"
        for name in ("DEJA_CONTINUE_ROOT", "CONTINUE_GLOBAL_DIR")
    ]
    return [*looked, f"default {Path('~/.continue').expanduser()}"]


def store_check() -> tuple[Check, Path]:
    root = settings.continue_root()
    looked = where_looked()
    files, notes = scan_session_files(root)
    folder = root / "sessions"
    if files is None:
        reason = notes[0].message if notes else "not a folder"
        missing = reason == NO_SESSIONS_FOLDER
        fix = (
            f"start one Continue session (it creates {folder}), or set DEJA_CONTINUE_ROOT to the "
            "folder that holds Continue's sessions/"
            if missing
            else f"{folder} must be a folder you can read (Deja only reads it)"
        )
        detail = f"{folder}: {'no such folder' if missing else reason} (looked at: "
        return failed("store", detail + "; ".join(looked) + ")", fix, looked=looked), root
    detail = f"{root}: {len(files)} session file{'s' * (len(files) != 1)}"
    return passed("store", detail, root=str(root), looked=looked), root


def unreadable_fix(reason: str) -> str:
    """What to do about one session file Deja cannot read."""
    if settings.MAX_SESSION_BYTES_VAR in reason:
        return f"raise {settings.MAX_SESSION_BYTES_VAR} (bytes) above the file's size"
    if "cannot read" in reason or "cannot stat" in reason:
        return "make the file readable by you"
    if "symlink" in reason or "regular file" in reason or "not a session id" in reason:
        return "Continue writes plain files named <session id>.json; move this one out of sessions/"
    return "the file is damaged: Deja reads it again when Continue next writes it"


def sessions_check(report: PassReport, root: Path) -> Check:
    if report.refused is not None and report.refused.problem == "other":
        fix = (
            f"`deja index --switch-store` makes the index follow {root}; to keep each store's "
            "history apart, give each its own DEJA_HOME; or unset the variable that names it"
        )
        return failed("sessions", report.refused.message, fix)
    if report.refused is not None:
        fix = (
            "if the sessions were removed on purpose, `deja index --accept-empty` applies that; "
            f"else point DEJA_CONTINUE_ROOT at the right folder (now {root})"
        )
        return failed("sessions", report.refused.message, fix)
    bad = [_unreadable(diagnostic) for diagnostic in report.errors]
    readable = report.sessions - len(bad)
    if not bad:
        return passed("sessions", f"{readable} readable, none unreadable", unreadable=[])
    lines = "; ".join(f"{item['path']}: {item['reason']}" for item in bad)
    fixes = sorted({item["fix"] for item in bad})
    return failed(
        "sessions",
        f"{readable} readable, {len(bad)} unreadable: {lines}",
        "; ".join(fixes),
        unreadable=bad,
    )


def _unreadable(diagnostic: Diagnostic) -> dict[str, str]:
    return {
        "path": diagnostic.path,
        "reason": diagnostic.message,
        "fix": unreadable_fix(diagnostic.message),
    }


def index_checks(root: Path, store_found: bool) -> list[Check]:
    """The index opened and brought up to date (the pass every command runs), then the sessions
    it read (when there is a store: else the store's check says it all), what it holds and the
    exclude list it applied."""
    try:
        home = settings.deja_home()
    except settings.SettingError as error:
        return [failed("index", error.message, "set DEJA_HOME to an absolute path, or unset it")]
    try:
        history = History(home, root)
    except OPEN_ERRORS as error:
        return [
            failed(
                "index",
                f"cannot open the index in {home}: {error}",
                f"make {home} a folder you can write (or set DEJA_HOME to one)",
            )
        ]
    damage = damage_check(history)
    if damage is not None:
        history.close()
        return [damage]
    try:
        report = history.refresh()
        stats = history.stats()
        health = history.health()
        recovery = history.recovery
    except IndexDamaged as error:
        return [failed("index", error.message, REBUILD_FIX)]
    except IndexUnwritable as error:
        return [failed("index", error.message, writable_fix(history.home))]
    except DejaError as error:  # a setting the pass reads (DEJA_MAX_SESSION_BYTES, …)
        return [failed("index", error.message, "correct the variable it names, or unset it")]
    finally:
        history.close()
    detail = (
        f"{stats.index_path}: {human_size(stats.index_bytes)}, schema {health.schema}, "
        f"{count(stats.sessions, 'session')}, {count(stats.records, 'record')},"
        f" last change indexed {iso(stats.last_pass) or 'never'}"
    )
    if recovery is not None:
        detail += f" (the file was unreadable and was rebuilt: {recovery.message})"
    index = passed(
        "index",
        detail,
        path=stats.index_path,
        bytes=stats.index_bytes,
        schema=health.schema,
        last_pass=iso(stats.last_pass),
    )
    sessions = [sessions_check(report, root)] if store_found else []
    return [*sessions, index, meaning_check(stats.meaning), exclude_check(health.excluded)]


def meaning_check(meaning: Meaning) -> Check:
    """How far search by meaning's deep model has read: never a problem (without the extra,
    or before a door has read everything, search by words and the static model answer)."""
    return passed(
        "meaning",
        meaning.summary,
        state=meaning.state,
        read=meaning.read,
        records=meaning.records,
    )


def damage_check(history: History) -> Check | None:
    """SQLite's check of every page of the index (a damaged page lies where a command may not
    read for months), and whether it can be written."""
    fault = history.health(check_pages=True).fault
    if fault is not None:
        return failed("index", f"{history.index_path} is damaged: {fault}", REBUILD_FIX)
    if history.read_only is not None:
        return failed(
            "index",
            f"cannot write the index in {history.home}: {history.read_only} (queries still "
            "answer from it)",
            writable_fix(history.home),
        )
    return None


def writable_fix(home: Path) -> str:
    return f"free space on the disk holding {home}, or make it writable by you"


def exclude_check(excluded: int) -> Check:
    path = settings.exclude_file()
    if not path.exists():
        return passed("exclude", f"no exclude list at {path}: every workspace is indexed")
    try:
        path.read_bytes()
    except OSError as error:
        return failed(
            "exclude",
            f"cannot read {path} ({error.strerror}): its workspaces are not kept out",
            f"make {path} readable by you",
        )
    patterns = list(load_exclude_list(path).patterns)
    listed = ", ".join(patterns) if patterns else "no patterns"
    detail = f"{path}: {listed}; {excluded} session{'s' * (excluded != 1)} kept out"
    return passed("exclude", detail, path=str(path), patterns=patterns)
