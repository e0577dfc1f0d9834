"""Starting a server the way its client does and waiting for the answer to `initialize`: the
sidecar (`python -m deja serve`, LSP's Content-Length frames) and Continue's MCP command
(newline-delimited JSON-RPC). A reader thread and a deadline, no `select`: pipes on Windows have
none."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO, Any

from deja import __version__

from .checks import Check, failed, passed

TIMEOUT_S = 30.0
CLIENT = {"name": "deja-doctor", "version": __version__}
Reader = Callable[[IO[bytes]], dict[str, Any] | None]


@dataclass(frozen=True, slots=True)
class Reply:
    detail: str = ""
    error: str = ""


def _lsp_frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode()
    return f"Content-Length: {len(body)}\r\n\r\n".encode() + body


def _read_lsp(stream: IO[bytes]) -> dict[str, Any] | None:
    length = None
    while line := stream.readline():
        if not line.strip():
            if length is None:
                continue
            return dict(json.loads(stream.read(length)))
        name, _, value = line.decode("ascii", "replace").partition(":")
        if name.strip().lower() == "content-length":
            length = int(value.strip())
    return None


def _read_line_json(stream: IO[bytes]) -> dict[str, Any] | None:
    while line := stream.readline():
        if line.strip():
            return dict(json.loads(line))
    return None


def _exchange(
    argv: list[str], env: dict[str, str], first: bytes, read: Reader, then: bytes
) -> tuple[dict[str, Any] | None, str]:
    """Send `first`, wait for the reply to id 1, send `then` and close stdin; the reply, or None
    and why none came. The process is ended whatever happens."""
    try:
        process = subprocess.Popen(
            argv,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
    except OSError as error:
        return None, f"cannot start it: {error}"
    stdin, stdout, stderr = process.stdin, process.stdout, process.stderr
    assert stdin is not None and stdout is not None and stderr is not None
    found: list[dict[str, Any]] = []
    errors: list[bytes] = []
    junk: list[str] = []

    def reader() -> None:
        try:
            while (message := read(stdout)) is not None:
                if message.get("id") == 1:
                    found.append(message)
                    return
        except (ValueError, TypeError) as error:  # not JSON, or JSON that is no message
            junk.append(str(error))
        except OSError:
            return

    threads = [
        threading.Thread(target=reader, daemon=True),
        threading.Thread(target=lambda: errors.append(stderr.read()), daemon=True),
    ]
    for thread in threads:
        thread.start()
    try:
        stdin.write(first)
        stdin.flush()
        threads[0].join(TIMEOUT_S)
        if found:
            stdin.write(then)
        stdin.close()
        process.wait(5)
    except (OSError, subprocess.TimeoutExpired):
        pass
    finally:
        killed = process.poll() is None
        if killed:
            process.kill()
            process.wait()
    threads[1].join(5)
    if found:
        return found[0], ""
    if junk:
        return None, f"it wrote what is not a JSON-RPC message on stdout ({junk[0]})"
    tail = " / ".join(b"".join(errors).decode("utf-8", "replace").strip().splitlines()[-3:])
    if tail:
        return None, f"it said: {tail}"
    if killed:
        return None, f"no answer in {TIMEOUT_S:.0f} s"
    return None, f"it exited (code {process.returncode}) without answering"


def _reply(message: dict[str, Any] | None, why: str, describe: Callable[[Any], str]) -> Reply:
    if message is None:
        return Reply(error=why)
    if "error" in message:
        return Reply(error=f"it answered with an error: {message['error']}")
    return Reply(detail=describe(message.get("result") or {}))


def _request(method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}


def mcp_initialize(argv: list[str], env: dict[str, str]) -> Reply:
    params = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": CLIENT}
    first = (json.dumps(_request("initialize", params)) + "\n").encode()
    message, why = _exchange(argv, env, first, _read_line_json, b"")

    def describe(result: Any) -> str:
        info = result.get("serverInfo") or {}
        return f"{info.get('name', '?')} {info.get('version', '')}".strip()

    return _reply(message, why, describe)


def lsp_initialize(argv: list[str], env: dict[str, str]) -> Reply:
    params = {"processId": None, "rootUri": None, "capabilities": {}, "clientInfo": CLIENT}
    then = _lsp_frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}) + _lsp_frame(
        {"jsonrpc": "2.0", "method": "exit"}
    )
    message, why = _exchange(argv, env, _lsp_frame(_request("initialize", params)), _read_lsp, then)

    def describe(result: Any) -> str:
        info = result.get("serverInfo") or {}
        features = sorted(k for k in result.get("capabilities") or {} if k.endswith("Provider"))
        return f"{info.get('name', '?')} {info.get('version', '')}: {', '.join(features)}"

    return _reply(message, why, describe)


def sidecar_check(python: str | None = None, env: dict[str, str] | None = None) -> Check:
    """`python -m deja serve` started over stdio answers LSP's `initialize`."""
    python = python or sys.executable
    argv = [python, "-m", "deja", "serve"]
    started = time.monotonic()
    reply = lsp_initialize(argv, env if env is not None else dict(os.environ))
    shown = " ".join(argv)
    if reply.error:
        return failed(
            "sidecar",
            f"{shown} did not answer LSP's initialize: {reply.error}",
            f"install Deja's wheel with its dependencies (pygls, lsprotocol) for {python}; "
            f"`{shown}` shows why",
        )
    seconds = time.monotonic() - started
    return passed("sidecar", f"{shown} answered in {seconds:.1f} s: {reply.detail}")
