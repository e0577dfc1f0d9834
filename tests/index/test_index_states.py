"""States a real machine reaches: another Continue store, a damaged index file (a page, the
header), a full disk and a read-only DEJA_HOME. Every command answers in one line or from the
index as it is, never with a traceback; nothing only the index held is lost silently."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from deja.query import History, SearchQuery
from tests.support.cli_run import deja_env, run_deja
from tests.support.storebuilder import assistant, session_doc, user, write_session

COMMANDS = [
    ("search", "websocket"),
    ("show", "alpha000"),
    ("sessions", "--all"),
    ("blame", "src/app.py"),
    ("restore", "--all"),
    ("fix", "oops"),
    ("files", "websocket", "--all"),
    ("forget", "--list"),
    ("stats",),
    ("doctor",),
    ("index",),
]


def compacted(store: Path) -> None:
    """Session alpha000 rewritten the way `cn` compacts it: its websocket turns then live only
    in the index."""
    summary = "Summary: the reconnect work"
    doc = session_doc(
        "alpha000",
        [
            {
                "message": {"role": "assistant", "content": summary},
                "contextItems": [],
                "conversationSummary": summary,
            },
            user("carry on"),
        ],
    )
    path = store / "sessions" / "alpha000.json"
    path.write_text(json.dumps(doc, indent=2))
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000))


def real_index(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    """A store, an index of it made by `deja index`: one session compacted (its first turns
    only in the index), one forgotten, a few dozen others to fill pages."""
    store, home = tmp_path / "continue", tmp_path / "home"
    write_session(
        store,
        session_doc(
            "alpha000",
            [user("fix the flaky websocket reconnect"), assistant("Backoff added to reconnect.")],
        ),
    )
    write_session(store, session_doc("secret00", [user("the private plan nobody may see")]))
    for n in range(40):
        words = " ".join(f"filler{n}word{i}" for i in range(60))
        write_session(store, session_doc(f"pad{n:05d}", [user(words), assistant(words)]))
    env = deja_env(store, home)
    assert run_deja(env, "index").returncode == 0
    compacted(store)
    assert run_deja(env, "index").returncode == 0
    forget = run_deja(env, "forget", "--session", "secret00")
    assert forget.returncode == 0, forget.stderr
    return store, home, env


def one_line(result: subprocess.CompletedProcess[str]) -> str:
    """stderr, asserted to be at most one line and no traceback."""
    assert "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) <= 1, result.stderr
    return lines[0] if lines else ""


def damage_page(db_path: Path, table: str) -> None:
    """Garbage over the root page of `table` (the file otherwise intact)."""
    with sqlite3.connect(db_path) as db:
        page = db.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()
        size = db.execute("PRAGMA page_size").fetchone()[0]
    db.close()
    with open(db_path, "r+b") as f:
        f.seek((page[0] - 1) * size)
        f.write(bytes((n * 37 + 11) % 256 for n in range(size)))


# The index belongs to one store ------------------------------------------------------------


def test_a_pass_against_another_store_is_not_applied(tmp_path: Path) -> None:
    store, home, env = real_index(tmp_path)
    other = tmp_path / "profile-b"
    write_session(other, session_doc("bbbb0000", [user("websocket talk in another profile")]))
    # A shell set up for another `cn` profile.
    env_b = {**deja_env(store, home), "CONTINUE_GLOBAL_DIR": str(other)}
    del env_b["DEJA_CONTINUE_ROOT"]
    result = run_deja(env_b, "search", "websocket", "--all")
    assert result.returncode == 0
    note = one_line(result)
    assert str(store) in note and str(other) in note and "--switch-store" in note
    assert "alpha000" in result.stdout and "bbbb0000" not in result.stdout
    listed = run_deja(env, "sessions", "--all", "--json")
    assert "bbbb0000" not in listed.stdout
    assert not any(s["deleted"] for s in json.loads(listed.stdout)["sessions"])
    refused = run_deja(env_b, "index")
    assert refused.returncode == 1 and "--switch-store" in one_line(refused)
    doctor = run_deja(env_b, "doctor", "--json")
    sessions = json.loads(doctor.stdout)["checks"]
    check = next(c for c in sessions if c["name"] == "sessions")
    assert not check["ok"] and "--switch-store" in check["fix"]
    switched = run_deja(env_b, "index", "--switch-store")
    assert switched.returncode == 0, switched.stderr
    hits = run_deja(env_b, "search", "websocket", "--all")
    assert "bbbb0000" in hits.stdout and "alpha000" in hits.stdout  # A's kept as history
    assert run_deja(env_b, "search", "websocket", "--all").stderr == ""


def test_a_moved_store_is_followed_and_an_old_index_adopts_its_store(tmp_path: Path) -> None:
    store, home, env = real_index(tmp_path)
    with sqlite3.connect(home / "index.sqlite3") as db:  # an index made before stores were named
        db.execute("DELETE FROM meta WHERE key = 'store_root'")
    db.close()
    assert run_deja(env, "index").returncode == 0
    moved = tmp_path / "moved-continue"
    shutil.move(store, moved)
    result = run_deja(deja_env(moved, home), "search", "websocket", "--all")
    assert result.returncode == 0 and "alpha000" in result.stdout
    assert "--switch-store" not in result.stderr


def test_an_old_index_keeps_the_store_its_sessions_came_from(tmp_path: Path) -> None:
    store, other, home = tmp_path / "a", tmp_path / "b", tmp_path / "home"
    write_session(store, session_doc("aaaa0000", [user("from the first store")]))
    write_session(other, session_doc("bbbb0000", [user("from another profile")]))
    history = History(home=home, root=store)
    history.refresh()
    with history._index.transaction() as db:  # as an index made before stores were named
        db.execute("DELETE FROM meta WHERE key = 'store_root'")
    history.close()
    elsewhere = History(home=home, root=tmp_path / "b" / ".." / "b")
    try:
        report = elsewhere.refresh()
        assert report.refused is not None and report.refused.problem == "other"
        assert str(store) in report.refused.message and str(other) in report.refused.message
    finally:
        elsewhere.close()
    own = History(home=home, root=store)
    try:
        assert own.refresh().refused is None
        assert own._db.execute("SELECT value FROM meta WHERE key = 'store_root'").fetchone()
    finally:
        own.close()


# A damaged index ----------------------------------------------------------------------------


@pytest.mark.parametrize("table", ["records_fts_data", "records"])
def test_a_damaged_page_gives_one_line_everywhere_and_rebuild_salvages(
    tmp_path: Path, table: str
) -> None:
    """The root page of the search index's words, or of the turns themselves."""
    _, home, env = real_index(tmp_path)
    damage_page(home / "index.sqlite3", table)
    first = run_deja(env, "index")  # before any other command met the damage
    assert first.returncode == 1 and "damaged" in one_line(first)
    for command in COMMANDS:  # those that read no damaged page answer
        result = run_deja(env, *command)
        line = one_line(result)
        if command[0] in ("search", "index") or (table == "records" and command[0] == "show"):
            # index: the damage search met
            assert result.returncode == 1 and "damaged" in line, (command, result)
            assert "deja index --rebuild" in line
    doctor = json.loads(run_deja(env, "doctor", "--json").stdout)["checks"]
    index = next(c for c in doctor if c["name"] == "index")
    assert not index["ok"] and "damaged" in index["detail"]
    assert "deja index --rebuild" in index["fix"]
    rebuilt = run_deja(env, "index", "--rebuild")
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert "moved to index.sqlite3.corrupt-" in one_line(rebuilt)
    assert list(home.glob("index.sqlite3.corrupt-*"))
    assert "private plan" not in run_deja(env, "search", "private", "--all").stdout
    after = run_deja(env, "search", "websocket", "--all")
    assert after.returncode == 0 and after.stderr == ""
    if table == "records":  # every turn was on that page: the compacted one is gone, and said
        assert "could not read turns only the index held" in rebuilt.stderr
        assert "alpha000" not in after.stdout
    else:
        assert "nothing else is lost" in rebuilt.stderr and "alpha000" in after.stdout


def test_a_damaged_header_is_salvaged_and_said(tmp_path: Path) -> None:
    _, home, env = real_index(tmp_path)
    with open(home / "index.sqlite3", "r+b") as f:
        f.write(b"this is no longer a database header" + bytes(65))
    result = run_deja(env, "search", "websocket", "--all")
    assert result.returncode == 0 and "Traceback" not in result.stderr
    assert "moved to index.sqlite3.corrupt-" in result.stderr and "kept" in result.stderr
    assert "alpha000" in result.stdout  # a turn only the index held
    assert "private plan" not in run_deja(env, "search", "private", "--all").stdout
    again = run_deja(env, "search", "websocket", "--all")
    assert again.stderr == ""  # said once, by the command that recovered


# A full disk, a read-only home --------------------------------------------------------------


def userns_works() -> bool:
    if not shutil.which("unshare"):
        return False
    probe = subprocess.run(["unshare", "-rm", "true"], capture_output=True, check=False)
    return probe.returncode == 0


needs_userns = pytest.mark.skipif(
    sys.platform != "linux" or not userns_works(), reason="needs unshare -rm (mount namespace)"
)


def in_namespace(env: dict[str, str], setup: str, *args: str) -> subprocess.CompletedProcess[str]:
    """`deja ARGS` after `setup` (sh) in a private mount namespace: its mounts end with it."""
    command = " ".join([f'"{sys.executable}"', "-m", "deja", *args])
    return subprocess.run(
        ["unshare", "-rm", "sh", "-c", f"set -e; {setup}; exec {command}"],
        env=env,
        cwd="/",
        capture_output=True,
        text=True,
        timeout=120,
    )


@needs_userns
@pytest.mark.parametrize("left", [0, 128 * 1024], ids=["nothing-left", "too-little-left"])
def test_a_full_disk_never_stops_a_read(tmp_path: Path, left: int) -> None:
    """Nothing left: the index opens read-only (WAL cannot map its -shm). A little left: it
    opens, and the pass's write fails part way."""
    store, home, env = real_index(tmp_path)
    words = " ".join(f"news{n}" for n in range(20_000))  # more than `left` to write
    write_session(store, session_doc("newer000", [user("websocket " + words)]))
    saved = tmp_path / "saved"
    shutil.copytree(home, saved)
    size = sum(p.stat().st_size for p in saved.iterdir()) + 64 * 1024
    setup = (
        f"mount -t tmpfs -o size={size} tmpfs {home}; cp -a {saved}/. {home}/; "
        f"dd if=/dev/zero of={home}/filler bs=4096 2>/dev/null || true; "
        f"truncate -s -{left} {home}/filler"
    )
    for command in [("search", "websocket", "--all"), ("sessions", "--all"), ("index",)]:
        result = in_namespace(env, setup, *command)
        line = one_line(result)
        assert "full" in line, (command, result)
        if command[0] == "index":
            assert result.returncode == 1
        else:
            assert result.returncode == 0 and "alpha000" in result.stdout


@needs_userns
def test_a_read_only_home_answers_queries(tmp_path: Path) -> None:
    store, home, env = real_index(tmp_path)
    write_session(store, session_doc("newer000", [user("websocket news")]))
    setup = f"mount --bind {home} {home}; mount -o remount,bind,ro {home}"
    for command in [("search", "websocket", "--all"), ("show", "alpha000"), ("index",)]:
        result = in_namespace(env, setup, *command)
        line = one_line(result)
        assert "cannot write" in line, (command, result)
        if command[0] == "index":
            assert result.returncode == 1
        else:
            assert result.returncode == 0 and "websocket" in result.stdout
    doctor = json.loads(in_namespace(env, setup, "doctor", "--json").stdout)["checks"]
    index = next(c for c in doctor if c["name"] == "index")
    assert not index["ok"] and "cannot write" in index["detail"] and "writable" in index["fix"]


def exact_hit(history: History, word: str) -> bool:
    result = history.search(SearchQuery(word, limit=1))
    return bool(result.hits) and not result.approximate


def test_salvage_steps_over_a_damaged_page_of_turns(tmp_path: Path) -> None:
    """Header and a page of `records` in the middle both damaged: the turns only the index held
    on the other pages still come back, and the note says some could not."""
    store, home = tmp_path / "continue", tmp_path / "home"
    for n in range(30):  # text that does not compress: a page holds few turns
        noise = " ".join(hashlib.sha1(f"{n}/{i}".encode()).hexdigest()[:10] for i in range(300))
        turns = [user(f"kept{n} {noise}"), assistant(f"answer{n} {noise}")]
        write_session(store, session_doc(f"comp{n:04d}", turns))
    history = History(home=home, root=store)
    history.refresh()
    history.close()
    for n in range(30):
        path = store / "sessions" / f"comp{n:04d}.json"
        doc = session_doc(f"comp{n:04d}", [])
        doc["history"] = [
            {
                "message": {"role": "assistant", "content": "summary"},
                "contextItems": [],
                "conversationSummary": "summary",
            }
        ]
        path.write_text(json.dumps(doc))
        os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 5_000_000))
    history = History(home=home, root=store)
    history.refresh()
    history.close()
    db_path = home / "index.sqlite3"
    with sqlite3.connect(db_path) as db:
        leaves = [
            row[0]
            for row in db.execute(
                "SELECT pageno FROM dbstat WHERE name = 'records' AND pagetype = 'leaf'"
                " ORDER BY pageno"
            )
        ]
        size = db.execute("PRAGMA page_size").fetchone()[0]
    db.close()
    assert len(leaves) >= 3
    with open(db_path, "r+b") as f:
        f.seek((leaves[len(leaves) // 2] - 1) * size)
        f.write(bytes(size))
        f.seek(0)
        f.write(bytes(100))
    history = History(home=home, root=store)
    try:
        assert history.recovery is not None
        assert "turns only the index held past a damaged page" in history.recovery.lost
        history.refresh()
        words = [f"{kind}{n}" for n in range(30) for kind in ("kept", "answer")]
        found = [word for word in words if exact_hit(history, word)]
        # The turns on the damaged page are gone; those on the pages after it came back.
        assert len(words) // 3 <= len(found) < len(words), found
    finally:
        history.close()
