"""The sidecar while Continue writes: a rewritten session is re-indexed within a second and
announced; a malformed one is reported and the server keeps answering; a deleted one is marked."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from lsprotocol import types

from tests.lsp.conftest import (
    EDIT_SESSION,
    OTHER_SESSION,
    Client,
    World,
    edit_session,
    start,
    stop,
    until,
)
from tests.support.storebuilder import session_doc, user, write_session

pytestmark = pytest.mark.asyncio(loop_scope="module")
LATE_SESSION = "5c0ffee0-3333-4aaa-8bbb-000000000003"


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def client(shared_world: World) -> AsyncIterator[Client]:
    started = await start(shared_world)
    await started.indexed()
    await until(lambda: started.index_changes, what="the first deja/indexChanged")
    yield started
    await stop(started)


def changed_since(client: Client, seen: int, session_id: str) -> bool:
    return any(session_id in ids for ids in client.index_changes[seen:])


async def test_a_rewritten_session_is_reindexed_and_announced(
    client: Client, shared_world: World
) -> None:
    seen, refreshes = len(client.index_changes), client.lens_refreshes
    doc = edit_session(shared_world.project)
    doc["history"].append(user("switch the config format to toml"))
    path = shared_world.store / "sessions" / f"{EDIT_SESSION}.json"
    started = time.monotonic()
    path.write_text(json.dumps(doc, indent=2))  # in place and whole, as Continue does
    await until(lambda: changed_since(client, seen, EDIT_SESSION), what="deja/indexChanged")
    assert time.monotonic() - started < 1.0
    await until(lambda: client.lens_refreshes > refreshes, what="a code lens refresh")
    found = await client.request("deja/search", {"query": "toml"})
    assert [hit["session_id"] for hit in found["hits"]] == [EDIT_SESSION]
    assert found["hits"][0]["turn"] == 5


async def test_a_malformed_session_does_not_take_the_server_down(
    client: Client, shared_world: World
) -> None:
    seen = len(client.index_changes)
    path = shared_world.store / "sessions" / f"{LATE_SESSION}.json"
    path.write_text('{"sessionId": "' + LATE_SESSION + '", "history": [{"message": ')
    await until(
        lambda: f"cannot read {path}" in client.logs(), timeout=10, what="the unreadable file"
    )
    assert not changed_since(client, seen, LATE_SESSION)
    assert (await client.request("deja/search", {"query": "toml"}))["hits"]
    uri = client.open(shared_world.config_py)
    hover = await client.lsp.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(4, 6))
    )
    assert hover is not None
    # Continue finishes writing it: now it is read.
    write_session(
        shared_world.store,
        session_doc(LATE_SESSION, [user("websocket reconnect storm")], workspace="/w/late"),
    )
    await until(lambda: changed_since(client, seen, LATE_SESSION), what="the repaired session")
    found = await client.request("deja/search", {"query": "reconnect", "scope": "all"})
    assert [hit["session_id"] for hit in found["hits"]] == [LATE_SESSION]


async def test_a_deleted_session_is_marked_not_forgotten(
    client: Client, shared_world: World
) -> None:
    seen = len(client.index_changes)
    (shared_world.store / "sessions" / f"{OTHER_SESSION}.json").unlink()
    await until(lambda: changed_since(client, seen, OTHER_SESSION), what="the deletion")
    sessions = (await client.request("deja/sessions", {"scope": "all"}))["sessions"]
    assert {s["id"]: s["deleted"] for s in sessions}[OTHER_SESSION] is True
    assert (await client.request("deja/search", {"query": "pyyaml", "scope": "all"}))["hits"]
