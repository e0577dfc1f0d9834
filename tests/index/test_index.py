"""The durable index (issue 3): incremental passes, durability across compaction, forget."""

from __future__ import annotations

import os
import random
import shutil
import sqlite3
import stat
import subprocess
import sys
import time
from pathlib import Path

from deja.index import SCHEMA_VERSION
from deja.query import History, Scope, SearchQuery
from tests.support.storebuilder import assistant, call, session_doc, snapshot, user, write_session


def texts(history: History, query: str) -> list[str]:
    return [hit.snippet for hit in history.search(SearchQuery(query, limit=50)).hits]


def test_index_file_is_private_and_wal(history: History, store: Path) -> None:
    write_session(store, session_doc("s1", [user("hello")]))
    history.refresh()
    assert stat.S_IMODE(history.home.stat().st_mode) == 0o700
    assert stat.S_IMODE(history._index.path.stat().st_mode) == 0o600
    assert history._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert history._db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()[0] == str(
        SCHEMA_VERSION
    )


def test_pass_rereads_only_changed_sessions(history: History, store: Path) -> None:
    hour_ago = time.time() - 3600
    write_session(store, session_doc("s1", [user("alpha")]), mtime=hour_ago)
    write_session(store, session_doc("s2", [user("beta")]), mtime=hour_ago)
    first = history.refresh()
    assert (first.read, first.changed) == (2, 2)
    second = history.refresh()
    assert (second.read, second.changed) == (0, 0)
    path = store / "sessions/s2.json"
    path.write_text(path.read_text().replace("beta", "gamma"))
    os.utime(path, (hour_ago + 1, hour_ago + 1))
    third = history.refresh()
    assert (third.read, third.changed_ids) == (1, ["s2"])
    assert texts(history, "gamma") and not texts(history, "beta")


def compaction_before_after(store: Path) -> tuple[Path, str]:
    before = [
        user("install the linter"),
        assistant("", [call("Bash", {"command": "pip install ruff"}, "Successfully installed")]),
        user("now fix the flaky websocket reconnect"),
        assistant("Reconnect now uses exponential backoff."),
    ]
    path = write_session(store, session_doc("c1", before))
    return path, "Summary: installed ruff, fixed websocket reconnect with backoff."


def compact(path: Path, summary: str, *, later: list[dict[str, object]] | None = None) -> None:
    """What `cn` does: the file rewritten to one summary item, later turns appended after it."""
    doc = session_doc(
        "c1",
        [
            {
                "message": {"role": "assistant", "content": summary},
                "contextItems": [],
                "conversationSummary": summary,
            },
            *(later or []),
        ],
    )
    import json

    path.write_text(json.dumps(doc, indent=2))
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 5_000_000))


def test_compaction_keeps_turns_gone_from_disk_and_adds_new_ones_in_order(
    history: History, store: Path
) -> None:
    path, summary = compaction_before_after(store)
    history.refresh()
    compact(path, summary, later=[user("continue"), assistant("Picked up where we left off")])
    report = history.refresh()
    assert report.kept == 4
    view = history.show("c1")
    turns = [(r.turn, r.role, r.compacted) for r in view.records]
    assert turns == [
        (0, "user", True),
        (1, "command", True),
        (2, "user", True),
        (3, "assistant", True),
        (4, "summary", False),
        (5, "user", False),
        (6, "assistant", False),
    ]
    times = [r.time for r in view.records]
    assert times == sorted(times)
    hit = history.search(SearchQuery("websocket reconnect", limit=5)).hits[0]
    assert hit.compacted and hit.session_id == "c1"
    assert view.session.lost_context and view.session.kept_turns == 4


def test_compacted_turns_survive_rebuild_and_second_compaction(
    history: History, store: Path
) -> None:
    path, summary = compaction_before_after(store)
    history.refresh()
    compact(path, summary, later=[user("add retries to the uploader")])
    history.refresh()
    kept = history.show("c1").session.kept_turns
    rebuilt = history.refresh(rebuild=True)
    assert kept > 0 and rebuilt.read == 1 and rebuilt.kept == kept  # what it kept, as stats does
    assert texts(history, "websocket") and texts(history, "uploader")
    compact(path, "Second summary of everything")
    history.refresh()
    roles = [(r.turn, r.compacted) for r in history.show("c1").records]
    assert len(roles) == 7 and all(c for _, c in roles[:6]) and not roles[6][1]
    assert texts(history, "websocket") and texts(history, "uploader")


def test_appending_turns_is_not_compaction(history: History, store: Path) -> None:
    path = write_session(store, session_doc("a1", [user("first question")]))
    history.refresh()
    import json

    path.write_text(json.dumps(session_doc("a1", [user("first question"), assistant("answer")])))
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 1_000_000))
    report = history.refresh()
    assert report.kept == 0
    assert [(r.turn, r.compacted) for r in history.show("a1").records] == [(0, False), (1, False)]


def test_deleted_file_keeps_records_marked_deleted(history: History, store: Path) -> None:
    path = write_session(store, session_doc("d1", [user("remember the migration plan")]))
    history.refresh()
    path.unlink()
    report = history.refresh()
    assert report.deleted == 1
    hit = history.search(SearchQuery("migration plan")).hits[0]
    assert hit.deleted
    assert history.sessions(Scope())[0].deleted


def test_forget_session_leaves_tombstone_through_passes_and_rebuild(
    history: History, store: Path
) -> None:
    write_session(store, session_doc("f1", [user("private thing")]))
    write_session(store, session_doc("f2", [user("public thing")]))
    history.refresh()
    assert history.forget_session("f1")
    assert texts(history, "private") == []
    history.refresh()
    history.refresh(rebuild=True)
    assert texts(history, "private") == [] and texts(history, "public")


def test_forget_workspace_and_its_future_sessions(history: History, store: Path) -> None:
    write_session(store, session_doc("w1", [user("client work")], workspace="/work/client"))
    write_session(store, session_doc("w2", [user("own work")], workspace="/work/mine"))
    history.refresh()
    assert history.forget_workspace("/work/client") == 1
    write_session(
        store, session_doc("w3", [user("more client work")], workspace="file:///work/client/sub")
    )
    history.refresh(rebuild=True)
    assert texts(history, "client") == [] and texts(history, "own")


def test_schema_upgrade_keeps_what_only_the_index_holds(tmp_path: Path, store: Path) -> None:
    home = tmp_path / "home"
    history = History(home=home, root=store)
    path, summary = compaction_before_after(store)
    history.refresh()
    compact(path, summary)
    history.refresh()
    write_session(store, session_doc("gone", [user("tombstoned words")]))
    history.refresh()
    history.forget_session("gone")
    history._db.execute("UPDATE meta SET value = '0' WHERE key = 'schema'")
    history.close()
    upgraded = History(home=home, root=store)
    try:
        assert upgraded._db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()[
            0
        ] == str(SCHEMA_VERSION)
        assert texts(upgraded, "websocket")  # compacted: only the old index had it
        upgraded.refresh()
        assert texts(upgraded, "websocket") and texts(upgraded, "Summary")
        assert texts(upgraded, "tombstoned") == []
    finally:
        upgraded.close()


def test_corrupt_index_is_rebuilt_with_a_clear_statement(tmp_path: Path, store: Path) -> None:
    home = tmp_path / "home"
    write_session(store, session_doc("s1", [user("survives corruption")]))
    History(home=home, root=store).close()
    (home / "index.sqlite3").write_bytes(b"this is not a database" * 100)
    history = History(home=home, root=store)
    try:
        assert history._index.recovery is not None
        assert "nothing could be read from it" in history._index.recovery.lost
        history.refresh()
        assert texts(history, "corruption")
    finally:
        history.close()


def test_index_never_touches_the_store(history: History, store: Path) -> None:
    write_session(store, session_doc("s1", [user("a"), assistant("b")]))
    before = snapshot(store)
    history.refresh()
    history.refresh(rebuild=True)
    history.search(SearchQuery("a b"))
    assert snapshot(store) == before


# A cold pass that says how many sessions it has read: the test cuts it after a given count,
# where it is (never after a sleep, which a slow or busy machine would stretch).
KILL_SCRIPT = """
import sys
from pathlib import Path
from deja.query import History
def read(done, total):
    print(done, flush=True)
History(home=Path(sys.argv[1]), root=Path(sys.argv[2])).refresh(progress=read)
"""


def test_kill_9_mid_pass_leaves_a_consistent_index(tmp_path: Path, store: Path) -> None:
    for index in range(300):
        history_items = [user(f"session {index} question {n} about topic{n}") for n in range(40)]
        write_session(store, session_doc(f"k{index:04d}", history_items))
    home = tmp_path / "home"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    # 20 cuts spread over the first 80 % of the pass, in random order.
    cuts = [1 + 240 * n // 20 for n in range(20)]
    random.Random(20).shuffle(cuts)
    killed = 0
    for cut in cuts:
        shutil.rmtree(home, ignore_errors=True)
        with subprocess.Popen(
            [sys.executable, "-c", KILL_SCRIPT, str(home), str(store)],
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        ) as process:
            assert process.stdout is not None
            for line in process.stdout:
                if int(line) >= cut:
                    break
            finished = process.poll() is not None
            process.kill()
        if finished:
            continue  # finished before the cut: nothing to cut
        db = sqlite3.connect(home / "index.sqlite3")
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        # Every indexed session is whole: 40 records each, never a part of one.
        counts = {n for (n,) in db.execute("SELECT count(*) FROM records GROUP BY session_id")}
        assert counts <= {40}
        db.close()
        killed += 1
        history = History(home=home, root=store)
        try:
            history.refresh()
            assert history.stats().sessions == 300 and history.stats().records == 300 * 40
        finally:
            history.close()
    assert killed >= 15


def test_exclude_list_keeps_workspaces_out_and_removes_indexed_ones(
    tmp_path: Path, store: Path
) -> None:
    exclude = tmp_path / "exclude"
    write_session(store, session_doc("e1", [user("client secret plan")], workspace="/work/client"))
    write_session(store, session_doc("e2", [user("own plan")], workspace="/work/mine"))
    history = History(home=tmp_path / "home", root=store, exclude_path=exclude)
    try:
        history.refresh()
        assert texts(history, "client") and texts(history, "own")
        exclude.write_text("# never index client work\n/work/cli*\n")
        assert history.refresh().changed == 1  # the session it removed
        assert texts(history, "client") == [] and texts(history, "own")
        write_session(
            store,
            session_doc("e3", [user("more client notes")], workspace="file:///work/client/sub"),
        )
        assert history.refresh().changed == 0
        assert texts(history, "client") == []
        exclude.write_text("")
        history.refresh()
        assert len(texts(history, "client")) == 2
    finally:
        history.close()


def test_file_rewritten_in_the_same_mtime_tick_is_read_again(history: History, store: Path) -> None:
    path = write_session(store, session_doc("r1", [user("version one")]))
    mtime_ns = path.stat().st_mtime_ns
    history.refresh()
    # Same size, same mtime: only the "written just now" rule catches this second write.
    path.write_text(path.read_text().replace("version one", "version two"))
    os.utime(path, ns=(mtime_ns, mtime_ns))
    history.refresh()
    assert texts(history, "two") and not texts(history, "one")


def test_rewrite_with_nothing_new_is_not_a_change(history: History, store: Path) -> None:
    path = write_session(store, session_doc("n1", [user("same words")]), mtime=time.time() - 60)
    history.refresh()
    os.utime(path, (time.time() - 30, time.time() - 30))
    report = history.refresh()
    assert (report.read, report.changed) == (1, 0)


def test_broken_file_is_reported_each_pass_but_read_again_only_when_it_changes(
    history: History, store: Path
) -> None:
    path = write_session(store, b'{"history": [', "b1", listed=False, mtime=time.time() - 60)
    first = history.refresh()
    assert (first.read, len(first.errors)) == (1, 1)
    second = history.refresh()
    assert (second.read, len(second.errors)) == (0, 1)
    assert "invalid JSON" in second.errors[0].message
    import json

    path.write_text(json.dumps(session_doc("b1", [user("repaired at last")])))
    third = history.refresh()
    assert (third.read, third.errors) == (1, [])
    assert texts(history, "repaired")
