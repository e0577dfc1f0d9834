"""What the editor's search view asks of `deja/search`: a total when it asks for one (`count`),
pages through `offset` that add up to it, and each hit's matched words as offsets into its plain
snippet (`snippet_text`, `highlights`), right where the snippet has `**` of its own."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from pygls.exceptions import JsonRpcInvalidParams

from tests.lsp.conftest import Client, World, make_world, start, stop
from tests.support.storebuilder import assistant, session_doc, user, write_session

pytestmark = pytest.mark.asyncio(loop_scope="module")
MANY = "5c0ffee0-4444-4aaa-8bbb-000000000004"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    made = make_world(tmp_path_factory.mktemp("lsp-search-view"))
    turns: list[Any] = []
    for n in range(7):
        turns += [user(f"the okapi step {n}"), assistant(f"**bold** claim, then okapi {n} done")]
    doc = session_doc(MANY, turns, title="Okapi steps", workspace=made.project.as_uri())
    write_session(made.store, doc)
    return made


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def client(world: World) -> AsyncIterator[Client]:
    started = await start(world)
    await started.indexed()
    yield started
    await stop(started)


async def search(client: Client, **params: Any) -> Any:
    return await client.request("deja/search", params)


async def test_count_gives_the_total_and_pages_add_up_to_it(client: Client) -> None:
    first = await search(client, query="okapi", limit=5, count=True)
    assert first["total"] == 14 and len(first["hits"]) == 5
    seen = [(hit["session_id"], hit["turn"]) for hit in first["hits"]]
    offset = 5
    while offset < first["total"]:
        page = await search(client, query="okapi", limit=5, offset=offset, count=True)
        assert page["total"] == 14
        seen += [(hit["session_id"], hit["turn"]) for hit in page["hits"]]
        offset += 5
    assert len(set(seen)) == 14
    assert (await search(client, query="okapi", limit=5))["total"] is None  # not asked: not counted


async def test_highlights_point_at_the_matched_words_not_at_the_snippets_own_stars(
    client: Client,
) -> None:
    found = await search(client, query="okapi", role="assistant", limit=50)
    assert len(found["hits"]) == 7
    for hit in found["hits"]:
        text = hit["snippet_text"]
        assert text.startswith("**bold** claim")  # the session's own stars are text
        assert [text[a:b] for a, b in hit["highlights"]] == ["okapi"]


async def test_count_that_is_not_a_boolean_is_invalid_params(client: Client) -> None:
    with pytest.raises(JsonRpcInvalidParams, match="count must be true or false"):
        await search(client, query="okapi", count="yes")
    assert (await search(client, query="okapi", count=False))["hits"]  # still answering
