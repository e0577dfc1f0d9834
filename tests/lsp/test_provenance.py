"""Provenance in the sidecar (a real `deja serve` under pytest-lsp): hover, code lens and
`deja/fileHistory` follow the editor's buffer, unsaved changes included."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from lsprotocol import types

from tests.lsp.conftest import Client, World, start, stop
from tests.support.provenance_store import (
    EDITED_LINE,
    EDITOR,
    EDITOR_TITLE,
    HAND_LINE,
    WRITER,
    WRITER_TITLE,
    build,
)


@pytest.fixture
def world(tmp_path: Path) -> World:
    project = build(tmp_path)
    env = {k: v for k, v in os.environ.items() if k not in ("CONTINUE_GLOBAL_DIR", "XDG_DATA_HOME")}
    env.update(
        DEJA_CONTINUE_ROOT=str(project.store),
        DEJA_HOME=str(project.home),
        PYTHONPATH=os.pathsep.join(sys.path),
    )
    return World(tmp_path, project.workspace, project.store, project.home, env)


@pytest_asyncio.fixture
async def client(world: World) -> AsyncIterator[Client]:
    client = await start(world)
    await client.indexed()
    yield client
    await stop(client)


def pricing(world: World) -> Path:
    return world.project / "pricing.py"


async def hover(client: Client, uri: str, line: int) -> str | None:
    found = await client.lsp.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(line, 4))
    )
    if found is None:
        return None
    assert isinstance(found.contents, types.MarkupContent)
    return found.contents.value


def type_text(client: Client, uri: str, version: int, line: int, text: str) -> None:
    """An unsaved keystroke-sized change: `text` inserted at the start of `line`."""
    at = types.Position(line, 0)
    client.lsp.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[
                types.TextDocumentContentChangePartial(range=types.Range(at, at), text=text)
            ],
        )
    )


async def test_hover_names_the_write_on_its_lines_and_the_edit_on_its_own(
    client: Client, world: World
) -> None:
    uri = client.open(pricing(world))
    written = await hover(client, uri, 1)
    assert written is not None and f"**{WRITER_TITLE}**" in written
    assert "changed since" not in written
    edited = await hover(client, uri, EDITED_LINE - 1)
    assert edited is not None and f"**{EDITOR_TITLE}**" in edited
    assert "Also edited by" not in edited
    rewritten = await hover(client, uri, EDITED_LINE - 3)  # the `def` line, as both wrote it
    assert rewritten is not None and f"**{EDITOR_TITLE}**" in rewritten
    assert f"Also edited by: {WRITER_TITLE}" in rewritten
    by_hand = await hover(client, uri, HAND_LINE - 1)
    assert by_hand is not None and f"**{WRITER_TITLE}**" in by_hand
    assert "This line was changed since that session wrote it." in by_hand


async def test_unsaved_edits_keep_the_writes_hover_on_untouched_lines(
    client: Client, world: World
) -> None:
    uri = client.open(pricing(world))
    type_text(client, uri, 2, 10, "# a note typed in the editor\n")
    type_text(client, uri, 3, 0, "import math\n")
    # Line 1 of the file on disk is now line 2 of the buffer; it is still the Write's.
    moved = await hover(client, uri, 1)
    assert moved is not None and f"**{WRITER_TITLE}**" in moved
    assert await hover(client, uri, 0) is None, "a line typed in the editor is nobody's"
    assert await hover(client, uri, 11) is None
    below = await hover(client, uri, EDITED_LINE + 1)
    assert below is not None and f"**{EDITOR_TITLE}**" in below
    history = await client.request(
        "deja/fileHistory", {"uri": uri, "position": {"line": EDITED_LINE - 1, "character": 4}}
    )
    assert [event["session_id"] for event in history["events"]] == [EDITOR, WRITER]
    edit = history["events"][0]
    assert edit["range"]["start"] == {"line": EDITED_LINE - 1, "character": 0}
    assert pricing(world).read_text().startswith("def price_0"), "nothing was saved"


async def test_code_lens_names_each_run_of_lines_once(client: Client, world: World) -> None:
    uri = client.open(pricing(world))
    lenses = await client.lsp.text_document_code_lens_async(
        types.CodeLensParams(types.TextDocumentIdentifier(uri))
    )
    assert lenses is not None
    titles = [(lens.range.start.line, lens.command.title) for lens in lenses if lens.command]
    assert titles[0][1].startswith("2 Continue sessions touched this file")
    assert titles[1:] == [
        (0, f"edited by Continue · {WRITER_TITLE}"),
        (EDITED_LINE - 3, f"edited by Continue · {EDITOR_TITLE}"),
        (EDITED_LINE, f"edited by Continue · {WRITER_TITLE}"),
    ]
