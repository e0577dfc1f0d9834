"""The sidecar's deep model, end to end: it reads every record in the background and says so in
its log; `deja/search` then finds, by meaning only, a paraphrase the static model misses; a
turn Continue adds later is read too (the watcher indexes it, the deep model follows) and found
the same way."""

from __future__ import annotations

import pytest

from deja.live_deep import CAUGHT_UP as DEEP_CAUGHT_UP
from tests.lsp.conftest import Client, World, start, stop, until
from tests.support.paraphrases import (
    BUTTONS,
    REPORTS,
    REPORTS_QUESTION,
    UPLOADS_QUESTION,
    add_uploads_turn,
    write_paraphrased,
)

pytestmark = [pytest.mark.semantic, pytest.mark.asyncio]

CAUGHT_UP = "deja: " + DEEP_CAUGHT_UP.split("(")[0]


def caught_up(client: Client) -> int:
    """How many times the sidecar has said the deep model read every record."""
    return sum(m.message.startswith(CAUGHT_UP) for m in client.lsp.log_messages)


async def first_by_meaning(client: Client, question: str) -> tuple[str, bool]:
    found = await client.request("deja/search", {"query": question, "scope": "all"})
    assert found["hits"], found
    first = found["hits"][0]
    return first["session_id"], first["meaning_only"]


async def test_the_sidecar_finds_what_only_the_deep_model_finds(world: World) -> None:
    world.env.pop("DEJA_SEMANTIC", None)
    write_paraphrased(world.store)
    client = await start(world)
    try:
        await until(lambda: caught_up(client) == 1, 180, "the deep model to read every record")
        assert await first_by_meaning(client, REPORTS_QUESTION) == (REPORTS, True)
        client.index_changes.clear()
        add_uploads_turn(world.store)
        await until(lambda: client.changed(BUTTONS), 60, "the watcher to index the new turn")
        await until(lambda: caught_up(client) == 2, 180, "the deep model to read the new turn")
        assert await first_by_meaning(client, UPLOADS_QUESTION) == (BUTTONS, True)
    finally:
        await stop(client)
