"""One type of user error: every core user error is a `DejaError`, and each front door maps any
`DejaError` in one place (exit 1, InvalidParams, an MCP error result)."""

from __future__ import annotations

from typing import Any, cast

import pytest
from pygls.exceptions import JsonRpcInvalidParams

from deja.cli.main import run_guarded
from deja.errors import DejaError
from deja.index import NotIndexed
from deja.install import ConfigError
from deja.lsp.errors import as_rpc_error
from deja.mcp.tools import error_text
from deja.query import QueryError, UnknownSession, WorkspaceError
from deja.query.handoff import HandoffError
from deja.query.restore import RestoreError
from deja.settings import SettingError


class NewError(DejaError):
    """A user error no door has heard of."""


@pytest.mark.parametrize(
    "kind",
    [
        QueryError,
        UnknownSession,
        WorkspaceError,
        HandoffError,
        RestoreError,
        ConfigError,
        SettingError,
        NotIndexed,
    ],
)
def test_every_core_user_error_is_a_deja_error(kind: type[Exception]) -> None:
    assert issubclass(kind, DejaError) and issubclass(kind, ValueError)


def test_not_found_errors_are_still_lookup_errors() -> None:
    assert issubclass(UnknownSession, LookupError) and issubclass(NotIndexed, LookupError)


def test_the_cli_maps_any_deja_error_to_exit_1(capsys: pytest.CaptureFixture[str]) -> None:
    def fail() -> int:
        raise NewError("that cannot be")

    assert run_guarded(fail) == 1
    assert capsys.readouterr().err == "deja: that cannot be\n"


def test_the_sidecar_maps_any_deja_error_to_invalid_params() -> None:
    logged: list[str] = []

    class Server:
        def log(self, message: str, _kind: object) -> None:
            logged.append(message)

    error = as_rpc_error(cast(Any, Server()), "deja/search", NewError("that cannot be"))
    assert isinstance(error, JsonRpcInvalidParams)
    assert error.message == logged[0] == "deja/search: that cannot be"


def test_mcp_says_any_deja_error_as_it_is() -> None:
    assert error_text(NewError("that cannot be")) == "that cannot be"
    assert error_text(UnknownSession("no session 'feedbeef'")) == "no session 'feedbeef'."
