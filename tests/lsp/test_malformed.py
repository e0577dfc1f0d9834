"""Malformed requests, as raw bytes on the wire (a typed client could not even send them): each
gets a JSON-RPC InvalidParams error naming the method, one log line, and no traceback on the
server's stderr; the server keeps answering."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from tests.lsp.conftest import EDIT_SESSION, SERVER, World, until

pytestmark = pytest.mark.asyncio(loop_scope="module")
INVALID_PARAMS = -32602
OMIT = object()  # no "params" member at all


class RawClient:
    """An LSP client that writes whatever JSON it is given. It keeps the server's responses by
    id and its log lines, and answers the server's own requests with null."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.ids = itertools.count(1)
        self.waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.logs: list[str] = []
        self.unrelated: list[dict[str, Any]] = []
        self.index_changes = 0
        self.reader = asyncio.ensure_future(self.read_all())

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        body = json.dumps(message).encode()
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    async def request(self, method: str, params: Any = OMIT) -> dict[str, Any]:
        message_id = next(self.ids)
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": message_id, "method": method}
        if params is not OMIT:
            message["params"] = params
        self.waiting[message_id] = asyncio.get_running_loop().create_future()
        self.send(message)
        return await asyncio.wait_for(self.waiting[message_id], 20)

    def notify(self, method: str, params: Any) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    async def read_all(self) -> None:
        assert self.process.stdout is not None
        stdout = self.process.stdout
        while True:
            length = 0
            while (header := await stdout.readline()).strip():
                name, _, value = header.decode().partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            if not length:
                return
            message = json.loads(await stdout.readexactly(length))
            if "method" not in message and message.get("id") is None:
                self.unrelated.append(message)  # an answer to what was not a request
            elif "method" not in message:
                self.waiting[message["id"]].set_result(message)
            elif "id" in message:
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
            elif message["method"] == "deja/indexChanged":
                self.index_changes += 1
            elif message["method"] == "window/logMessage":
                self.logs.append(message["params"]["message"])


@contextlib.asynccontextmanager
async def raw_server(world: World, stderr: Path) -> AsyncIterator[RawClient]:
    """A server started and initialized by a `RawClient`, shut down and exited cleanly after."""
    with stderr.open("wb") as sink:
        process = await asyncio.create_subprocess_exec(
            *SERVER,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=sink,
            env=world.env,
        )
    client = RawClient(process)
    project = world.project.as_uri()
    await client.request(
        "initialize",
        {
            "processId": None,
            "capabilities": {},
            "rootUri": project,
            "workspaceFolders": [{"uri": project, "name": "proj"}],
            "initializationOptions": {"notifications": True},
        },
    )
    client.notify("initialized", {})
    await until(lambda: client.index_changes, what="the first pass")
    yield client
    await client.request("shutdown")
    client.notify("exit", None)
    assert await asyncio.wait_for(process.wait(), 30) == 0


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def raw(shared_world: World) -> AsyncIterator[tuple[RawClient, Path]]:
    stderr = shared_world.base / "malformed-stderr.txt"
    async with raw_server(shared_world, stderr) as client:
        yield client, stderr


URI = "file:///nowhere/config.py"
MALFORMED: list[tuple[str, Any]] = [
    ("textDocument/hover", {}),
    ("textDocument/hover", OMIT),
    ("textDocument/hover", {"textDocument": {"uri": URI}, "position": {"line": "four"}}),
    (
        "textDocument/hover",
        {"textDocument": {"uri": URI}, "position": {"line": -1, "character": 0}},
    ),
    ("textDocument/hover", {"textDocument": {"uri": 5}, "position": {"line": 0, "character": 0}}),
    ("textDocument/codeLens", {}),
    ("textDocument/codeLens", {"textDocument": URI}),
    ("workspace/executeCommand", {}),
    ("workspace/executeCommand", {"command": "deja.showSession", "arguments": "nope"}),
    ("workspace/executeCommand", {"command": "deja.showSession", "arguments": [{"sessionId": 5}]}),
    ("deja/search", {"query": 5}),
    ("deja/search", "parse_config"),
    ("deja/search", {"query": "x", "limit": "ten"}),
    ("deja/search", {"query": "x", "scope": 1}),
    ("deja/search", {"query": "x", "role": ["edit"]}),
    ("deja/search", {"query": "x", "file": 3}),
    ("deja/search", {"query": {"jsonrpc": "2.0", "id": 1, "method": "deja/search"}}),
    ("deja/sessions", {"limit": "ten"}),
    ("deja/sessions", [1]),
    ("deja/sessions", {"offset": -1}),
    ("deja/session", {"sessionId": 42}),
    ("deja/session", {"sessionId": EDIT_SESSION, "turn": "two"}),
    ("deja/fileHistory", {"uri": 3}),
    ("deja/fileHistory", {"uri": URI, "position": "top"}),
    ("deja/fileHistory", {"uri": URI, "position": {"line": -1, "character": 0}}),
    ("deja/forkCommand", {"sessionId": []}),
    ("deja/restore", {"selection": 7}),
    ("deja/restore", {"topic": {"words": 1}}),
    ("deja/restore", {"scope": "everywhere"}),
    ("deja/recover", {"sessionId": 7}),
    ("deja/recover", {"sessionId": EDIT_SESSION, "dryRun": "yes"}),
    ("deja/lostSessions", {"scope": "everywhere"}),
    ("deja/export", {"sessionId": EDIT_SESSION, "format": "pdf"}),
    ("deja/export", {}),
]


@pytest.mark.parametrize(("method", "params"), MALFORMED)
async def test_a_malformed_request_gets_invalid_params(
    raw: tuple[RawClient, Path], method: str, params: Any
) -> None:
    client, _ = raw
    response = await client.request(method, params)
    assert "result" not in response
    error = response["error"]
    assert error["code"] == INVALID_PARAMS
    # Named by the method, or by the command a workspace/executeCommand asked for.
    named = params.get("command", method) if isinstance(params, dict) else method
    assert error["message"].startswith(named) and len(error["message"]) > len(named) + 5
    # One log line says it (the same words the client got).
    assert sum(error["message"] in line for line in client.logs) == 1


async def test_the_server_still_answers_and_its_stderr_has_no_traceback(
    raw: tuple[RawClient, Path], shared_world: World
) -> None:
    client, stderr = raw
    # A malformed notification has no answer to get: one log line says it.
    client.notify("textDocument/didOpen", {"textDocument": {"uri": 7}})
    found = await client.request("deja/search", {"query": "parse_config", "scope": "all"})
    assert found["result"]["hits"]
    # Custom params reach the handler as sent: pygls' own hook made a namedtuple class of them,
    # named by a `type_name` member (5 failed) and renaming members that are not identifiers.
    odd = {"query": "parse_config", "scope": "all", "type_name": 5, "not-an-identifier": 1}
    assert (await client.request("deja/search", odd))["result"] == found["result"]
    # JSON-RPC lets a request leave out `params`: the same as `{}`.
    listed = await client.request("deja/sessions")
    assert [session["id"] for session in listed["result"]["sessions"]] == [EDIT_SESSION]
    hover = await client.request(
        "textDocument/hover",
        {
            "textDocument": {"uri": shared_world.config_py.as_uri()},
            "position": {"line": 4, "character": 6},
        },
    )
    assert "leaks a file handle, fix it" in hover["result"]["contents"]["value"]
    opened = [line for line in client.logs if line.startswith("deja: textDocument/didOpen")]
    assert len(opened) == 1 and "params.textDocument" in opened[0]
    assert "Traceback" not in stderr.read_text()
