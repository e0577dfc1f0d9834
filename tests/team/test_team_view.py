"""What the editor's search view asks of the sidecar about the team: `deja/teamStatus` before
and after `deja team connect`, and a team `deja/search` that counts its hits (`count`), pages
with `offset` and says where the matched words are (`highlights`)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from deja.lsp.params import plain
from tests.support.storebuilder import assistant, session_doc, user, write_session

from .conftest import Member

pytestmark = pytest.mark.asyncio


async def started(member: Member, folder: Path) -> LanguageClient:
    config = ClientServerConfig(
        server_command=[sys.executable, "-m", "deja", "serve"], server_env=member.env()
    )
    lsp = await config.start()
    assert isinstance(lsp, LanguageClient)
    await lsp.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            workspace_folders=[types.WorkspaceFolder(folder.as_uri(), "w")],
        )
    )
    return lsp


async def ask(lsp: LanguageClient, method: str, params: dict[str, Any]) -> Any:
    return plain(await lsp.protocol.send_request_async(method, params))


async def test_team_status_and_a_counted_paged_team_search(
    owner: Member, member_factory, tmp_path: Path
) -> None:
    alice: Member = member_factory("alice")
    turns = [user(f"walrus question {n}") for n in range(5)] + [assistant("walrus answer")]
    doc = session_doc("eeee5555-0000-0000-0000-000000000001", turns, workspace="/w/zoo")
    write_session(alice.store, doc)
    owner.ok("team", "grant", "zoo", "alice")
    lsp = await started(alice, tmp_path)
    try:
        before = await ask(lsp, "deja/teamStatus", {})
        assert before["configured"] is False and "deja team connect" in before["reason"]
        alice.connect()
        alice.ok("team", "share", "/w/zoo")
        alice.ok("team", "push")
        after = await ask(lsp, "deja/teamStatus", {})
        assert after == {"configured": True, "name": "Alice", "reason": None}
        asked = {"query": "walrus", "scope": "team", "limit": 4, "count": True}
        first = await ask(lsp, "deja/search", asked)
        assert first["total"] == 6 and len(first["hits"]) == 4
        rest = await ask(lsp, "deja/search", {**asked, "offset": 4})
        assert len(rest["hits"]) == 2
        keys = {(h["session_id"], h["turn"]) for h in first["hits"] + rest["hits"]}
        assert len(keys) == 6  # the two pages do not overlap
        for hit in first["hits"]:
            assert [hit["snippet_text"][a:b].lower() for a, b in hit["highlights"]] == ["walrus"]
        uncounted = await ask(lsp, "deja/search", {"query": "walrus", "scope": "team"})
        assert uncounted["total"] is None
    finally:
        await lsp.shutdown_session()
        await lsp.stop()
