"""The sidecar when Continue's store goes missing or empty under an index (issue 11): the pass is
not applied (no session marked deleted), one log line says why, `deja/storeStatus` tells the
client (the VS Code status bar shows it), and the store coming back is indexed as usual. A bad
environment setting is one message naming it."""

from __future__ import annotations

import dataclasses
import shutil
from typing import Any

from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from deja.lsp.params import plain
from deja.query import History
from tests.lsp.conftest import EDIT_SESSION, OTHER_SESSION, SERVER, Client, World, stop, until


async def start(world: World) -> tuple[Client, list[dict[str, Any]]]:
    """A VS Code-like client that records `deja/storeStatus` from before `initialized`."""
    lsp = await ClientServerConfig(server_command=SERVER, server_env=world.env).start()
    assert isinstance(lsp, LanguageClient)
    client = Client(lsp)
    statuses: list[dict[str, Any]] = []

    def store_status(params: Any) -> None:
        statuses.append(plain(params))

    lsp.feature("deja/storeStatus")(store_status)
    await lsp.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            initialization_options={"notifications": True},
            workspace_folders=[types.WorkspaceFolder(world.project.as_uri(), "proj")],
        )
    )
    return client, statuses


def indexed_before(world: World) -> None:
    history = History(world.home, world.store)
    try:
        assert history.refresh().changed == 2
    finally:
        history.close()


async def sessions_deleted(client: Client) -> dict[str, bool]:
    result = await client.request("deja/sessions", {"scope": "all"})
    return {s["id"]: s["deleted"] for s in result["sessions"]}


def refusal_logs(client: Client) -> list[types.LogMessageParams]:
    return [m for m in client.lsp.log_messages if "not applied" in m.message]


async def test_store_missing_at_start_is_reported_not_applied(world: World) -> None:
    indexed_before(world)
    aside = world.base / "aside"
    (world.store / "sessions").rename(aside)
    client, statuses = await start(world)
    try:
        await client.indexed()
        await until(lambda: statuses, what="deja/storeStatus")
        (status,) = statuses
        assert status["ok"] is False and status["problem"] == "missing"
        assert str(world.store / "sessions") in status["message"]
        end = client.lsp.progress_reports["deja/indexing"][-1]
        assert isinstance(end, types.WorkDoneProgressEnd) and end.message is not None
        assert "not applied" in end.message
        (line,) = refusal_logs(client)
        assert line.type == types.MessageType.Warning and "Traceback" not in line.message
        assert await sessions_deleted(client) == {EDIT_SESSION: False, OTHER_SESSION: False}

        aside.rename(world.store / "sessions")
        await until(lambda: len(statuses) == 2, what="the store to be back")
        assert statuses[1] == {"ok": True, "problem": None, "message": None}
        assert len(refusal_logs(client)) == 1  # said once, not every tick
    finally:
        await stop(client)


async def test_store_emptied_while_watching_is_reported_not_applied(world: World) -> None:
    client, statuses = await start(world)
    try:
        await client.indexed()
        aside = world.base / "aside"
        shutil.move(world.store / "sessions", aside)
        (world.store / "sessions").mkdir()
        await until(lambda: statuses, what="deja/storeStatus")
        assert statuses[0]["ok"] is False and statuses[0]["problem"] == "empty"
        assert "--accept-empty" in statuses[0]["message"]
        assert await sessions_deleted(client) == {EDIT_SESSION: False, OTHER_SESSION: False}
        assert not any(EDIT_SESSION in ids for ids in client.index_changes[1:])
        assert len(refusal_logs(client)) == 1
    finally:
        await stop(client)


async def test_a_bad_setting_is_one_message_naming_it(world: World) -> None:
    bad = dataclasses.replace(world, env={**world.env, "DEJA_MAX_SESSION_BYTES": "-5"})
    client, _ = await start(bad)
    try:
        await client.indexed()
        end = client.lsp.progress_reports["deja/indexing"][-1]
        assert isinstance(end, types.WorkDoneProgressEnd) and end.message == "failed (see the log)"
        (message,) = client.lsp.messages
        assert message.type == types.MessageType.Error
        assert "DEJA_MAX_SESSION_BYTES must be a positive whole number" in message.message
        assert "'-5'" in message.message and "Traceback" not in client.logs()
    finally:
        await stop(client)
