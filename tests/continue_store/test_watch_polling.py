"""The watcher without file notifications: an idle poll lists the store and judges no file, and
what it hands over is what the index reads (no symlink, no list, no odd name)."""

from __future__ import annotations

import os
import time
from pathlib import Path

from deja.continue_store.watch import TICK_S, StoreWatcher
from tests.support.storebuilder import session_doc, user, write_session


def test_an_idle_poll_judges_no_file(tmp_path: Path) -> None:
    root = tmp_path / "continue"
    for number in range(40):
        write_session(root, session_doc(f"poll-{number}", [user(f"session {number}")]))
    watcher = StoreWatcher(root)  # never started: polling
    watcher.prime()
    for _ in range(3):
        looked_at, weighed = watcher.looked_at, watcher.weighed
        assert watcher.poll() == set()
        assert watcher.looked_at == looked_at + 40  # polling stats every file: its floor
        assert watcher.weighed == weighed  # but judges none of them
    write_session(root, session_doc("poll-7", [user("session 7, rewritten")]))
    (root / "sessions" / "poll-9.json").unlink()
    weighed = watcher.weighed
    assert watcher.poll() == set()  # handed over once they hold still for a poll
    assert watcher.poll() == {"poll-7", "poll-9"}
    assert watcher.weighed == weighed + 4  # each twice, no other file


def test_a_poll_hands_over_only_files_the_index_reads(tmp_path: Path) -> None:
    root = tmp_path / "continue"
    write_session(root, session_doc("kept", [user("a session")]))
    watcher = StoreWatcher(root)
    watcher.prime()
    sessions = root / "sessions"
    outside = tmp_path / "elsewhere.json"
    outside.write_text("{}")
    os.symlink(outside, sessions / "linked.json")
    (sessions / "a folder.json").mkdir()
    (sessions / "..odd.json").write_text("{}")
    (sessions / "notes.txt").write_text("not a session")
    (sessions / "sessions.json").write_text("[]")
    write_session(root, session_doc("added", [user("a new session")]))
    assert watcher.poll() == set()
    assert watcher.poll() == {"added"}
    assert watcher.poll() == set() and watcher.next_wait() == 0.5  # nothing more: backing off


def test_a_file_written_a_tick_ago_is_handed_over_by_the_poll_that_finds_it(
    tmp_path: Path,
) -> None:
    """Polling comes back from its back-off to a file that has held still since: no tick more."""
    root = tmp_path / "continue"
    write_session(root, session_doc("kept", [user("a session")]))
    watcher = StoreWatcher(root)
    watcher.prime()
    written = time.time() - 5 * TICK_S
    write_session(root, session_doc("kept", [user("a session, one turn more")]), mtime=written)
    # Still being written: an mtime that never gets a tick old while the test runs.
    ahead = time.time() + 3600
    write_session(root, session_doc("fresh", [user("still being written")]), mtime=ahead)
    assert watcher.poll() == {"kept"}
    assert watcher.poll() == {"fresh"}  # once it held still for a poll
