"""Faults Continue's way of writing brings (issue 8): in-place rewrites racing the indexer, two
indexers on one DEJA_HOME, a broken sessions.json. Bounded in time and count."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from deja.continue_store import read_store
from deja.index.pack import register
from deja.query import History, SearchQuery
from tests.support.storebuilder import session_doc, user, write_session

# Rewrites session files the way Continue does: truncate, then write, no temp file, no rename.
# Version v of a session holds v messages, each saying which version it belongs to.
WRITER = """
import json, sys, time
from pathlib import Path
folder, count, seconds = Path(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
deadline = time.monotonic() + seconds
version = 1
while time.monotonic() < deadline and version < 2000:
    for n in range(count):
        lines = [f"v{version} line {i} " + "x" * 400 for i in range(version % 40 + 1)]
        doc = {"sessionId": f"race{n}", "title": "race", "workspaceDirectory": "/w/race",
               "history": [{"message": {"role": "user", "content": line}, "contextItems": []}
                           for line in lines]}
        data = json.dumps(doc, indent=2).encode()
        path = folder / f"race{n}.json"
        with open(path, "r+b" if path.exists() else "wb") as f:
            f.truncate(0)
            f.write(data[: len(data) // 2])
            f.flush()
            f.write(data[len(data) // 2 :])
    version += 1
"""


def run_env(store: Path, home: Path) -> dict[str, str]:
    return {
        **os.environ,
        "DEJA_CONTINUE_ROOT": str(store),
        "DEJA_HOME": str(home),
        "PYTHONPATH": os.pathsep.join(sys.path),
    }


def index_matches_store(home: Path, store: Path) -> None:
    expected = {s.id: sorted(r.text for r in s.records) for s in read_store(store).sessions}
    db = sqlite3.connect(home / "index.sqlite3")
    register(db)  # the records' text is read through `unpack` (index/pack.py)
    try:
        actual: dict[str, list[str]] = {}
        for session_id, body in db.execute(
            "SELECT r.session_id, f.body FROM records r JOIN records_fts f ON f.rowid = r.id"
            " WHERE r.compacted = 0"
        ):
            actual.setdefault(session_id, []).append(body)
    finally:
        db.close()
    assert {k: sorted(v) for k, v in actual.items()} == expected


def versions_are_whole(home: Path) -> None:
    """No half-read session: the live records of each session are exactly one version's lines.
    (A shorter version that starts differently reads as a compaction: the index keeps the older
    lines as compacted, which is its promise, so only live records are checked.)"""
    db = sqlite3.connect(home / "index.sqlite3", timeout=30)
    register(db)
    try:
        rows = db.execute(
            "SELECT r.session_id, f.body FROM records r JOIN records_fts f ON f.rowid = r.id"
            " WHERE r.compacted = 0"
        ).fetchall()
    finally:
        db.close()
    by_session: dict[str, set[str]] = {}
    counts: dict[str, int] = {}
    for session_id, body in rows:
        by_session.setdefault(session_id, set()).add(body.split()[0])
        counts[session_id] = counts.get(session_id, 0) + 1
    for session_id, versions in by_session.items():
        assert len(versions) == 1, (session_id, versions)
        version = int(next(iter(versions))[1:])
        assert counts[session_id] == version % 40 + 1


def test_indexing_while_continue_rewrites_files(tmp_path: Path) -> None:
    store, home = tmp_path / "store", tmp_path / "home"
    folder = store / "sessions"
    folder.mkdir(parents=True)
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(folder), "6", "8"])
    try:
        runs = 0
        while writer.poll() is None and runs < 40:
            result = subprocess.run(
                [sys.executable, "-m", "deja", "index"],
                env=run_env(store, home),
                capture_output=True,
                text=True,
                timeout=60,
            )
            assert result.returncode == 0, result.stderr
            assert "Traceback" not in result.stderr
            versions_are_whole(home)
            runs += 1
        assert runs >= 2
    finally:
        writer.kill()
        writer.wait()
    subprocess.run(
        [sys.executable, "-m", "deja", "index"],
        env=run_env(store, home),
        check=True,
        capture_output=True,
        timeout=60,
    )
    index_matches_store(home, store)


def test_two_indexers_on_one_home(tmp_path: Path) -> None:
    store, home = tmp_path / "store", tmp_path / "home"
    for n in range(150):
        write_session(store, session_doc(f"s{n}", [user(f"shared topic {n} " + "y" * 2000)]))
    processes = [
        subprocess.Popen(
            [sys.executable, "-m", "deja", "index", "--rebuild"],
            env=run_env(store, home),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    for process in processes:
        _, err = process.communicate(timeout=120)
        assert process.returncode == 0, err
        assert "locked" not in err.lower()
    index_matches_store(home, store)


@pytest.mark.parametrize(
    "listing", [None, b"", b"   ", b'{"sessionId": "s1"}', b'[{"sessionId": "s1", "ti']
)
def test_sessions_list_missing_empty_object_or_cut(tmp_path: Path, listing: bytes | None) -> None:
    store = tmp_path / "store"
    write_session(store, session_doc("s1", [user("still found")]), listed=False)
    target = store / "sessions" / "sessions.json"
    if listing is not None:
        target.write_bytes(listing)
    history = History(home=tmp_path / "home", root=store)
    try:
        report = history.refresh()
        assert report.changed == 1
        assert history.search(SearchQuery("still found")).hits
    finally:
        history.close()


def test_sessions_list_rewritten_mid_read_is_retried(tmp_path: Path) -> None:
    store = tmp_path / "store"
    write_session(store, session_doc("s1", [user("titled")]))
    target = store / "sessions" / "sessions.json"
    whole = target.read_text()
    target.write_text(whole[:10])
    import threading

    timer = threading.Timer(0.05, lambda: target.write_text(whole))
    timer.start()
    history = History(home=tmp_path / "home", root=store)
    try:
        report = history.refresh()
    finally:
        timer.join()
        history.close()
    assert not any("sessions.json" in d.path for d in report.notes + report.errors)


def test_store_rewritten_under_a_long_history(tmp_path: Path) -> None:
    """A session growing turn by turn, re-indexed after each save, keeps every turn once."""
    store = tmp_path / "store"
    history = History(home=tmp_path / "home", root=store)
    try:
        items: list[dict[str, object]] = []
        for turn in range(20):
            items.append(user(f"growing turn {turn}"))
            path = write_session(store, session_doc("g1", items), listed=turn == 0)
            os.utime(path, (time.time() - 100 + turn, time.time() - 100 + turn))
            history.refresh()
        records = history.show("g1").records
        assert [r.turn for r in records] == list(range(20))
        assert not any(r.compacted for r in records)
    finally:
        history.close()
    data = json.loads((store / "sessions" / "sessions.json").read_text())
    assert [entry["sessionId"] for entry in data] == ["g1"]


async def test_sidecar_while_continue_rewrites_files_and_the_cli_indexes_too(
    tmp_path: Path,
) -> None:
    """`deja serve` watching the store while a writer rewrites it in place and `deja index`
    runs on the same DEJA_HOME: the server stays up, nobody sees "database is locked", and once
    the writer stops the index matches the store exactly."""
    from lsprotocol import types
    from pytest_lsp import client_capabilities
    from pytest_lsp.client import make_test_lsp_client

    from tests.lsp.conftest import SERVER, first_pass, plain

    store, home = tmp_path / "store", tmp_path / "home"
    folder = store / "sessions"
    folder.mkdir(parents=True)
    env = run_env(store, home)
    client = make_test_lsp_client()
    await client.start_io(*SERVER, env=env)
    try:
        await client.initialize_session(
            types.InitializeParams(capabilities=client_capabilities("visual-studio-code"))
        )
        await first_pass(client)
        writer = subprocess.Popen([sys.executable, "-c", WRITER, str(folder), "4", "5"])
        try:
            while writer.poll() is None:
                result = subprocess.run(
                    [sys.executable, "-m", "deja", "index"],
                    env=env,
                    capture_output=True,
                    text=True,
                    timeout=60,
                )
                assert result.returncode == 0 and "locked" not in result.stderr.lower()
                await asyncio.sleep(0.1)
        finally:
            writer.kill()
            writer.wait()
        # Let the watcher settle on the final files, then the server must still answer.
        await asyncio.sleep(2)
        found = plain(
            await client.protocol.send_request_async(
                "deja/search", {"query": "line", "scope": "all", "limit": 5}
            )
        )
        assert found["hits"]
        logs = " ".join(str(m.message) for m in client.log_messages)
        assert "locked" not in logs.lower() and "Traceback" not in logs
        await client.shutdown_session()
    finally:
        await client.stop()
    subprocess.run(
        [sys.executable, "-m", "deja", "index"],
        env=env,
        check=True,
        capture_output=True,
        timeout=60,
    )
    index_matches_store(home, store)
