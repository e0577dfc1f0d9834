"""A small world for the sidecar's tests: a project folder with a file Continue edited, a Continue
store of sessions about it, and a Deja home, all in a temporary folder. Servers are real
subprocesses (`python -m deja serve`) driven by pytest-lsp's client."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import attrs
import pytest
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from deja.lsp.params import plain
from tests.support.storebuilder import assistant, call, session_doc, user, write_session

SERVER = [sys.executable, "-m", "deja", "serve"]
EDIT_SESSION = "5c0ffee0-1111-4aaa-8bbb-000000000001"
OTHER_SESSION = "5c0ffee0-2222-4aaa-8bbb-000000000002"
OLD = "    return json.load(open(path))\n"
NEW = '    with open(path, encoding="utf-8") as handle:\n        return json.load(handle)\n'
CONFIG_PY = f"import json\n\n\ndef parse_config(path):\n{NEW}"
CHANGELOG = "## Unreleased\n- parse_config closes its file\n"


@dataclass(frozen=True)
class World:
    base: Path
    project: Path
    store: Path
    home: Path
    env: dict[str, str]

    @property
    def config_py(self) -> Path:
        return self.project / "src" / "config.py"

    def uri(self, path: Path) -> str:
        return path.as_uri()


def edit_session(project: Path) -> dict[str, Any]:
    return session_doc(
        EDIT_SESSION,
        [
            user("parse_config leaks a file handle, fix it"),
            assistant(
                "Let me read it.",
                [call("Read", {"file_path": "src/config.py"}, output=OLD, call_id="c1")],
            ),
            assistant(
                "Now it closes the file.",
                [
                    call(
                        "Edit",
                        {"file_path": "src/config.py", "old_string": OLD, "new_string": NEW},
                        output="edited",
                        call_id="c2",
                    )
                ],
            ),
            user("also note it in the changelog"),
            assistant(
                "",
                [call("Write", {"file_path": "CHANGELOG.md", "content": CHANGELOG}, call_id="c3")],
            ),
        ],
        title="Make parse_config close its file",
        workspace=project.as_uri(),
    )


def other_session() -> dict[str, Any]:
    return session_doc(
        OTHER_SESSION,
        [
            user("add a health endpoint"),
            assistant(
                "Installing the YAML parser first.",
                [
                    call(
                        "Bash",
                        {"command": "pip install pyyaml"},
                        output="Error executing tool Bash: Error (exit code 1)\n"
                        "ModuleNotFoundError: No module named 'yaml'",
                        call_id="c1",
                    )
                ],
            ),
        ],
        title="Add a health endpoint",
        workspace="/nonexistent/elsewhere",
    )


def make_world(base: Path) -> World:
    project, store, home = base / "proj", base / "continue", base / "deja-home"
    (project / "src").mkdir(parents=True)
    (project / "src" / "config.py").write_text(CONFIG_PY)
    (project / "CHANGELOG.md").write_text(CHANGELOG)
    write_session(store, edit_session(project))
    write_session(store, other_session())
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("CONTINUE_GLOBAL_DIR", "XDG_DATA_HOME")
    }
    env.update(
        DEJA_CONTINUE_ROOT=str(store),
        DEJA_HOME=str(home),
        PATH=os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")]),
        PYTHONPATH=os.pathsep.join(sys.path),
    )
    return World(base, project, store, home, env)


@pytest.fixture
def world(tmp_path: Path) -> World:
    return make_world(tmp_path)


@pytest.fixture(scope="module")
def shared_world(tmp_path_factory: pytest.TempPathFactory) -> World:
    return make_world(tmp_path_factory.mktemp("lsp"))


async def until(check: Callable[[], Any], timeout: float = 10.0, what: str = "") -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = check()
        if result:
            return result
        await asyncio.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what or check}")


async def first_pass(lsp: LanguageClient) -> None:
    """Wait until the server's first pass is over (its progress ended)."""
    await until(
        lambda: any(
            isinstance(report, types.WorkDoneProgressEnd)
            for report in lsp.progress_reports.get("deja/indexing", [])
        ),
        what="the first pass to end",
    )


class Client:
    """A pytest-lsp client plus what Deja sends it (index changes) and what it answers."""

    def __init__(self, lsp: LanguageClient) -> None:
        self.lsp = lsp
        self.result: types.InitializeResult | None = None
        self.index_changes: list[list[str]] = []
        self.message_requests: list[types.ShowMessageRequestParams] = []
        self.lens_refreshes = 0

        # pygls marks handlers with attributes, so they are plain functions, not methods.
        def index_changed(params: Any) -> None:
            self.index_changes.append(list(plain(params)["sessions"]))

        def message_request(
            params: types.ShowMessageRequestParams,
        ) -> types.MessageActionItem | None:
            self.message_requests.append(params)
            return params.actions[0] if params.actions else None

        def lens_refresh(params: None) -> None:
            self.lens_refreshes += 1

        lsp.feature("deja/indexChanged")(index_changed)
        lsp.feature(types.WORKSPACE_CODE_LENS_REFRESH)(lens_refresh)
        lsp.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)(message_request)

    async def request(self, method: str, params: dict[str, Any]) -> Any:
        return plain(await self.lsp.protocol.send_request_async(method, params))

    async def command(self, command: str, *arguments: Any) -> Any:
        params = types.ExecuteCommandParams(command=command, arguments=list(arguments))
        return plain(await self.lsp.workspace_execute_command_async(params))

    def changed(self, session_id: str) -> bool:
        return any(session_id in ids for ids in self.index_changes)

    def logs(self) -> str:
        return "\n".join(message.message for message in self.lsp.log_messages)

    async def indexed(self) -> None:
        await first_pass(self.lsp)

    def open(self, path: Path, text: str | None = None, version: int = 1) -> str:
        uri = path.as_uri()
        self.lsp.text_document_did_open(
            types.DidOpenTextDocumentParams(
                types.TextDocumentItem(
                    uri=uri,
                    language_id="python",
                    version=version,
                    text=path.read_text() if text is None else text,
                )
            )
        )
        return uri


def opted_in(capabilities: types.ClientCapabilities) -> types.ClientCapabilities:
    """A client's capabilities plus the opt-in to Deja's `deja/*` notifications."""
    return attrs.evolve(capabilities, experimental={"deja": {"notifications": True}})


async def start(
    world: World,
    *,
    options: Any = None,
    folders: list[Path] | None = None,
    capabilities: types.ClientCapabilities | None = None,
    command: list[str] | None = None,
    prepare: Callable[[Client], Any] | None = None,
) -> Client:
    """A started and initialized server; `prepare` sees the client before `initialize`."""
    config = ClientServerConfig(server_command=command or SERVER, server_env=world.env)
    lsp = await config.start()
    assert isinstance(lsp, LanguageClient)
    client = Client(lsp)
    if prepare is not None:
        prepare(client)
    folders = [world.project] if folders is None else folders
    client.result = await lsp.initialize_session(
        types.InitializeParams(
            capabilities=capabilities or opted_in(client_capabilities("visual-studio-code")),
            initialization_options=options,
            workspace_folders=[types.WorkspaceFolder(f.as_uri(), f.name) for f in folders],
            root_uri=folders[0].as_uri() if folders else None,
        )
    )
    return client


async def stop(client: Client) -> None:
    await client.lsp.shutdown_session()
    await client.lsp.stop()


FORK_SESSION = "f0f0f0f0-3333-4aaa-8bbb-000000000003"
FORK_TITLE = "Carry on with the config work"
# cn --fork gives the fork a fresh start date (sessions.json's dateCreated): a day later.
FORK_STARTED = "1750348800000"


def fork_doc(world: World) -> dict[str, Any]:
    """A `cn --fork` of the edit session: its history, then a turn of its own."""
    doc = edit_session(world.project)
    doc["sessionId"], doc["title"] = FORK_SESSION, FORK_TITLE
    doc["history"] = [
        *doc["history"],
        user("now write the release notes"),
        assistant(
            "",
            [call("Write", {"file_path": "NOTES.md", "content": "notes\n"}, call_id="f1")],
        ),
    ]
    return doc
