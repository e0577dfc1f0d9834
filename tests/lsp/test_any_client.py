"""The sidecar for clients that are not VS Code, each configured as the real one is (Neovim, eglot,
ALE, lsp-mode, sansio-lsp-client): progress is decoration, `deja/*` notifications only when asked
for, plain-text hovers, the hover's actions as code actions, `[]` as empty params, a lens that
counts what it says, a missing store said once, and a quiet stderr for ordinary traffic."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import client_capabilities

from tests.lsp.conftest import (
    CONFIG_PY,
    EDIT_SESSION,
    OLD,
    Client,
    World,
    opted_in,
    start,
    stop,
    until,
)
from tests.lsp.test_malformed import raw_server
from tests.support.storebuilder import assistant, call, session_doc, user, write_session

pytestmark = pytest.mark.asyncio
VSCODE = client_capabilities("visual-studio-code")
OPTED_IN_VSCODE = opted_in(VSCODE)
# Neovim 0.7 as it initializes: work-done progress, markdown then plain text, no showDocument.
NEOVIM = types.ClientCapabilities(
    window=types.WindowClientCapabilities(work_done_progress=True),
    text_document=types.TextDocumentClientCapabilities(
        hover=types.HoverClientCapabilities(
            content_format=[types.MarkupKind.Markdown, types.MarkupKind.PlainText]
        )
    ),
)
# eglot 1.9 without markdown-mode, and ALE: plain text only, no progress.
PLAIN = types.ClientCapabilities(
    text_document=types.TextDocumentClientCapabilities(
        hover=types.HoverClientCapabilities(content_format=[types.MarkupKind.PlainText])
    )
)


def never_answers_progress(client: Client) -> tuple[list[Any], asyncio.Event]:
    """The client declares progress but does not answer `window/workDoneProgress/create` until
    the event is set (at the end of the test, so that the client can stop): then with an error."""
    asked: list[Any] = []
    release = asyncio.Event()

    async def create(params: types.WorkDoneProgressCreateParams) -> None:
        asked.append(params.token)
        await release.wait()
        raise RuntimeError("this client shows no progress")

    client.lsp.protocol.fm.features.pop(types.WINDOW_WORK_DONE_PROGRESS_CREATE)
    client.lsp.feature(types.WINDOW_WORK_DONE_PROGRESS_CREATE)(create)
    return asked, release


async def hover_once_indexed(client: Client, params: types.HoverParams) -> types.Hover:
    """The hover, asked again until the first pass has indexed the edit (the client here may
    take neither progress nor Deja's notifications)."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        hover = await client.lsp.text_document_hover_async(params)
        if hover is not None:
            return hover
        await asyncio.sleep(0.05)
    raise AssertionError("no hover on the edited line")


def hover_at(uri: str, line: int, character: int = 4) -> types.HoverParams:
    return types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(line, character))


async def test_indexing_never_waits_for_the_progress_the_client_does_not_create(
    world: World,
) -> None:
    held: list[tuple[list[Any], asyncio.Event]] = []
    client = await start(
        world,
        options={"notifications": True},
        capabilities=NEOVIM,
        prepare=lambda started: held.append(never_answers_progress(started)),
    )
    ((asked, release),) = held
    try:
        await until(lambda: client.changed(EDIT_SESSION), what="the first pass, not waiting")
        assert asked == ["deja/indexing"]  # asked, never answered
        found = await client.request("deja/search", {"query": "parse_config"})
        assert found["hits"] and not found["notes"]
        uri = client.open(world.config_py)
        hover = await client.lsp.text_document_hover_async(hover_at(uri, 4))
        assert hover is not None
        assert client.lsp.progress_reports.get("deja/indexing", []) == []
    finally:
        release.set()
        await stop(client)
    assert "Traceback" not in client.logs()


@pytest.mark.parametrize(
    ("options", "capabilities", "sent"),
    [
        (None, VSCODE, False),
        ({"notifications": True}, VSCODE, True),
        (None, opted_in(VSCODE), True),
        ({"notifications": False}, VSCODE, False),
    ],
    ids=["not asked", "initializationOptions", "capability", "declined"],
)
async def test_deja_notifications_only_to_a_client_that_asked(
    world: World, options: Any, capabilities: types.ClientCapabilities, sent: bool
) -> None:
    client = await start(world, options=options, capabilities=capabilities)
    try:
        # Lenses are refreshed right after the index change is (or is not) sent.
        await until(lambda: client.lens_refreshes, what="the code lens refresh of the first pass")
        assert client.changed(EDIT_SESSION) is sent
    finally:
        await stop(client)


@pytest.mark.parametrize(
    ("capabilities", "kind"),
    [
        (PLAIN, types.MarkupKind.PlainText),
        (NEOVIM, types.MarkupKind.Markdown),
        (OPTED_IN_VSCODE, types.MarkupKind.Markdown),
    ],
    ids=["plaintext only", "markdown first", "vscode"],
)
async def test_hover_in_the_clients_first_format(
    world: World, capabilities: types.ClientCapabilities, kind: types.MarkupKind
) -> None:
    client = await start(world, capabilities=capabilities)
    try:
        uri = client.open(world.config_py)
        hover = await hover_once_indexed(client, hover_at(uri, 4))
        assert isinstance(hover.contents, types.MarkupContent)
        assert hover.contents.kind == kind
        text = hover.contents.value
        if kind == types.MarkupKind.PlainText:
            assert text.splitlines()[0].startswith("Make parse_config close its file · ")
            assert "Asked: parse_config leaks a file handle, fix it" in text
            assert f"- {OLD.rstrip()}" in text and "+         return json.load(handle)" in text
            for markup in ("**", "```", "command:", "\\_", "> "):
                assert markup not in text, markup
            assert "code actions" in text.lower()
        else:
            assert "**Make parse\\_config close its file**" in text
            # Links run only where the client takes Deja's own protocol (the VS Code extension).
            assert ("command:" in text) is (capabilities is OPTED_IN_VSCODE)
            assert ("code actions" in text.lower()) is (capabilities is not OPTED_IN_VSCODE)
    finally:
        await stop(client)


async def test_code_actions_on_an_edited_line_run_as_server_commands(world: World) -> None:
    client = await start(world, options={"notifications": True}, capabilities=NEOVIM)
    try:
        await until(lambda: client.changed(EDIT_SESSION), what="the first pass")
        uri = client.open(world.config_py)
        written = types.Range(types.Position(4, 0), types.Position(4, 0))
        actions = await client.lsp.text_document_code_action_async(
            types.CodeActionParams(
                types.TextDocumentIdentifier(uri), written, types.CodeActionContext([])
            )
        )
        assert actions is not None
        commands = [action for action in actions if isinstance(action, types.Command)]
        assert [(c.command, list(c.arguments or [])) for c in commands] == [
            ("deja.showSession", [EDIT_SESSION, 2]),
            ("deja.forkSession", [EDIT_SESSION]),
            ("deja.showFileHistory", [uri]),
        ]
        assert "Make parse_config close its file" in commands[0].title
        # No showDocument (Neovim 0.7): the command writes the document and names it.
        result = await client.command(commands[0].command, *(commands[0].arguments or []))
        assert result["shown"] is False
        path = Path(result["uri"].removeprefix("file://"))
        assert path.read_text().startswith("# Make parse\\_config close its file")
        assert [m.message for m in client.lsp.messages] == [f"Deja: wrote {path}"]
        # A line no session wrote offers the file's history only; quick fixes, nothing.
        top = types.Range(types.Position(0, 0), types.Position(0, 0))
        at_top = await client.lsp.text_document_code_action_async(
            types.CodeActionParams(
                types.TextDocumentIdentifier(uri), top, types.CodeActionContext([])
            )
        )
        assert [a.title for a in at_top or []] == ["Deja: file history"]
        fixes = await client.lsp.text_document_code_action_async(
            types.CodeActionParams(
                types.TextDocumentIdentifier(uri),
                written,
                types.CodeActionContext([], only=[types.CodeActionKind.QuickFix]),
            )
        )
        assert fixes is not None and list(fixes) == []
    finally:
        await stop(client)


async def test_empty_params_as_an_empty_array(world: World) -> None:
    client = await start(world, options={"notifications": True, "scope": "all"})
    try:
        await until(lambda: client.changed(EDIT_SESSION), what="the first pass")
        sessions = await client.lsp.protocol.send_request_async("deja/sessions", [])
        assert len(sessions.sessions) == 2
        restored = await client.lsp.protocol.send_request_async("deja/restore", [])
        assert "Make parse_config close its file" in restored.markdown
        status = await client.lsp.protocol.send_request_async("deja/teamStatus", [])
        assert status is not None
    finally:
        await stop(client)


def lens_world(world: World) -> None:
    """Besides the session that edited config.py: one whose Edit was refused, one whose Write
    errored, one that only read the file."""
    project = world.project
    refused = call(
        "Edit",
        {"file_path": "src/config.py", "old_string": "json", "new_string": "yaml"},
        status="canceled",
        call_id="r1",
    )
    errored = call(
        "Write",
        {"file_path": "src/config.py", "content": "broken\n"},
        output="Error executing tool Write: disk full",
        status="errored",
        call_id="e1",
    )
    read = call("Read", {"file_path": "src/config.py"}, output=CONFIG_PY, call_id="d1")
    for number, (asked, tool_call) in enumerate(
        [("use yaml", refused), ("rewrite it", errored), ("explain it", read)], start=1
    ):
        doc = session_doc(
            f"5c0ffee0-9999-4aaa-8bbb-00000000000{number}",
            [user(asked), assistant("", [tool_call])],
            title=asked,
            workspace=project.as_uri(),
        )
        write_session(world.store, doc)


async def test_the_file_lens_counts_the_sessions_that_changed_the_file(world: World) -> None:
    lens_world(world)
    client = await start(world, options={"notifications": True})
    try:
        await until(lambda: client.changed(EDIT_SESSION), what="the first pass")
        uri = client.open(world.config_py)
        history = await client.request("deja/fileHistory", {"uri": uri})
        assert len({event["session_id"] for event in history["events"]}) == 4
        lenses = await client.lsp.text_document_code_lens_async(
            types.CodeLensParams(types.TextDocumentIdentifier(uri))
        )
        top = (lenses or [])[0].command
        assert top is not None and top.title.startswith("1 Continue session touched this file")
    finally:
        await stop(client)


async def test_a_missing_store_is_one_warning_for_a_client_without_store_status(
    world: World,
) -> None:
    sessions, aside = world.store / "sessions", world.base / "aside"
    sessions.rename(aside)
    client = await start(world, capabilities=NEOVIM)

    def logged(words: str) -> int:
        return sum(words in m.message for m in client.lsp.log_messages)

    try:
        await until(lambda: logged("not applied"), what="the refused first pass")
        aside.rename(sessions)
        await until(lambda: logged("is back"), what="the store to be back")
        sessions.rename(aside)
        await until(lambda: logged("not applied") == 2, what="the store to be gone again")
        (warning,) = client.lsp.messages
        assert warning.type == types.MessageType.Warning
        assert str(sessions) in warning.message and "not applied" in warning.message
    finally:
        await stop(client)


async def test_ordinary_traffic_leaves_stderr_quiet_and_garbage_gets_a_parse_error(
    world: World,
) -> None:
    stderr = world.base / "stderr.txt"
    async with raw_server(world, stderr) as client:
        client.notify("workspace/didChangeConfiguration", {"settings": {}})
        saved = {"textDocument": {"uri": world.config_py.as_uri()}, "text": CONFIG_PY}
        client.notify("textDocument/didSave", saved)  # eglot, on every save
        client.notify("$/setTrace", {"value": "off"})
        listed = await client.request("deja/sessions", {})
        assert "result" in listed
        client.notify("$/cancelRequest", {"id": listed["id"]})  # crossed the answer
        body = b"{not json"
        assert client.process.stdin is not None
        client.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        await until(lambda: client.unrelated, what="the answer to a frame that is not JSON")
        (answer,) = client.unrelated
        assert answer["id"] is None and answer["error"]["code"] == -32700
        assert "not JSON" in answer["error"]["message"]
        assert "result" in await client.request("deja/sessions", {})  # still serving
    assert stderr.read_text() == ""
