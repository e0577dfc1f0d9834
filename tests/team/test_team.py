"""Team history against a real PostgreSQL: share/unshare, push, search from a second member,
forget propagating, redaction on the team side."""

from __future__ import annotations

import json

from tests.support.postgres import Postgres
from tests.support.storebuilder import assistant, session_doc, user, write_session

from .conftest import Member

SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def _sessions(member: Member) -> None:
    write_session(
        member.store,
        session_doc(
            "aaaa1111-0000-0000-0000-000000000001",
            [user("the flaky websocket reconnect test fails on CI"), assistant("add a backoff")],
            title="Websocket flake",
            workspace="/w/shop",
        ),
    )
    write_session(
        member.store,
        session_doc(
            "aaaa1111-0000-0000-0000-000000000002",
            [user(f"deploy with token {SECRET} please"), assistant("deployed the websocket")],
            title="Deploy",
            workspace="/w/shop",
        ),
    )
    write_session(
        member.store,
        session_doc(
            "aaaa1111-0000-0000-0000-000000000003",
            [user("private diary websocket notes"), assistant("noted")],
            title="Private",
            workspace="/w/diary",
        ),
    )


def _rows(pg: Postgres, database: str, sql: str) -> list[str]:
    return [line for line in pg.psql(sql, database=database).splitlines() if line]


def _search(member: Member, *words: str) -> dict:  # type: ignore[type-arg]
    out = member.ok("search", "--team", "--json", *words)
    return json.loads(out)  # type: ignore[no-any-return]


def test_nothing_is_shared_until_opted_in_then_share_and_unshare(
    owner: Member, member_factory, pg: Postgres, team_db: str
) -> None:
    alice: Member = member_factory("alice")
    _sessions(alice)
    alice.ok("index")
    owner.ok("team", "grant", "shop", "alice")
    out = alice.ok("team", "connect", alice.dsn, "--name", "Alice")
    assert "nothing is shared until you opt workspaces in" in out
    alice.ok("team", "push")
    assert _rows(pg, team_db, "SELECT count(*) FROM deja_records") == ["0"]

    out = alice.ok("team", "share", "/w/shop")
    assert "/w/shop: 2 sessions" in out
    report = json.loads(alice.ok("team", "push", "--json"))
    assert (report["sent"], report["erased"]) == (2, 0)
    projects = _rows(pg, team_db, "SELECT DISTINCT project FROM deja_records")
    assert projects == ["shop"]  # the diary was never shared
    again = json.loads(alice.ok("team", "push", "--json"))
    assert (again["sent"], again["unchanged"]) == (0, 2)

    alice.ok("team", "unshare", "/w/shop")
    gone = json.loads(alice.ok("team", "push", "--json"))
    assert gone["erased"] == 2
    assert _rows(pg, team_db, "SELECT count(*) FROM deja_records") == ["0"]
    assert _rows(pg, team_db, "SELECT count(*) FROM deja_sessions") == ["0"]


def test_a_second_member_finds_what_the_first_pushed(
    owner: Member, member_factory, pg: Postgres, team_db: str
) -> None:
    alice: Member = member_factory("alice")
    bob: Member = member_factory("bob")
    _sessions(alice)
    owner.ok("team", "grant", "shop", "alice")
    alice.connect()
    alice.ok("team", "share", "/w/shop")
    alice.ok("team", "push")
    owner.ok("team", "grant", "shop", "bob")
    bob.connect()
    found = _search(bob, "websocket", "reconnect")
    assert [hit["member"] for hit in found["hits"]] == ["Alice"]
    hit = found["hits"][0]
    assert hit["title"] == "Websocket flake" and hit["project"] == "shop"
    assert "**websocket**" in hit["snippet"].lower()
    # Narrowed by project: a project bob cannot read gives nothing, not an error.
    assert _search(bob, "websocket", "--project", "diary")["hits"] == []
    # The terminal rendering names the member too.
    assert "Alice" in bob.ok("search", "--team", "backoff")
    assert _search(bob, "websocket", "--workspace", "shop")["hits"]
    assert _search(bob, "websocket", "--workspace", "elsewhere")["hits"] == []
    assert "grant: bob reads shop" in owner.ok("team", "status")
    assert "grant: bob reads shop" in bob.ok("team", "status")
    # A new display name reaches the sessions already pushed.
    alice.ok("team", "connect", alice.dsn, "--name", "Alice B")
    assert json.loads(alice.ok("team", "push", "--json"))["sent"] == 2
    assert {h["member"] for h in _search(bob, "websocket")["hits"]} == {"Alice B"}
    refused = bob.run("search", "--team", "--file", "x.py", "websocket")
    assert refused.returncode == 1 and "deja blame --team PATH" in refused.stderr
    # Revoked: bob reads nothing of it any more.
    assert "bob no longer reads shop" in owner.ok("team", "revoke", "shop", "bob")
    assert _search(bob, "websocket", "reconnect")["hits"] == []


def test_forget_erases_the_text_from_the_team_database(
    owner: Member, member_factory, pg: Postgres, team_db: str
) -> None:
    alice: Member = member_factory("alice")
    _sessions(alice)
    owner.ok("team", "grant", "shop", "alice")
    alice.connect()
    alice.ok("team", "share", "/w/shop")
    alice.ok("team", "push")
    assert _rows(pg, team_db, "SELECT count(*) FROM deja_records WHERE body LIKE '%flaky%'") == [
        "1"
    ]
    alice.ok("forget", "--session", "aaaa1111-0000-0000-0000-000000000001")
    report = json.loads(alice.ok("team", "push", "--json"))
    assert report["erased"] == 1
    # Gone from every row the superuser sees (no soft delete, no hidden copy).
    assert _rows(pg, team_db, "SELECT count(*) FROM deja_records WHERE body LIKE '%flaky%'") == [
        "0"
    ]
    assert _rows(
        pg, team_db, "SELECT count(*) FROM deja_sessions WHERE title = 'Websocket flake'"
    ) == ["0"]
    assert _rows(pg, team_db, "SELECT count(*) FROM deja_records") == ["2"]


def test_secrets_stay_redacted_on_the_team_side_even_when_the_local_index_keeps_them(
    owner: Member, member_factory, pg: Postgres, team_db: str
) -> None:
    alice: Member = member_factory("alice")
    _sessions(alice)
    alice.ok("index", DEJA_NO_REDACT="1")
    local = alice.ok("search", "--json", "--all", SECRET, DEJA_NO_REDACT="1")
    assert json.loads(local)["hits"], "the local index keeps the secret as written"
    owner.ok("team", "grant", "shop", "alice")
    alice.connect()
    alice.ok("team", "share", "/w/shop", DEJA_NO_REDACT="1")
    alice.ok("team", "push", DEJA_NO_REDACT="1")
    bodies = "\n".join(_rows(pg, team_db, "SELECT body FROM deja_records"))
    assert SECRET not in bodies
    assert "[redacted:" in bodies
    assert _search(alice, "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8")["hits"] == []
