"""The team tests' real PostgreSQL: one server per test session (started here, stopped by its
PID at the end, even on failure), a fresh database per test, and members who each have their
own PostgreSQL role, Deja home, config folder and Continue store, and run the real `deja` CLI."""

from __future__ import annotations

import itertools
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.cli_run import deja_env, run_deja
from tests.support.postgres import Postgres, available, running_postgres

PASSWORDS = {"deja_owner": "owner-pw", "alice": "alice-pw", "bob": "bob-pw", "carol": "carol-pw"}
_numbers = itertools.count()


@pytest.fixture(scope="session")
def pg() -> Iterator[Postgres]:
    missing = available()
    if missing:
        pytest.fail(missing)  # the tests need it: `make tools` installs it
    with running_postgres() as server:
        server.psql(f"CREATE ROLE deja_owner LOGIN CREATEROLE PASSWORD '{PASSWORDS['deja_owner']}'")
        for role in ("alice", "bob", "carol"):
            server.psql(f"CREATE ROLE {role} LOGIN PASSWORD '{PASSWORDS[role]}'")
        yield server


@pytest.fixture
def team_db(pg: Postgres) -> str:
    name = f"team_{next(_numbers)}"
    pg.psql(f"CREATE DATABASE {name} OWNER deja_owner")
    return name


@dataclass
class Member:
    role: str
    root: Path
    pg: Postgres
    database: str
    store: Path

    def env(self, **extra: str) -> dict[str, str]:
        return deja_env(
            self.store,
            self.root / "home",
            **{
                "XDG_CONFIG_HOME": str(self.root / "config"),
                "PGPASSWORD": PASSWORDS[self.role],
                **extra,
            },
        )

    @property
    def dsn(self) -> str:
        return self.pg.dsn(self.role, self.database)

    def run(self, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
        return run_deja(self.env(**extra), *args)

    def ok(self, *args: str, **extra: str) -> str:
        result = self.run(*args, **extra)
        assert result.returncode == 0, (args, result.stdout, result.stderr)
        return result.stdout

    def connect(self) -> None:
        self.ok("team", "connect", self.dsn, "--name", self.role.capitalize())


@pytest.fixture
def member_factory(tmp_path: Path, pg: Postgres, team_db: str):  # type: ignore[no-untyped-def]
    def make(role: str) -> Member:
        root = tmp_path / role
        (root / "store" / "sessions").mkdir(parents=True)
        return Member(role, root, pg, team_db, root / "store")

    return make


@pytest.fixture(scope="session")
def generated_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A generated store big enough that a push takes a while (the bench's generator)."""
    from bench.make_store import make_store

    out = tmp_path_factory.mktemp("generated") / "store"
    make_store(out, 24 * 1024 * 1024, seed=3)
    return out


@pytest.fixture
def owner(member_factory) -> Member:  # type: ignore[no-untyped-def]
    member: Member = member_factory("deja_owner")
    member.connect()
    return member
