"""A scripted, OpenAI-compatible streaming chat endpoint on 127.0.0.1 for driving the real `cn`.

Stdlib only. The server answers ``POST /v1/chat/completions`` with Server-Sent Events in the
``chat.completion.chunk`` format (``data: {...}`` lines, then ``data: [DONE]``) and ``GET
/v1/models``. Replies come from a queue (:meth:`FakeModel.script`); once it is empty every request
gets :attr:`FakeModel.default` (plain text ``"Done."``). Every request body is recorded, parsed, in
:attr:`FakeModel.requests`.

``cn`` retries an HTTP error about eleven times over ~100 s, so this server never answers the chat
endpoint with an error status: a body it cannot parse is recorded as ``{"_unparsed": "<text>"}``
and still gets a normal reply.

Example::

    with FakeModel() as fake:
        fake.script(tool_reply(ToolCall("Bash", {"command": "echo hi"})), text_reply("ok"))
        run_cn("say hi", model_url=fake.url, ...)
        assert fake.requests[1]["messages"][-1]["role"] == "tool"
"""

from __future__ import annotations

import collections
import itertools
import json
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

__all__ = [
    "COMPACTION_PROMPT_PREFIX",
    "FakeModel",
    "Reply",
    "ToolCall",
    "Usage",
    "is_compaction_request",
    "last_user_text",
    "text_reply",
    "tool_reply",
]

# The start of the prompt `cn` 1.5.47 sends when it compacts a conversation (src/compaction.ts).
COMPACTION_PROMPT_PREFIX = "Please provide a concise summary of our conversation so far"

_ids = itertools.count(1)


@dataclass(frozen=True)
class ToolCall:
    """One tool call the fake model asks for.

    ``arguments`` is a mapping (sent as its JSON text) or a raw string (sent as is, so a test can
    send unparseable arguments). ``id`` defaults to a fresh ``call_<n>``.
    """

    name: str
    arguments: Mapping[str, Any] | str = field(default_factory=dict)
    id: str | None = None

    def arguments_json(self) -> str:
        if isinstance(self.arguments, str):
            return self.arguments
        return json.dumps(dict(self.arguments))


@dataclass(frozen=True)
class Usage:
    """Token usage reported in a final chunk (``choices: []``) before ``[DONE]``."""

    prompt_tokens: int
    completion_tokens: int = 1

    def as_dict(self) -> dict[str, int]:
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.prompt_tokens + self.completion_tokens,
        }


@dataclass(frozen=True)
class Reply:
    """One scripted model turn: some text, and/or one or more tool calls.

    With tool calls the stream ends with ``finish_reason: "tool_calls"``, else ``"stop"``.
    ``usage`` (or the server's ``default_usage``) adds a usage chunk. ``chunk_size`` splits text and
    argument strings into deltas of at most that many characters, like a real stream.
    """

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage | None = None
    chunk_size: int = 16

    @property
    def finish_reason(self) -> str:
        return "tool_calls" if self.tool_calls else "stop"


def text_reply(text: str, *, prompt_tokens: int | None = None) -> Reply:
    """A plain text answer (optionally reporting ``prompt_tokens`` of usage)."""
    usage = Usage(prompt_tokens) if prompt_tokens is not None else None
    return Reply(text=text, usage=usage)


def tool_reply(*calls: ToolCall, text: str = "", prompt_tokens: int | None = None) -> Reply:
    """An answer asking for one or more tool calls (in parallel)."""
    if not calls:
        raise ValueError("tool_reply needs at least one ToolCall")
    usage = Usage(prompt_tokens) if prompt_tokens is not None else None
    return Reply(text=text, tool_calls=tuple(calls), usage=usage)


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def last_user_text(body: Mapping[str, Any]) -> str:
    """The text of the last ``role: user`` message of a recorded request ("" if none)."""
    messages = body.get("messages")
    if not isinstance(messages, list):
        return ""
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "user":
            return _content_text(message.get("content"))
    return ""


def is_compaction_request(body: Mapping[str, Any]) -> bool:
    """True when ``body`` is `cn` asking the model to summarise the conversation (compaction)."""
    return last_user_text(body).startswith(COMPACTION_PROMPT_PREFIX)


# A hook that sees each parsed chat request first; returning a Reply answers it without touching
# the script queue, returning None falls through to the queue. It runs on the server thread, before
# the reply is sent, so it may also snapshot files (e.g. the session store before compaction).
RequestHook = Callable[[dict[str, Any]], Reply | None]


def _chunks(text: str, size: int) -> Iterator[str]:
    step = max(1, size)
    for start in range(0, len(text), step):
        yield text[start : start + step]


def sse_events(reply: Reply, *, model: str, usage: Usage | None) -> list[dict[str, Any]]:
    """The ``chat.completion.chunk`` objects that stream ``reply``, in order."""
    completion_id = f"chatcmpl-fake-{next(_ids)}"
    created = int(time.time())

    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        return {
            "id": completion_id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
        }

    events = [chunk({"role": "assistant", "content": ""})]
    events.extend(chunk({"content": piece}) for piece in _chunks(reply.text, reply.chunk_size))
    for index, call in enumerate(reply.tool_calls):
        call_id = call.id or f"call_fake_{next(_ids)}"
        events.append(
            chunk(
                {
                    "tool_calls": [
                        {
                            "index": index,
                            "id": call_id,
                            "type": "function",
                            "function": {"name": call.name, "arguments": ""},
                        }
                    ]
                }
            )
        )
        events.extend(
            chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
            for piece in _chunks(call.arguments_json(), reply.chunk_size)
        )
    events.append(chunk({}, reply.finish_reason))
    if usage is not None:
        events.append(
            {
                "id": completion_id,
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "choices": [],
                "usage": usage.as_dict(),
            }
        )
    return events


def completion_object(reply: Reply, *, model: str, usage: Usage | None) -> dict[str, Any]:
    """A non-streamed ``chat.completion`` for ``reply`` (for ``stream: false`` requests)."""
    message: dict[str, Any] = {"role": "assistant", "content": reply.text}
    if reply.tool_calls:
        message["tool_calls"] = [
            {
                "id": call.id or f"call_fake_{next(_ids)}",
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments_json()},
            }
            for call in reply.tool_calls
        ]
    result: dict[str, Any] = {
        "id": f"chatcmpl-fake-{next(_ids)}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": reply.finish_reason}],
    }
    if usage is not None:
        result["usage"] = usage.as_dict()
    return result


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        return

    def _send_json(self, status: int, payload: Mapping[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _read_body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0].rstrip("/")
        if path.endswith("/models"):
            fake = self.server.fake
            self._send_json(
                200,
                {
                    "object": "list",
                    "data": [
                        {"id": fake.model_id, "object": "model", "created": 0, "owned_by": "deja"}
                    ],
                },
            )
            return
        self._send_json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})

    def do_POST(self) -> None:
        raw = self._read_body()
        path = self.path.split("?", 1)[0].rstrip("/")
        if not path.endswith("/chat/completions"):
            self._send_json(
                404, {"error": {"message": f"no route {self.path}", "type": "not_found"}}
            )
            return
        try:
            parsed = json.loads(raw or b"{}")
            body: dict[str, Any] = parsed if isinstance(parsed, dict) else {"_unparsed": parsed}
        except ValueError:
            body = {"_unparsed": raw.decode("utf-8", "replace")}
        fake = self.server.fake
        reply, usage = fake._next_reply(body)
        model = str(body.get("model") or fake.model_id)
        if body.get("stream") is False:
            self._send_json(200, completion_object(reply, model=model, usage=usage))
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        try:
            for event in sse_events(reply, model=model, usage=usage):
                self.wfile.write(b"data: " + json.dumps(event).encode() + b"\n\n")
                self.wfile.flush()
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            return


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, fake: FakeModel) -> None:
        self.fake = fake
        super().__init__(("127.0.0.1", 0), _Handler)


class FakeModel:
    """Scripted OpenAI-compatible chat endpoint; use as a context manager.

    ``url`` is ``http://127.0.0.1:<port>`` (give ``url + "/v1"`` as ``apiBase``; :func:`run_cn`
    does that). ``requests`` lists the parsed JSON body of every chat request, in arrival order.
    """

    def __init__(
        self,
        replies: Iterable[Reply] = (),
        *,
        default: Reply | None = None,
        default_usage: Usage | None = None,
        on_request: RequestHook | None = None,
        model_id: str = "deja-fake",
    ) -> None:
        self.default: Reply = default if default is not None else Reply(text="Done.")
        self.default_usage = default_usage
        self.on_request = on_request
        self.model_id = model_id
        self.requests: list[dict[str, Any]] = []
        self.replies_sent: list[Reply] = []
        # Exceptions raised by ``on_request`` (the request then falls through to the queue).
        self.hook_errors: list[Exception] = []
        self._queue: collections.deque[Reply] = collections.deque(replies)
        self._lock = threading.Lock()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- script -------------------------------------------------------------------------------
    def script(self, *replies: Reply) -> FakeModel:
        """Append replies to the queue (answered in order, one per chat request)."""
        with self._lock:
            self._queue.extend(replies)
        return self

    def reset(self, replies: Sequence[Reply] = ()) -> None:
        """Forget recorded requests and replace the queue."""
        with self._lock:
            self.requests.clear()
            self.replies_sent.clear()
            self.hook_errors.clear()
            self._queue = collections.deque(replies)

    @property
    def pending(self) -> int:
        """How many scripted replies have not been used yet."""
        with self._lock:
            return len(self._queue)

    def _next_reply(self, body: dict[str, Any]) -> tuple[Reply, Usage | None]:
        with self._lock:
            self.requests.append(body)
            hook = self.on_request
        reply: Reply | None = None
        if hook is not None:
            try:
                reply = hook(body)
            except Exception as exc:  # never drop the connection: cn would retry for ~100 s
                with self._lock:
                    self.hook_errors.append(exc)
        with self._lock:
            if reply is None:
                reply = self._queue.popleft() if self._queue else self.default
            self.replies_sent.append(reply)
        return reply, reply.usage if reply.usage is not None else self.default_usage

    # -- lifecycle ----------------------------------------------------------------------------
    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("FakeModel is not running")
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        """Base URL without ``/v1``."""
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> FakeModel:
        if self._server is not None:
            return self
        self._server = _Server(self)
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"fake-model-{self.port}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        server, thread = self._server, self._thread
        self._server, self._thread = None, None
        if server is not None:
            server.shutdown()
            server.server_close()
        if thread is not None:
            thread.join(timeout=5)

    def __enter__(self) -> FakeModel:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
