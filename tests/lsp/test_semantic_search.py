"""The sidecar's `deja/search` with the semantic extra: a question in other words finds the
session by meaning, labelled `meaning_only`; a hit holding a word of the query is not."""

from __future__ import annotations

import pytest

from tests.lsp.conftest import EDIT_SESSION, World, start, stop

pytestmark = [pytest.mark.semantic, pytest.mark.asyncio]


async def test_deja_search_finds_by_meaning_and_says_so(world: World) -> None:
    world.env.pop("DEJA_SEMANTIC", None)
    client = await start(world)
    try:
        await client.indexed()
        found = await client.request(
            "deja/search", {"query": "leaked handles in configuration parsing", "scope": "all"}
        )
        assert found["hits"], found
        first = found["hits"][0]
        assert first["session_id"] == EDIT_SESSION and first["meaning_only"] is True
        # "handle" and "config" are in its first request (`parse_config`): not by meaning.
        worded = await client.request(
            "deja/search", {"query": "handle leak in the config parser", "scope": "all"}
        )
        assert worded["hits"][0]["session_id"] == EDIT_SESSION
        assert worded["hits"][0]["meaning_only"] is False
        words = await client.request("deja/search", {"query": "changelog", "scope": "all"})
        assert words["hits"] and words["hits"][0]["meaning_only"] is False
    finally:
        await stop(client)
