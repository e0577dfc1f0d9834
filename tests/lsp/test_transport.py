"""The sidecar's side of the wire (`deja.lsp.transport`): what it writes is what pygls' own
encoder would have written, as JSON, framed by its byte length, with orjson or without; what
`deja.jsonlib` cannot encode goes pygls' way; stdin read by the loop drops an over-long header
line and ends at EOF; a stdin the loop cannot watch (a regular file) is still served."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.protocol import JsonRPCNotification, JsonRPCRequestMessage, JsonRPCResponseMessage

from deja import jsonlib
from deja.lsp import transport
from deja.lsp.server import create_server
from tests.lsp.conftest import SERVER


class Sink:
    def __init__(self) -> None:
        self.written: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.written.append(data)

    def close(self) -> None:
        pass


def sent(message: Any) -> tuple[dict[str, str], bytes]:
    """What the sidecar's protocol writes for `message`: its headers, and its body."""
    protocol = create_server().protocol
    sink = Sink()
    protocol.set_writer(sink)
    protocol._send_data(message)
    (data,) = sink.written
    head, _, body = data.partition(b"\r\n\r\n")
    headers = dict(line.split(": ", 1) for line in head.decode("ascii").split("\r\n"))
    assert int(headers["Content-Length"]) == len(body)
    return headers, body


def pygls_json(message: Any) -> Any:
    """pygls' own encoding of `message`, parsed."""
    protocol = create_server().protocol
    return json.loads(json.dumps(message, default=protocol.serialize))


HOVER = types.Hover(
    contents=types.MarkupContent(types.MarkupKind.Markdown, "**edited** by «Fix it» 🙂"),
    range=types.Range(types.Position(1, 0), types.Position(2, 4)),
)
MESSAGES = [
    JsonRPCResponseMessage(id=1, jsonrpc="2.0", result=HOVER),
    JsonRPCResponseMessage(id="a", jsonrpc="2.0", result=None),
    JsonRPCResponseMessage(
        id=2,
        jsonrpc="2.0",
        result={"hits": [{"title": "naïve ✓", "score": 4.21, "highlights": [[0, 3]]}], "t": (1, 2)},
    ),
    JsonRPCNotification(method="deja/indexChanged", jsonrpc="2.0", params={"sessions": ["x"]}),
    JsonRPCRequestMessage(id="r", method="workspace/codeLens/refresh", jsonrpc="2.0", params=None),
    types.LogMessageNotification(
        params=types.LogMessageParams(type=types.MessageType.Warning, message="deja: ✗")
    ),
    types.ResponseErrorMessage(
        id=3, error=types.ResponseError(code=-32602, message="deja/search: query is required")
    ),
]


@pytest.mark.parametrize("message", MESSAGES, ids=lambda m: type(m).__name__)
def test_every_message_is_the_json_pygls_would_send(message: Any) -> None:
    headers, body = sent(message)
    assert headers["Content-Type"] == "application/vscode-jsonrpc; charset=utf-8"
    assert json.loads(body) == pygls_json(message)


def test_plain_results_go_through_orjson_in_utf8() -> None:
    _, body = sent(MESSAGES[2])
    assert "naïve ✓".encode() in body  # pygls' json.dumps would have escaped it


@pytest.mark.parametrize(
    "result",
    [{"count": 2**70}, {"title": "half a pair: \ud800"}, {3: "a key that is not a string"}],
    ids=["big int", "surrogate", "int key"],
)
def test_what_orjson_refuses_goes_pygls_way(result: dict[str, Any]) -> None:
    message = JsonRPCResponseMessage(id=4, jsonrpc="2.0", result=result)
    assert transport.encoded(message, lambda value: value) is None
    _, body = sent(message)
    assert json.loads(body) == pygls_json(message)


def test_without_orjson_the_json_is_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jsonlib, "orjson", None)  # the universal VS Code package
    for message in MESSAGES:
        _, body = sent(message)
        assert json.loads(body) == pygls_json(message)


def test_the_pipe_reader_drops_an_over_long_header_and_ends_at_eof() -> None:
    async def read() -> list[bytes]:
        stream = asyncio.StreamReader(limit=transport.MAX_HEADER_LINE)
        stream.feed_data(b"x" * (transport.MAX_HEADER_LINE + 10) + b"\r\n")
        stream.feed_data(b"Content-Length: 2\r\n\r\n{}{")
        stream.feed_eof()
        reader = transport.PipeReader(stream)
        lines = [await reader.readline() for _ in range(3)]
        return [*lines, await reader.readexactly(2), await reader.readexactly(5)]

    dropped, length, blank, body, cut = asyncio.run(read())
    assert dropped == transport.NOT_A_HEADER and dropped.strip()  # neither header nor the end
    assert (length, blank, body, cut) == (b"Content-Length: 2\r\n", b"\r\n", b"{}", b"{")


def frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def test_a_stdin_that_is_a_regular_file_is_still_served(tmp_path: Path) -> None:
    requests = tmp_path / "requests"
    requests.write_bytes(
        frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}})
        + frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
        + frame({"jsonrpc": "2.0", "method": "exit"})
    )
    env = {**os.environ, "DEJA_HOME": str(tmp_path / "home")}
    with requests.open("rb") as stdin:
        done = subprocess.run(SERVER, stdin=stdin, capture_output=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr.decode()
    answered = {body["id"]: body for body in messages(done.stdout) if "id" in body}
    assert answered[1]["result"]["serverInfo"]["name"] == "deja"
    assert answered[2]["result"] is None


def messages(output: bytes) -> list[dict[str, Any]]:
    found = []
    while output:
        head, _, rest = output.partition(b"\r\n\r\n")
        length = int(head.split(b"Content-Length: ")[1].split(b"\r\n")[0])
        found.append(json.loads(rest[:length]))
        output = rest[length:]
    return found


def test_a_message_far_over_the_stream_limit_is_read_whole_from_a_pipe(tmp_path: Path) -> None:
    """The loop's stream pauses the pipe past twice its limit; a 1 MB body still comes whole."""
    padding = "é" * 500_000  # 1 MB of UTF-8
    requests = (
        frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}})
        + frame({"jsonrpc": "2.0", "id": 2, "method": "deja/nothing", "params": {"p": padding}})
        + frame({"jsonrpc": "2.0", "id": 3, "method": "shutdown"})
        + frame({"jsonrpc": "2.0", "method": "exit"})
    )
    env = {**os.environ, "DEJA_HOME": str(tmp_path / "home")}
    done = subprocess.run(SERVER, input=requests, capture_output=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr.decode()
    answered = {body["id"]: body for body in messages(done.stdout) if "id" in body}
    assert answered[2]["error"]["code"] == -32601  # read whole and parsed: no such method
    assert answered[3]["result"] is None
