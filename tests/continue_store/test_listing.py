"""One rule for which files of `sessions/` are sessions and how they are stat'ed: the watcher's
poll, the store stamp's listing and `scan_session_files` all build on `listing.list_sessions`,
so for every kind of entry they agree (counted, left out, or said)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from deja.continue_store.listing import NOT_A_SESSION_ID, scan_session_files
from deja.continue_store.watch import StoreWatcher, session_id_of
from deja.index import store_stamp
from tests.support.storebuilder import session_doc, user, write_session

PAST = time.time() - 3600


def regular(name: str) -> Callable[[Path], None]:
    return lambda folder: (folder / name).write_text("{}")


def symlink(folder: Path) -> None:
    target = folder.parent / "elsewhere.json"
    target.write_text("{}")
    os.symlink(target, folder / "linked.json")


def directory(folder: Path) -> None:
    (folder / "folder.json").mkdir()


def fifo(folder: Path) -> None:
    os.mkfifo(folder / "pipe.json")


# What is added beside one sound session, and what each listing makes of it: the ids the
# watcher's poll sees, whether the stamp can vouch for the folder, what `scan_session_files`
# says (its message, or None).
CASES: list[tuple[str, Callable[[Path], None], set[str], bool, str | None]] = [
    ("the list itself", regular("sessions.json"), set(), True, None),
    ("another suffix", regular("notes.txt"), set(), True, None),
    ("a capital suffix", regular("upper.JSON"), set(), True, None),
    ("a temporary file", regular("s.json.tmp"), set(), True, None),
    ("a name that is no session id", regular("..odd.json"), {"..odd"}, True, NOT_A_SESSION_ID),
    ("a second session", regular("other.json"), {"other"}, True, None),
    ("a symlink", symlink, set(), False, "a symlink; not followed"),
    ("a folder", directory, set(), False, "not a regular file; skipped"),
]
if hasattr(os, "mkfifo"):
    CASES.append(("a FIFO", fifo, set(), False, "not a regular file; skipped"))


@pytest.mark.parametrize(
    ("added", "expect_ids", "vouched", "said"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_the_watcher_the_stamp_and_the_scan_list_the_same_files(
    tmp_path: Path,
    added: Callable[[Path], None],
    expect_ids: set[str],
    vouched: bool,
    said: str | None,
) -> None:
    root = tmp_path / "continue"
    write_session(root, session_doc("kept", [user("a session")]), mtime=PAST)
    added(root / "sessions")
    ids = {"kept"} | expect_ids

    polled = StoreWatcher(root).scan()
    assert set(polled) == ids
    stamp = store_stamp.scan(root, time.time_ns())
    if vouched:
        assert stamp is not None
        assert {field.rsplit(" ", 2)[0] for field in stamp.fields} == ids
        assert sorted(polled.values()) == sorted(stamp.fields)  # each file seen the same
        stat = {sid: os.lstat(root / "sessions" / f"{sid}.json") for sid in ids}
        assert sorted(stamp.fields) == sorted(
            f"{sid} {info.st_size} {info.st_mtime_ns}" for sid, info in stat.items()
        )
    else:
        assert stamp is None  # an odd entry: a whole pass lists again, to say it
    files, notes = scan_session_files(root)
    assert files is not None
    assert {f.id for f in files} == ids - {"..odd"}
    assert [n.message for n in notes] == ([] if said is None else [said])


def test_a_notified_path_names_a_session_as_the_listing_does() -> None:
    assert session_id_of("/s/sessions/kept.json") == "kept"
    assert [session_id_of(f"/s/sessions/{n}") for n in ("sessions.json", "a.txt", "b.JSON")] == [
        None,
        None,
        None,
    ]
