"""Opening the team database and turning what psycopg raises into one clear line."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg import errors as pg_errors

from .config import TeamConfig, TeamError

CONNECT_TIMEOUT_S = 10

# Rows as tuples of whatever PostgreSQL sent; each caller converts the columns it reads.
Connection = psycopg.Connection[Any]


def _first_line(error: BaseException) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0].strip()


def describe(error: psycopg.Error, action: str) -> str:
    """The one line a psycopg error becomes; libpq's messages hold no password."""
    if isinstance(error, pg_errors.InsufficientPrivilege):
        return f"{action}: the team database refused it ({_first_line(error)})"
    if isinstance(error, psycopg.OperationalError | pg_errors.AdminShutdown):
        return (
            f"{action}: the connection to the team database was lost ({_first_line(error)});"
            " what was not committed is not kept, so run it again"
        )
    return f"{action}: {_first_line(error)}"


@contextmanager
def team_errors(action: str) -> Iterator[None]:
    try:
        yield
    except psycopg.Error as error:
        raise TeamError(describe(error, action)) from None


def connect(config: TeamConfig) -> Connection:
    """A connection as the member's own role; the password comes from libpq's own sources."""
    try:
        return psycopg.connect(
            config.dsn,
            connect_timeout=CONNECT_TIMEOUT_S,
            application_name="deja",
            autocommit=True,
        )
    except psycopg.Error as error:  # a DSN it cannot parse is a ProgrammingError, also here
        raise TeamError(f"cannot connect to the team database: {_first_line(error)}") from None


@contextmanager
def opened(config: TeamConfig) -> Iterator[Connection]:
    db = connect(config)
    try:
        yield db
    finally:
        db.close()
