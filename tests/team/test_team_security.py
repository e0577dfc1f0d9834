"""Row-level security, tried with raw SQL as the members themselves (psycopg, their own roles
and passwords): no SQL reads another project's rows or changes someone else's."""

from __future__ import annotations

import psycopg
import pytest

from tests.support.postgres import Postgres
from tests.support.storebuilder import assistant, session_doc, user, write_session

from .conftest import PASSWORDS, Member


def _as(pg: Postgres, role: str, database: str) -> psycopg.Connection:  # type: ignore[type-arg]
    return psycopg.connect(pg.dsn(role, database), password=PASSWORDS[role], autocommit=True)


@pytest.fixture
def pushed(owner: Member, member_factory, pg: Postgres, team_db: str) -> Member:  # type: ignore[no-untyped-def]
    alice: Member = member_factory("alice")
    write_session(
        alice.store,
        session_doc(
            "bbbb2222-0000-0000-0000-000000000001",
            [user("the payroll export crashes on leap years"), assistant("use date math")],
            title="Payroll",
            workspace="/w/payroll",
        ),
    )
    owner.ok("team", "grant", "payroll", "alice")
    alice.connect()
    alice.ok("team", "share", "/w/payroll")
    alice.ok("team", "push")
    owner.ok("team", "grant", "other", "carol")  # carol is a member, without payroll
    owner.ok("team", "grant", "payroll", "bob")  # bob reads payroll, writes only his own rows
    return alice


def _alice_rows(pg: Postgres, database: str) -> str:
    return pg.psql("SELECT member, key, body FROM deja_records ORDER BY key", database=database)


def test_a_member_without_the_grant_reads_and_changes_nothing(
    pushed: Member, pg: Postgres, team_db: str
) -> None:
    before = _alice_rows(pg, team_db)
    assert "payroll" in before
    with _as(pg, "carol", team_db) as db:
        assert db.execute("SELECT count(*) FROM deja_records").fetchone() == (0,)
        assert db.execute("SELECT count(*) FROM deja_sessions").fetchone() == (0,)
        assert db.execute("SELECT * FROM deja_records WHERE project = 'payroll'").fetchall() == []
        assert db.execute("UPDATE deja_records SET body = 'pwned'").rowcount == 0
        assert db.execute("UPDATE deja_records SET member = 'carol'").rowcount == 0
        assert db.execute("DELETE FROM deja_records").rowcount == 0
        assert db.execute("DELETE FROM deja_sessions").rowcount == 0
        # The search function (it runs as the owner, for the index) applies the same rule.
        matches = "SELECT count(*) FROM deja_matches(to_tsquery('english', 'payroll'))"
        assert db.execute(matches).fetchone() == (0,)
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            db.execute(
                "CREATE OR REPLACE FUNCTION deja_matches(q tsquery) RETURNS void"
                " LANGUAGE sql AS 'SELECT 1'"
            )
        # Only the grants naming carol are visible to her.
        assert db.execute("SELECT project, member FROM deja_grants").fetchall() == [
            ("other", "carol")
        ]
        refused = [
            "INSERT INTO deja_grants VALUES ('payroll', 'carol')",
            "INSERT INTO deja_records (member, session_id, key, project, turn, role, time,"
            " compacted, body) VALUES ('alice', 'x', 'k', 'payroll', 0, 'user', 0, false, 'x')",
            "ALTER TABLE deja_records DISABLE ROW LEVEL SECURITY",
            "DROP POLICY deja_read ON deja_records",
            "TRUNCATE deja_records",
            "SET ROLE alice",
            "SET ROLE deja_owner",
            "UPDATE deja_schema SET version = 99",
        ]
        for statement in refused:
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                db.execute(statement)
    assert _alice_rows(pg, team_db) == before


def test_a_granted_member_reads_but_cannot_change_someone_elses_rows(
    pushed: Member, pg: Postgres, team_db: str
) -> None:
    before = _alice_rows(pg, team_db)
    with _as(pg, "bob", team_db) as db:
        matches = "SELECT count(*) FROM deja_matches(to_tsquery('english', 'payroll'))"
        assert db.execute(matches).fetchone() == (1,)
        rows = db.execute("SELECT member, body FROM deja_records").fetchall()
        assert {member for member, _ in rows} == {"alice"} and rows
        assert db.execute("UPDATE deja_records SET body = 'pwned'").rowcount == 0
        assert db.execute("DELETE FROM deja_records WHERE member = 'alice'").rowcount == 0
        assert db.execute("UPDATE deja_sessions SET title = 'pwned'").rowcount == 0
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            db.execute(
                "INSERT INTO deja_records (member, session_id, key, project, turn, role, time,"
                " compacted, body) VALUES ('alice', 'x', 'k', 'payroll', 0, 'user', 0, false,"
                " 'forged')"
            )
        # Upserting over alice's key writes a row of bob's own, never hers.
        key = db.execute("SELECT key, session_id FROM deja_records LIMIT 1").fetchone()
        assert key is not None
        db.execute(
            "INSERT INTO deja_records (session_id, key, project, turn, role, time, compacted,"
            " body) VALUES (%s, %s, 'payroll', 0, 'user', 0, false, 'bob wrote this')"
            " ON CONFLICT (member, session_id, key) DO UPDATE SET body = EXCLUDED.body",
            (key[1], key[0]),
        )
    after = pg.psql(
        "SELECT member, key, body FROM deja_records WHERE member = 'alice' ORDER BY key",
        database=team_db,
    )
    assert after == before


def test_a_role_outside_the_team_cannot_read_at_all(
    pushed: Member, pg: Postgres, team_db: str
) -> None:
    pg.psql(
        "DO $$ BEGIN CREATE ROLE dave LOGIN PASSWORD 'dave-pw';"
        " EXCEPTION WHEN duplicate_object THEN NULL; END $$"
    )
    PASSWORDS.setdefault("dave", "dave-pw")
    with _as(pg, "dave", team_db) as db:
        for statement in ("SELECT * FROM deja_records", "SELECT * FROM deja_sessions"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                db.execute(statement)


def test_team_search_as_a_member_without_the_grant_finds_nothing(
    pushed: Member, member_factory
) -> None:
    carol: Member = member_factory("carol")
    carol.connect()
    out = carol.ok("search", "--team", "payroll", "leap")
    assert "no team hits" in out
    assert "payroll export" not in out
