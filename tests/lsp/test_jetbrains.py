"""The LSP4IJ template (editor-extension/jetbrains): the server started exactly as the template
says (its command and initializationOptions) gives hover, code lens, and a lens's document."""

from __future__ import annotations

import fnmatch
import json
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.uris import to_fs_path

from tests.lsp.conftest import EDIT_SESSION, World, start, stop

TEMPLATE = Path(__file__).parents[2] / "editor-extension" / "jetbrains"
# What LSP4IJ declares that Deja relies on: markdown hovers, code lenses, server-initiated
# progress and window/showDocument.
LSP4IJ = types.ClientCapabilities(
    workspace=types.WorkspaceClientCapabilities(
        workspace_folders=True,
        execute_command=types.ExecuteCommandClientCapabilities(),
        code_lens=types.CodeLensWorkspaceClientCapabilities(refresh_support=True),
    ),
    text_document=types.TextDocumentClientCapabilities(
        synchronization=types.TextDocumentSyncClientCapabilities(did_save=True),
        hover=types.HoverClientCapabilities(
            content_format=[types.MarkupKind.Markdown, types.MarkupKind.PlainText]
        ),
        code_lens=types.CodeLensClientCapabilities(),
    ),
    window=types.WindowClientCapabilities(
        work_done_progress=True,
        show_document=types.ShowDocumentClientCapabilities(support=True),
    ),
)


def template() -> dict[str, Any]:
    return dict(json.loads((TEMPLATE / "template.json").read_text()))


def start_command(world: World) -> list[str]:
    """LSP4IJ's choice: the entry for this OS ("windows", "mac", "unix"), else "default"."""
    os_key = {"win32": "windows", "darwin": "mac"}.get(sys.platform, "unix")
    program = template()["programArgs"]
    command = shlex.split(program.get(os_key, program["default"]))
    assert shutil.which(command[0], path=world.env["PATH"]), command
    return command


def language_of(name: str) -> str:
    for mapping in template()["fileTypeMappings"]:
        if any(fnmatch.fnmatch(name, p) for p in mapping["fileType"]["patterns"]):
            return str(mapping["languageId"])
    raise AssertionError(f"the template maps no language to {name}")


def test_template_describes_the_server() -> None:
    data = template()
    assert data["id"] == "deja" and data["name"]
    assert data["programArgs"]["default"] == "deja serve"
    assert language_of("config.py") == "python" and language_of("app.tsx") == "typescriptreact"
    assert (TEMPLATE / "README.md").exists()


async def test_the_template_gets_hover_lens_and_a_document(world: World) -> None:
    options = json.loads((TEMPLATE / "initializationOptions.json").read_text())
    client = await start(world, options=options, capabilities=LSP4IJ, command=start_command(world))
    try:
        await client.indexed()
        assert client.lsp.messages == []  # the template's options are all valid
        uri = world.config_py.as_uri()
        client.lsp.text_document_did_open(
            types.DidOpenTextDocumentParams(
                types.TextDocumentItem(
                    uri, language_of("config.py"), 1, world.config_py.read_text()
                )
            )
        )
        hover = await client.lsp.text_document_hover_async(
            types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(4, 8))
        )
        assert hover is not None and isinstance(hover.contents, types.MarkupContent)
        assert "Make parse\\_config close its file" in hover.contents.value
        lenses = await client.lsp.text_document_code_lens_async(
            types.CodeLensParams(types.TextDocumentIdentifier(uri))
        )
        commands = [lens.command for lens in lenses or [] if lens.command]
        assert [c.command for c in commands] == ["deja.showFileHistory", "deja.showSession"]
        # Clicking a lens: LSP4IJ sends the lens's command to the server as it is.
        session_lens = commands[1]
        arguments = list(session_lens.arguments or [])
        assert arguments == [EDIT_SESSION, 2]
        result = await client.command(session_lens.command, *arguments)
        assert result["shown"] and client.lsp.shown_documents[-1].uri == result["uri"]
        shown = Path(str(to_fs_path(result["uri"]))).read_text()
        assert shown.startswith("# Make parse\\_config close its file") and "## Turn 2" in shown
    finally:
        await stop(client)
