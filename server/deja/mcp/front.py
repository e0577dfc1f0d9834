"""`deja mcp`'s first moments: `initialize` and `tools/list` answered before the MCP SDK loads.

`cn` waits for its MCP servers before its first model request, and importing the SDK costs over a
second of CPU. So the handshake is answered here, with the SDK's own answers (the same JSON: the
tests compare them), while a thread loads the SDK and opens the index. The first message this
cannot answer exactly as the SDK would — a tool call, a ping, a line that is not JSON, an
unknown protocol version, anything — hands the conversation over: the SDK's server is given the
`initialize` (and `initialized`) it missed, its answer to that `initialize` is dropped (the
client has it), and from then on it serves everything, with all its guarantees.

Lines are read from file descriptor 0 a byte at a time, so nothing past the last line read
sits in a buffer the SDK's transport would not see."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

import deja

from .definitions import tool_dicts

if TYPE_CHECKING:
    from .tools import Recall


def handshake_versions() -> tuple[str, ...]:
    """The protocol versions the SDK negotiates by `initialize`, read from its own table without
    importing the SDK (its package import is the cost this module avoids); () when unknown."""
    try:
        spec = importlib.util.find_spec("mcp_types")
        folders = spec.submodule_search_locations if spec is not None else None
        if not folders:
            return ()
        source = (Path(next(iter(folders))) / "version.py").read_text(encoding="utf-8")
        table: dict[str, Any] = {}
        exec(compile(source, "mcp_types/version.py", "exec"), table)  # the SDK's file, as is
        versions = table["HANDSHAKE_PROTOCOL_VERSIONS"]
    except Exception:
        return ()
    return tuple(v for v in versions if isinstance(v, str))


class Front:
    """Answers the handshake; `run` returns at the first message it leaves to the SDK (None
    at the end of input), with the messages the SDK must be given first in `replay`."""

    def __init__(self, read_fd: int = 0, write_fd: int = 1) -> None:
        self.read_fd = read_fd
        self.write_fd = write_fd
        self.replay: list[bytes] = []
        self.initialize_id: object = None
        self._versions: tuple[str, ...] | None = None

    def read_line(self) -> bytes | None:
        line = bytearray()
        while True:
            byte = os.read(self.read_fd, 1)
            if not byte:
                return bytes(line) if line else None
            line += byte
            if byte == b"\n":
                return bytes(line)

    def send(self, message_id: object, result: dict[str, Any]) -> None:
        answer = {"jsonrpc": "2.0", "id": message_id, "result": result}
        data = json.dumps(answer, ensure_ascii=False, separators=(",", ":")) + "\n"
        os.write(self.write_fd, data.encode("utf-8"))

    def run(self) -> bytes | None:
        while True:
            line = self.read_line()
            if line is None or not self.answer(line):
                return line

    def answer(self, line: bytes) -> bool:
        """True when `line` is answered (or kept for the SDK) here; False: the SDK's turn."""
        try:
            message = json.loads(line)
        except ValueError:
            return False
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            return False
        method, params = message.get("method"), message.get("params")
        message_id = message.get("id")
        if not self.replay:
            return method == "initialize" and self._initialize(line, message_id, params)
        if method == "notifications/initialized" and "id" not in message:
            self.replay.append(line)
            return True
        if method == "tools/list" and _plain_id(message_id) and params in (None, {}):
            self.send(message_id, {"tools": tool_dicts()})
            return True
        return False

    def _initialize(self, line: bytes, message_id: object, params: object) -> bool:
        if not _plain_id(message_id) or not isinstance(params, dict):
            return False
        if self._versions is None:
            self._versions = handshake_versions()
        version = params.get("protocolVersion")
        if version not in self._versions or not isinstance(params.get("clientInfo"), dict):
            return False  # the SDK's negotiation (or its refusal) decides
        self.replay.append(line)
        self.initialize_id = message_id
        self.send(
            message_id,
            {
                "capabilities": {"tools": {"listChanged": False}},
                "protocolVersion": version,
                "serverInfo": {"name": "deja", "version": deja.__version__},
            },
        )
        return True


def _plain_id(message_id: object) -> bool:
    return isinstance(message_id, str) or (
        isinstance(message_id, int) and not isinstance(message_id, bool)
    )


# How long the SDK's import waits for the first pass: a tool call can come no sooner than the
# model's first answer, and a pass over a large store goes on after it.
SDK_AFTER_PASS_S = 2.0


class Loader(threading.Thread):
    """Opens the index (the first pass starts) and loads the SDK while the front answers."""

    def __init__(self, cwd: str) -> None:
        super().__init__(name="deja-mcp-load", daemon=True)
        self.cwd = cwd
        self.recall: Recall | None = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            from .tools import Recall

            self.recall = Recall(self.cwd)
            self.recall.start()
            # The first pass holds the newest sessions first: the SDK's import, which holds the
            # GIL for most of its run, waits for the pass (or a bound) so it does not slow that.
            self.recall.wait_indexed(SDK_AFTER_PASS_S)
            from . import server  # noqa: F401  (the SDK: ready when the front hands over)
        except BaseException as error:  # re-raised on the main thread
            self.error = error


def serve() -> None:
    """Serve on stdin/stdout until the client closes them. The workspace scope is the directory
    the client started us in."""
    loader = Loader(os.getcwd())
    loader.start()
    front = Front()
    pending = front.run()
    loader.join()
    recall = loader.recall
    try:
        if loader.error is not None:
            raise loader.error
        if pending is None or recall is None:
            return  # the client closed its end during the handshake
        from .server import serve_from

        serve_from(recall, [*front.replay, pending], front.initialize_id)
    finally:
        if recall is not None:
            recall.close()
        sys.stdout.flush()
