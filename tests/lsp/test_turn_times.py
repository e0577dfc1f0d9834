"""The sidecar dates a turn it sees appear in an old session inside the window between its two
observations of the file, so `deja/search` with `since: "1h"` finds it (issue 13)."""

from __future__ import annotations

import json
import os
import time

import pytest
from pygls.exceptions import JsonRpcInvalidParams

from tests.lsp.conftest import EDIT_SESSION, World, edit_session, start, stop, until
from tests.support.storebuilder import assistant, user

WEEK = 7 * 86_400


async def test_since_finds_a_turn_added_now_to_an_old_session(world: World) -> None:
    path = world.store / "sessions" / f"{EDIT_SESSION}.json"
    week_ago = time.time() - WEEK
    os.utime(path, (week_ago, week_ago))  # the session was last written a week ago
    client = await start(world)
    try:
        await client.indexed()
        old = await client.request("deja/search", {"query": "parse_config", "since": "1h"})
        assert old["hits"] == []
        # Its turns are dated from its dateCreated (2025-06-18), one second apart.
        dated = await client.request(
            "deja/search", {"query": "parse_config", "since": "2025-06-18"}
        )
        assert dated["hits"] and {hit["time"][:10] for hit in dated["hits"]} == {"2025-06-18"}
        doc = edit_session(world.project)
        doc["history"] += [user("make parse_config read toml"), assistant("It reads toml now")]
        seen = len(client.index_changes)
        path.write_text(json.dumps(doc, indent=2))  # the user resumed it today
        await until(
            lambda: any(EDIT_SESSION in ids for ids in client.index_changes[seen:]),
            what="deja/indexChanged",
        )
        found = await client.request("deja/search", {"query": "toml", "since": "1h"})
        assert sorted(hit["turn"] for hit in found["hits"]) == [5, 6]
        recent = await client.request("deja/search", {"query": "parse_config", "since": "1h"})
        assert [hit["turn"] for hit in recent["hits"]] == [5]
        with pytest.raises(JsonRpcInvalidParams, match="since: 'soon' is not a duration"):
            await client.request("deja/search", {"query": "toml", "since": "soon"})
        assert (await client.request("deja/search", {"query": "toml"}))["hits"]
    finally:
        await stop(client)
