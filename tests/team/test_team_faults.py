"""Faults on the way to the team database: one clear line each, the local index untouched, and
the next push completes. A push killed (-9) at random points, then run again, leaves exactly
what a clean push leaves."""

from __future__ import annotations

import hashlib
import json
import os
import random
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import psycopg

from deja.index.exclude import ExcludeList
from deja.index.pack import register
from deja.query import History
from deja.team.local import session_records, shared_sessions
from tests.support.cli_run import deja_env, run_deja
from tests.support.postgres import Postgres
from tests.support.storebuilder import assistant, session_doc, user, write_session

from .conftest import Member

# What "equal" means: every column a push writes, for every row.
DUMP = (
    "SELECT md5(string_agg(concat_ws('|', member, session_id, key, project, turn, role, time,"
    " path, relpath, exit_code, status, compacted, md5(body)), E'\\n'"
    " ORDER BY member, session_id, key)), count(*) FROM deja_records"
)
SESSIONS_DUMP = (
    "SELECT md5(string_agg(concat_ws('|', member, session_id, display, project, workspace, title,"
    " started, last_active, digest), E'\\n' ORDER BY member, session_id)) FROM deja_sessions"
)


def _index_dump(member: Member) -> str:
    with sqlite3.connect(member.root / "home" / "index.sqlite3") as db:
        register(db)  # the records' text is read through `unpack` (index/pack.py)
        rows = [
            *db.execute("SELECT * FROM sessions ORDER BY id"),
            *db.execute("SELECT * FROM records ORDER BY id"),
            *db.execute("SELECT rowid, body FROM records_fts ORDER BY rowid"),
        ]
    return hashlib.sha256(repr(rows).encode()).hexdigest()


def _one_line_error(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 1, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("deja: "), result.stderr
    assert "Traceback" not in result.stderr
    return lines[0]


def _small(member: Member) -> None:
    write_session(
        member.store,
        session_doc(
            "cccc3333-0000-0000-0000-000000000001",
            [user("the cache warmer times out"), assistant("raise the pool size")],
            workspace="/w/cache",
        ),
        # Written a minute ago: a file indexed within its mtime tick is read again by the next
        # pass (refresh.py's racy window), which would change the index between two dumps.
        mtime=time.time() - 60,
    )
    member.ok("index")


def test_bad_dsn_wrong_password_and_server_down_are_one_line_each(
    owner: Member, member_factory, pg: Postgres, team_db: str
) -> None:
    alice: Member = member_factory("alice")
    _small(alice)
    before = _index_dump(alice)
    cases = {
        "not a PostgreSQL connection string": ("team", "connect", "host=127.0.0.1 port"),
        "password": ("team", "connect", f"{alice.dsn} password=secret"),
        "Connection refused": ("team", "connect", f"host=127.0.0.1 port=1 dbname={team_db}"),
    }
    for expected, args in cases.items():
        line = _one_line_error(alice.run(*args))
        assert expected in line, line
        assert "secret" not in line
    wrong = alice.run("team", "connect", alice.dsn, PGPASSWORD="not-her-password")
    assert 'password authentication failed for user "alice"' in _one_line_error(wrong)
    assert not (alice.root / "config" / "deja" / "team.json").exists()
    assert _one_line_error(alice.run("team", "push")).endswith(
        "no team connection; run `deja team connect DSN` first"
    )
    pg.psql(
        "DO $$ BEGIN CREATE ROLE erin LOGIN PASSWORD 'erin-pw';"
        " EXCEPTION WHEN duplicate_object THEN NULL; END $$"
    )
    erin = alice.run("team", "connect", pg.dsn("erin", team_db), PGPASSWORD="erin-pw")
    not_yet = _one_line_error(erin)
    assert "erin is not a member of the team yet" in not_yet, not_yet
    # Connected, then the server goes down: one line, nothing lost, the next push completes.
    owner.ok("team", "grant", "cache", "alice")
    alice.connect()
    alice.ok("team", "share", "/w/cache")
    pg.stop()
    try:
        down = _one_line_error(alice.run("team", "push"))
        assert "cannot connect to the team database" in down and "refused" in down, down
    finally:
        pg.start()
    assert _index_dump(alice) == before
    assert "pushed 1 session (" in alice.ok("team", "push")
    config = json.loads((alice.root / "config" / "deja" / "team.json").read_text())
    assert "password" not in json.dumps(config) and "alice-pw" not in json.dumps(config)


def test_a_schema_from_a_newer_deja_is_refused_in_one_line(
    owner: Member, member_factory, pg: Postgres, team_db: str
) -> None:
    alice: Member = member_factory("alice")
    _small(alice)
    owner.ok("team", "grant", "cache", "alice")
    alice.connect()
    alice.ok("team", "share", "/w/cache")
    pg.psql("INSERT INTO deja_schema VALUES (99)", database=team_db)
    before = _index_dump(alice)
    for args in (("team", "push"), ("search", "--team", "cache"), ("team", "connect", alice.dsn)):
        line = _one_line_error(alice.run(*args))
        assert "version 99, from a newer Deja" in line, line
    assert _index_dump(alice) == before
    pg.psql("DELETE FROM deja_schema WHERE version = 99", database=team_db)
    assert "pushed 1 session (" in alice.ok("team", "push")


def _push_process(member: Member) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "deja", "team", "push"],
        env=member.env(),
        cwd="/",
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _dump(pg: Postgres, database: str) -> tuple[str, str]:
    return pg.psql(DUMP, database=database).strip(), pg.psql(SESSIONS_DUMP, database=database)


def _clean_push(pg: Postgres, member: Member) -> tuple[str, str]:
    """The same store pushed once, uninterrupted, by the same role into a database of its own."""
    database = f"{member.database}_clean"
    pg.psql(f"CREATE DATABASE {database} OWNER deja_owner")
    clean = Member(member.role, member.root / "clean", pg, database, member.store)
    for role in ("deja_owner", member.role):
        Member(role, clean.root / role, pg, database, member.store).connect()
    peer = Member(member.role, clean.root / member.role, pg, database, member.store)
    peer.ok("team", "share", "/")
    peer.ok("team", "push")
    return _dump(pg, database)


def test_push_killed_at_random_points_then_run_again_equals_a_clean_push(
    owner: Member, member_factory, pg: Postgres, team_db: str, generated_store: Path
) -> None:
    alice: Member = member_factory("alice")
    alice.store = generated_store
    owner.ok("team", "grant", "cache", "alice")
    alice.connect()
    alice.ok("team", "share", "/")
    started = time.monotonic()
    alice.ok("team", "push")
    full = time.monotonic() - started
    expected = _dump(pg, team_db)
    assert int(expected[0].split("|")[1]) > 500
    # Start again from an empty team database, killing pushes part of the way through.
    pg.psql("TRUNCATE deja_records, deja_sessions", database=team_db)
    rng = random.Random(18)
    partial = set()
    for _ in range(4):
        process = _push_process(alice)
        time.sleep(rng.uniform(0.3, max(full, 0.5)))
        process.kill()
        process.wait()
        partial.add(pg.psql("SELECT count(*) FROM deja_records", database=team_db).strip())
    alice.ok("team", "push")
    assert _dump(pg, team_db) == expected
    assert expected == _clean_push(pg, alice)
    # Pushing again changes nothing.
    assert "pushed 0 sessions" in alice.ok("team", "push")
    assert _dump(pg, team_db) == expected
    print(f"partial record counts after kills: {sorted(partial)}; full push {full:.1f}s")


def test_server_restarted_mid_push_is_one_line_and_the_next_push_completes(
    owner: Member, member_factory, pg: Postgres, team_db: str, generated_store: Path
) -> None:
    alice: Member = member_factory("alice")
    alice.store = generated_store
    owner.ok("team", "grant", "cache", "alice")
    alice.connect()
    alice.ok("team", "share", "/")
    alice.ok("index")
    before = _index_dump(alice)
    # Hold the push in the middle of its first transaction (records written, the sessions'
    # upsert waiting on a lock), then restart the server under it.
    holder = psycopg.connect(host=pg.socket_dir, port=pg.port, user="postgres", dbname=team_db)
    holder.execute("LOCK TABLE deja_sessions IN SHARE MODE")
    process = _push_process(alice)
    waiting = (
        "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'deja'"
        " AND wait_event_type = 'Lock'"
    )
    deadline = time.monotonic() + 60
    while pg.psql(waiting, database=team_db).strip() != "1" and time.monotonic() < deadline:
        assert process.poll() is None, process.communicate()
        time.sleep(0.05)
    pg.restart()
    holder.close()
    out, err = process.communicate(timeout=120)
    result = subprocess.CompletedProcess(process.args, process.returncode, out, err)
    line = _one_line_error(result)
    assert "connection to the team database was lost" in line and "run it again" in line, line
    assert pg.psql("SELECT count(*) FROM deja_records", database=team_db).strip() == "0"
    assert _index_dump(alice) == before
    assert "pushed" in alice.ok("team", "push")
    total = int(pg.psql("SELECT count(*) FROM deja_records", database=team_db))
    history = History(alice.root / "home", alice.root, for_reading=True)
    shared = shared_sessions(history, ["/"], ExcludeList())
    local = sum(len(session_records(history, session)) for session in shared)
    history.close()
    assert total == local > 500


def test_without_the_driver_team_commands_say_how_to_install_it(tmp_path: Path) -> None:
    blocked = tmp_path / "blocked"
    (blocked / "psycopg").mkdir(parents=True)
    (blocked / "psycopg" / "__init__.py").write_text("raise ImportError('psycopg is not here')\n")
    (tmp_path / "store" / "sessions").mkdir(parents=True)
    env = deja_env(tmp_path / "store", tmp_path / "home")
    env["PYTHONPATH"] = os.pathsep.join([str(blocked), env["PYTHONPATH"]])
    for args in (("team", "status"), ("search", "--team", "x"), ("blame", "--team", "a.py")):
        line = _one_line_error(run_deja(env, *args))
        assert "pip install 'deja[team]'" in line, line
    assert run_deja(env, "search", "--all", "x").returncode == 0  # plain search needs no driver
