"""Forks through the sidecar (issue 13): a fork of the session that edited config.py copies that
edit; hover, code lens, file history and search still name only the parent, and the fork's
session results carry `forked_from`/`fork_turn` and say so in their markdown. The fork arrives
after the first pass (incremental) and its parent is already indexed."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from tests.lsp.conftest import (
    EDIT_SESSION,
    FORK_SESSION,
    FORK_STARTED,
    FORK_TITLE,
    Client,
    World,
    fork_doc,
    start,
    stop,
    until,
)
from tests.support.storebuilder import write_session

pytestmark = pytest.mark.asyncio(loop_scope="module")
INHERITED = 5  # the parent's history items the fork copied


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def client(shared_world: World) -> AsyncIterator[Client]:
    started = await start(shared_world)
    await started.indexed()
    # cn --fork gives the fork a fresh start date: a day after the parent's.
    write_session(shared_world.store, fork_doc(shared_world), date_created=FORK_STARTED)
    await until(lambda: started.changed(FORK_SESSION), what="the fork indexed")
    yield started
    await stop(started)


async def test_sessions_carry_the_fork(client: Client) -> None:
    listed = await client.request("deja/sessions", {"scope": "all"})
    by_id = {s["id"]: s for s in listed["sessions"]}
    fork = by_id[FORK_SESSION]
    assert (fork["forked_from"], fork["fork_turn"]) == (EDIT_SESSION, INHERITED)
    assert fork["forked_from_title"] == "Make parse_config close its file"
    assert by_id[EDIT_SESSION]["forked_from"] is None


async def test_session_document_says_forked_from_and_shows_own_turns(client: Client) -> None:
    shown = await client.request("deja/session", {"sessionId": FORK_SESSION})
    assert shown["session"]["forked_from"] == EDIT_SESSION
    assert [turn["turn"] for turn in shown["turns"]] == [5, 6]
    markdown = shown["markdown"]
    assert "forked from Make parse\\_config close its file (5c0ffee0) at turn 5" in markdown
    assert "leaks a file handle" not in markdown


async def test_an_inherited_turn_is_an_error_naming_the_parents(client: Client) -> None:
    with pytest.raises(JsonRpcInvalidParams) as raised:
        await client.request("deja/session", {"sessionId": FORK_SESSION, "turn": 2})
    assert f"deja show {EDIT_SESSION[:8]} --turn 2" in str(raised.value)
    own = await client.request("deja/session", {"sessionId": FORK_SESSION, "turn": 6})
    assert [turn["turn"] for turn in own["turns"]] == [6]


async def test_file_history_and_search_name_only_the_parent(
    client: Client, shared_world: World
) -> None:
    history = await client.request("deja/fileHistory", {"uri": shared_world.config_py.as_uri()})
    assert {event["session_id"] for event in history["events"]} == {EDIT_SESSION}
    found = await client.request("deja/search", {"query": "leaks", "scope": "all"})
    assert [hit["session_id"] for hit in found["hits"]] == [EDIT_SESSION]
    notes = await client.request("deja/search", {"query": "release notes", "scope": "all"})
    assert {hit["session_id"] for hit in notes["hits"]} == {FORK_SESSION}


async def test_hover_and_lens_name_the_parent(client: Client, shared_world: World) -> None:
    uri = client.open(shared_world.config_py)
    hover = await client.lsp.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(5, 12))
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "Make parse\\_config close its file" in hover.contents.value
    assert FORK_TITLE not in hover.contents.value and FORK_SESSION[:8] not in hover.contents.value
    lenses = await client.lsp.text_document_code_lens_async(
        types.CodeLensParams(types.TextDocumentIdentifier(uri))
    )
    titles = [lens.command.title for lens in lenses or [] if lens.command]
    assert titles and not any(FORK_TITLE in title for title in titles)
    assert titles[0].startswith("1 Continue session touched this file")
