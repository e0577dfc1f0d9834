"""Starting the sidecar when things are wrong: bad initializationOptions get one clear message
and the defaults; an index that cannot be opened is reported and every request says so."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from deja.cli.main import UsageError, build_parser
from tests.lsp.conftest import EDIT_SESSION, World, start, stop, until


async def test_bad_options_get_a_clear_message_and_the_defaults(world: World) -> None:
    options = {"scope": "everywhere", "continueRoot": 42, "dejaHome": "relative/home", "x": 1}
    client = await start(world, options=options)
    try:
        (message,) = client.lsp.messages
        assert message.type == types.MessageType.Warning
        for needle in ("'everywhere'", "continueRoot", "dejaHome", "unknown option 'x'"):
            assert needle in message.message
        assert "initializationOptions" in client.logs()
        await client.indexed()
        assert (world.home / "index.sqlite3").exists()  # DEJA_HOME, the default
        sessions = await client.request("deja/sessions", {})  # the default scope: workspace
        assert [s["id"] for s in sessions["sessions"]] == [EDIT_SESSION]
    finally:
        await stop(client)


async def test_an_index_that_cannot_be_opened_is_reported(world: World) -> None:
    blocker = world.base / "a-file"
    blocker.write_text("not a folder")
    client = await start(world, options={"dejaHome": str(blocker / "home")})
    try:
        await until(
            lambda: any(m.type == types.MessageType.Error for m in client.lsp.messages),
            what="an error message",
        )
        assert "the index could not be opened" in client.lsp.messages[-1].message
        with pytest.raises(JsonRpcInvalidParams, match="the index could not be opened"):
            await client.request("deja/search", {"query": "parse_config"})
        uri = client.open(world.config_py)
        hover = await client.lsp.text_document_hover_async(
            types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(4, 6))
        )
        assert hover is None  # nothing to say, and no error in the user's face
    finally:
        await stop(client)


def test_serve_takes_a_port() -> None:
    parser = build_parser()
    assert parser.parse_args(["serve"]).tcp is None
    assert parser.parse_args(["serve", "--tcp", "2087"]).tcp == 2087
    with pytest.raises(UsageError, match="a port is 1"):
        parser.parse_args(["serve", "--tcp", "70000"])
