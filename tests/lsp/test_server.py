"""The sidecar end to end, as VS Code drives it: one real server for the module, started with good
initializationOptions; every custom request, hover, code lens and command."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pygls.uris import to_fs_path

from deja.query import History, Scope, SearchQuery
from deja.wire import hit_json, session_json
from tests.lsp.conftest import (
    EDIT_SESSION,
    OTHER_SESSION,
    Client,
    World,
    start,
    stop,
    until,
)
from tests.support.storebuilder import session_doc, user, write_session

pytestmark = pytest.mark.asyncio(loop_scope="module")
COMMANDS = {"deja.showFileHistory", "deja.showSession", "deja.searchHistory", "deja.forkSession"}


@pytest.fixture(scope="module")
def world(shared_world: World) -> World:
    """The environment points at an empty decoy store and home: only the options lead to the
    real ones."""
    decoy = shared_world.base / "decoy"
    (decoy / "store" / "sessions").mkdir(parents=True)
    env = {
        **shared_world.env,
        "DEJA_CONTINUE_ROOT": str(decoy / "store"),
        "DEJA_HOME": str(decoy / "home"),
    }
    return dataclasses.replace(shared_world, env=env)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def client(world: World) -> AsyncIterator[Client]:
    options = {"continueRoot": str(world.store), "dejaHome": str(world.home), "scope": "workspace"}
    started = await start(world, options=options)
    await started.indexed()
    yield started
    await stop(started)


@pytest.fixture(scope="module")
def history(world: World) -> Iterator[History]:
    """The same index, read in this process: what the CLI would answer."""
    opened = History(world.home, world.store)
    yield opened
    opened.close()


def document(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri)


async def test_initialize_with_good_options(client: Client, world: World) -> None:
    assert client.result is not None
    capabilities = client.result.capabilities
    assert client.result.server_info is not None and client.result.server_info.name == "deja"
    assert capabilities.hover_provider and capabilities.code_lens_provider
    assert capabilities.execute_command_provider is not None
    assert set(capabilities.execute_command_provider.commands) == COMMANDS
    assert capabilities.workspace and capabilities.workspace.workspace_folders
    assert capabilities.workspace.workspace_folders.change_notifications
    assert (world.home / "index.sqlite3").exists()
    assert not (world.base / "decoy" / "home").exists()
    assert client.lsp.messages == []  # nothing to complain about


async def test_first_pass_reports_progress(client: Client) -> None:
    reports = client.lsp.progress_reports["deja/indexing"]
    begin, *middle, end = reports
    assert isinstance(begin, types.WorkDoneProgressBegin) and begin.percentage == 0
    assert all(isinstance(report, types.WorkDoneProgressReport) for report in middle)
    percentages = [report.percentage for report in middle]
    assert percentages == sorted(percentages) and percentages[-1] == 100
    assert isinstance(end, types.WorkDoneProgressEnd) and end.message == "2 sessions · 2 indexed"


async def test_first_pass_tells_which_sessions_changed(client: Client) -> None:
    assert sorted(client.index_changes[0]) == sorted([EDIT_SESSION, OTHER_SESSION])


async def test_search_answers_like_the_cli(client: Client, history: History, world: World) -> None:
    everywhere = await client.request("deja/search", {"query": "pyyaml", "scope": "all"})
    expected = history.search(SearchQuery("pyyaml", scope=Scope(), limit=20)).hits
    assert everywhere["hits"] == [hit_json(hit) for hit in expected] and expected
    assert everywhere["scope"] == "all workspaces"
    here = await client.request("deja/search", {"query": "pyyaml"})
    assert here["hits"] == [] and here["scope"] == str(world.project)
    edits = await client.request("deja/search", {"query": "parse_config", "role": "edit"})
    assert {hit["role"] for hit in edits["hits"]} == {"edit"}
    changelog = await client.request(
        "deja/search", {"query": "parse_config", "file": "CHANGELOG.md"}
    )
    assert [hit["file"].rsplit("/", 1)[1] for hit in changelog["hits"]] == ["CHANGELOG.md"]
    page = await client.request("deja/search", {"query": "parse_config", "limit": 1, "offset": 1})
    assert len(page["hits"]) == 1


async def test_a_failing_request_is_an_error_not_a_crash(client: Client) -> None:
    with pytest.raises(JsonRpcInvalidParams, match="deja/search: query is required"):
        await client.request("deja/search", {"scope": "all"})
    with pytest.raises(JsonRpcInvalidParams, match="role must be one of"):
        await client.request("deja/search", {"query": "x", "role": "wizard"})
    await until(lambda: "deja/search: query is required" in client.logs(), what="a log line")
    assert (await client.request("deja/search", {"query": "pyyaml", "scope": "all"}))["hits"]


async def test_a_bad_scope_is_refused_as_every_door_refuses_it(client: Client) -> None:
    """The sidecar's search checked `scope` against the local scopes before its request did, so
    it left `team` out of the words MCP and the request say."""
    refusal = "deja/search: scope must be one of workspace, all, team, not 'mine'"
    with pytest.raises(JsonRpcInvalidParams, match=refusal):
        await client.request("deja/search", {"query": "x", "scope": "mine"})
    turn = "deja/session: turn must be a whole number from 0 to 100000000, not 'x'"
    with pytest.raises(JsonRpcInvalidParams, match=turn):
        await client.request("deja/session", {"sessionId": "feedbeef00", "turn": "x"})


async def test_sessions_follow_the_scope(client: Client, history: History) -> None:
    here = await client.request("deja/sessions", {})
    assert [s["id"] for s in here["sessions"]] == [EDIT_SESSION]
    everywhere = await client.request("deja/sessions", {"scope": "all", "limit": 10})
    assert everywhere["sessions"] == [session_json(s) for s in history.sessions(Scope(), 10)]
    assert {s["id"] for s in everywhere["sessions"]} == {EDIT_SESSION, OTHER_SESSION}


async def test_session_has_turns_and_markdown(client: Client) -> None:
    result = await client.request("deja/session", {"sessionId": EDIT_SESSION[:12]})
    assert result["session"]["id"] == EDIT_SESSION
    assert [turn["turn"] for turn in result["turns"]] == [0, 1, 2, 3, 4]
    assert result["turns"][2]["records"][-1]["hunks"][0]["written"].startswith("    with open")
    assert result["markdown"].startswith("# Make parse\\_config close its file")
    one = await client.request("deja/session", {"sessionId": EDIT_SESSION, "turn": 3})
    assert one["turns"][0]["records"][0]["text"] == "also note it in the changelog"
    with pytest.raises(JsonRpcInvalidParams, match="no session 'feedbeef00'"):
        await client.request("deja/session", {"sessionId": "feedbeef00"})


async def test_restore_gives_the_transcript_as_markdown(client: Client) -> None:
    listing = await client.request("deja/restore", {})
    assert listing["text"] == "" and listing["markdown"].startswith("```text")
    assert "Current session" in listing["markdown"], "the editor is told which session is current"
    restored = await client.request("deja/restore", {"sessionId": EDIT_SESSION})
    assert restored["restored"] == [EDIT_SESSION]
    assert restored["text"].startswith("# deja-restore-format: 1")
    assert 'User: "parse_config leaks a file handle, fix it"' in restored["markdown"]
    with pytest.raises(JsonRpcInvalidParams, match="give session numbers"):
        await client.request("deja/restore", {"selection": "x", "scope": "all"})


async def test_file_history_places_edits_in_the_document(client: Client, world: World) -> None:
    uri = client.open(world.config_py)
    result = await client.request("deja/fileHistory", {"uri": uri})
    assert result["path"] == str(world.config_py)
    edit, read = result["events"]
    assert (edit["role"], edit["status"], edit["turn"], read["role"]) == ("edit", "done", 2, "read")
    assert (
        edit["session_id"] == EDIT_SESSION and edit["title"] == "Make parse_config close its file"
    )
    assert edit["request"] == "parse_config leaks a file handle, fix it" and edit["time"]
    assert edit["hunks"][0]["replaced"] == "    return json.load(open(path))\n"
    assert edit["range"] == {
        "start": {"line": 4, "character": 0},
        "end": {"line": 5, "character": 32},
    }
    inside = await client.request(
        "deja/fileHistory", {"uri": uri, "position": {"line": 5, "character": 3}}
    )
    assert [event["role"] for event in inside["events"]] == ["edit"]
    outside = await client.request(
        "deja/fileHistory", {"uri": uri, "position": {"line": 0, "character": 0}}
    )
    assert outside["events"] == []


async def test_file_history_range_is_null_when_the_text_is_gone(
    client: Client, world: World
) -> None:
    path = world.project / "CHANGELOG.md"
    uri = client.open(path, text="# Changelog\n\nNothing yet.\n")
    (write,) = (await client.request("deja/fileHistory", {"uri": uri}))["events"]
    assert write["tool"] == "Write" and write["range"] is None
    client.lsp.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=path.read_text())],
        )
    )
    (write,) = (await client.request("deja/fileHistory", {"uri": uri}))["events"]
    assert write["range"] == {
        "start": {"line": 0, "character": 0},
        "end": {"line": 1, "character": 30},
    }


async def test_fork_command(client: Client, world: World) -> None:
    here = await client.request("deja/forkCommand", {"sessionId": EDIT_SESSION})
    assert here["command"] == "cn" and here["args"] == ["--fork", EDIT_SESSION]
    assert here["cwd"] == str(world.project) and "--fork" in here["note"]
    gone = await client.request("deja/forkCommand", {"sessionId": OTHER_SESSION})
    assert gone["cwd"] is None and "directory you start it from" in gone["note"]


async def test_hover_on_text_a_past_edit_wrote(client: Client, world: World) -> None:
    uri = client.open(world.config_py)
    hover = await client.lsp.text_document_hover_async(
        types.HoverParams(document(uri), types.Position(5, 12))
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert hover.contents.kind == types.MarkupKind.Markdown
    text = hover.contents.value
    assert "**Make parse\\_config close its file**" in text and "leaks a file handle" in text
    assert "```diff" in text and "(command:deja.showSession?" in text
    assert "(command:deja.forkSession?" in text
    assert hover.range == types.Range(types.Position(4, 0), types.Position(5, 32))
    nothing = await client.lsp.text_document_hover_async(
        types.HoverParams(document(uri), types.Position(0, 2))
    )
    assert nothing is None


async def test_code_lens(client: Client, world: World) -> None:
    uri = client.open(world.config_py)
    lenses = await client.lsp.text_document_code_lens_async(types.CodeLensParams(document(uri)))
    assert lenses is not None
    titles = {lens.range.start.line: lens.command.title for lens in lenses if lens.command}
    assert titles[0].startswith("1 Continue session touched this file · last ")
    assert titles[4] == "edited by Continue · Make parse_config close its file"


async def shown(client: Client, result: Any) -> str:
    """The document a command showed: the client was asked to open it, and it is on disk."""
    assert result["shown"] is True
    assert client.lsp.shown_documents[-1].uri == result["uri"]
    return Path(str(to_fs_path(result["uri"]))).read_text()


async def test_each_command_shows_a_document(client: Client, world: World) -> None:
    uri = world.config_py.as_uri()
    history_doc = await shown(client, await client.command("deja.showFileHistory", uri))
    assert (
        history_doc.startswith(f"# History of `{world.config_py}`") and "## Edited" in history_doc
    )
    session_doc = await shown(client, await client.command("deja.showSession", EDIT_SESSION, 2))
    assert "## Turn 2" in session_doc and "## Turn 0" not in session_doc
    by_object = await client.command("deja.showSession", {"sessionId": EDIT_SESSION})
    assert "## Turn 0" in await shown(client, by_object)
    search_doc = await shown(client, await client.command("deja.searchHistory", "parse_config"))
    assert search_doc.startswith("# Continue history: parse\\_config")
    fork_doc = await shown(client, await client.command("deja.forkSession", EDIT_SESSION))
    assert f"cn --fork {EDIT_SESSION}" in fork_doc
    for path in world.home.joinpath("views").iterdir():
        assert path.stat().st_mode & 0o077 == 0


async def test_search_command_asks_for_a_query(client: Client) -> None:
    before = len(client.message_requests)
    result = await client.command("deja.searchHistory")
    (asked,) = client.message_requests[before:]
    assert [action.title for action in asked.actions or []] == ["Make parse_config close its file"]
    assert "Make" in await shown(client, result)


async def test_a_failing_command_is_an_error(client: Client) -> None:
    with pytest.raises(JsonRpcInvalidParams, match=r"deja\.showSession: sessionId is required"):
        await client.command("deja.showSession")
    with pytest.raises(JsonRpcInvalidParams, match="no session"):
        await client.command("deja.forkSession", "feedbeef00")
    with pytest.raises(JsonRpcInvalidParams, match="has no turn 40"):
        await client.command("deja.showSession", EDIT_SESSION, 40)


async def test_workspace_folders_decide_the_scope(client: Client, world: World) -> None:
    project = types.WorkspaceFolder(world.project.as_uri(), "proj")
    elsewhere = types.WorkspaceFolder("file:///nonexistent/elsewhere", "elsewhere")

    def change(added: list[types.WorkspaceFolder], removed: list[types.WorkspaceFolder]) -> None:
        client.lsp.workspace_did_change_workspace_folders(
            types.DidChangeWorkspaceFoldersParams(
                types.WorkspaceFoldersChangeEvent(added=added, removed=removed)
            )
        )

    change([elsewhere], [project])
    found = await client.request("deja/sessions", {})
    assert [s["id"] for s in found["sessions"]] == [OTHER_SESSION]
    change([project], [elsewhere])
    found = await client.request("deja/sessions", {})
    assert [s["id"] for s in found["sessions"]] == [EDIT_SESSION]


async def test_search_reply_stays_small_whatever_the_message_size(
    client: Client, world: World
) -> None:
    """A pasted 6 MB blob once made a 200 KB `deja/search` reply: snippets are bounded."""
    huge = "5c0ffee0-9999-4aaa-8bbb-000000000009"
    write_session(
        world.store,
        session_doc(
            huge,
            [user("pasted needlework " + "na" * 3_000_000), user("zzblob" + "q" * 6_000_000)],
            title="A pasted blob",
            workspace="/nonexistent/pasted",
        ),
    )
    await until(lambda: client.changed(huge), timeout=60, what="the pasted session indexed")
    for query, match in (("needlework", "**needlework**"), ("zzblob*", "**zzblob")):
        reply = await client.request("deja/search", {"query": query, "scope": "all"})
        assert [hit["title"] for hit in reply["hits"]] == ["A pasted blob"]
        snippet = reply["hits"][0]["snippet"]
        assert match in snippet and len(snippet.replace("**", "")) <= 300
        assert len(json.dumps(reply)) < 2_000
