"""`deja/recover`, `deja/lostSessions` and `deja/export` through the real sidecar: a session
whose file was deleted is listed as kept by Deja, written back as a new Continue session (a dry
run writes nothing), and exported as HTML and Markdown."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from pygls.exceptions import JsonRpcInvalidParams

from tests.lsp.conftest import EDIT_SESSION, OTHER_SESSION, Client, World, start, stop
from tests.support.continue_schema import check_session
from tests.support.storebuilder import snapshot

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def client(shared_world: World) -> AsyncIterator[Client]:
    started = await start(shared_world)
    await started.indexed()
    (shared_world.store / "sessions" / f"{EDIT_SESSION}.json").unlink()
    for _ in range(500):  # until the sidecar reports the deletion (its watcher's pass)
        if (await started.request("deja/lostSessions", {"scope": "all"}))["sessions"]:
            break
        await asyncio.sleep(0.02)
    yield started
    await stop(started)


async def test_lost_sessions_lists_the_deleted_one(client: Client) -> None:
    lost = await client.request("deja/lostSessions", {"scope": "all"})
    assert [(s["id"], s["lost"], s["only_deja"]) for s in lost["sessions"]] == [
        (EDIT_SESSION, "deleted", 5)
    ]
    here = await client.request("deja/lostSessions", {})  # the editor's folder: the project
    assert [s["id"] for s in here["sessions"]] == [EDIT_SESSION]


async def test_recover_dry_run_writes_nothing_then_recover_writes(
    client: Client, shared_world: World
) -> None:
    before = snapshot(shared_world.store)
    dry = await client.request("deja/recover", {"sessionId": EDIT_SESSION, "dryRun": True})
    assert not dry["written"] and snapshot(shared_world.store) == before
    check_session(dry["document"])
    done = await client.request("deja/recover", {"sessionId": EDIT_SESSION})
    assert done["written"] and done["fork"]["argv"] == ["cn", "--fork", done["new_id"]]
    written = json.loads((shared_world.store / "sessions" / f"{done['new_id']}.json").read_text())
    check_session(written)
    # The session is CLI-shaped (no message ids): the CLI writes a plain path.
    assert written["workspaceDirectory"] == str(shared_world.project)
    with pytest.raises(JsonRpcInvalidParams, match="nothing to recover"):
        await client.request("deja/recover", {"sessionId": OTHER_SESSION})
    with pytest.raises(JsonRpcInvalidParams, match="sessionId"):
        await client.request("deja/recover", {})


async def test_export_gives_html_and_markdown(client: Client) -> None:
    page = await client.request("deja/export", {"sessionId": EDIT_SESSION, "format": "html"})
    assert page["name"] == f"deja-session-{EDIT_SESSION[:8]}.html"
    assert page["text"].startswith("<!DOCTYPE html>") and "<script" not in page["text"]
    assert "parse_config leaks a file handle" in page["text"]
    markdown = await client.request("deja/export", {"sessionId": EDIT_SESSION})
    assert markdown["format"] == "md" and markdown["text"].startswith("# Make parse\\_config")
    with pytest.raises(JsonRpcInvalidParams, match="format must be one of"):
        await client.request("deja/export", {"sessionId": EDIT_SESSION, "format": "pdf"})
