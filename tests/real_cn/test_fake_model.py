"""The scripted fake model speaks the OpenAI streaming protocol that ``cn`` consumes."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest

from tests.support.fake_model import (
    COMPACTION_PROMPT_PREFIX,
    FakeModel,
    Reply,
    ToolCall,
    is_compaction_request,
    text_reply,
    tool_reply,
)

pytestmark = pytest.mark.real_cn


def post(fake: FakeModel, body: dict[str, Any]) -> tuple[str, list[Any]]:
    request = urllib.request.Request(
        f"{fake.url}/v1/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        content_type = response.headers["Content-Type"]
        raw = response.read().decode()
    events: list[Any] = []
    for block in raw.split("\n\n"):
        if not block:
            continue
        assert block.startswith("data: "), block
        payload = block[len("data: ") :]
        events.append(payload if payload == "[DONE]" else json.loads(payload))
    return content_type, events


def chat(messages: list[dict[str, Any]]) -> dict[str, Any]:
    return {"model": "m", "stream": True, "messages": messages}


def test_streams_text_then_done_and_records_requests() -> None:
    with FakeModel([text_reply("Hello there, world!", prompt_tokens=42)]) as fake:
        content_type, events = post(fake, chat([{"role": "user", "content": "hi"}]))
        assert content_type == "text/event-stream"
        assert events[-1] == "[DONE]"
        chunks = events[:-1]
        assert all(chunk["object"] == "chat.completion.chunk" for chunk in chunks)
        assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
        text = "".join(
            chunk["choices"][0]["delta"].get("content", "") for chunk in chunks if chunk["choices"]
        )
        assert text == "Hello there, world!"
        finish = [c["choices"][0]["finish_reason"] for c in chunks if c["choices"]]
        assert finish[-1] == "stop" and set(finish[:-1]) == {None}
        assert chunks[-1]["choices"] == []
        assert chunks[-1]["usage"]["prompt_tokens"] == 42
        assert fake.requests == [chat([{"role": "user", "content": "hi"}])]

        # script exhausted: the default reply, without usage
        _, events = post(fake, chat([{"role": "user", "content": "again"}]))
        text = "".join(e["choices"][0]["delta"].get("content", "") for e in events[:-1])
        assert text == "Done."
        assert all("usage" not in e for e in events[:-1])
        assert len(fake.requests) == 2


def test_streams_parallel_tool_calls_as_deltas() -> None:
    calls = (
        ToolCall("Bash", {"command": "echo a long command line to split"}, id="call_a"),
        ToolCall("Read", {"filepath": "x.py"}),
    )
    with FakeModel([tool_reply(*calls)]) as fake:
        _, events = post(fake, chat([{"role": "user", "content": "go"}]))
    chunks = [e for e in events[:-1] if e["choices"]]
    assembled: dict[int, dict[str, str]] = {}
    for chunk in chunks:
        for delta in chunk["choices"][0]["delta"].get("tool_calls", []):
            slot = assembled.setdefault(delta["index"], {"id": "", "name": "", "arguments": ""})
            if "id" in delta:
                assert delta["type"] == "function"
                slot["id"] = delta["id"]
                slot["name"] = delta["function"]["name"]
            slot["arguments"] += delta["function"]["arguments"]
    assert chunks[-1]["choices"][0]["finish_reason"] == "tool_calls"
    assert assembled[0]["id"] == "call_a"
    assert assembled[1]["id"].startswith("call_fake_")
    assert [(s["name"], json.loads(s["arguments"])) for s in assembled.values()] == [
        ("Bash", {"command": "echo a long command line to split"}),
        ("Read", {"filepath": "x.py"}),
    ]
    # arguments were really split over several deltas
    argument_deltas = sum(
        1 for chunk in chunks for _ in chunk["choices"][0]["delta"].get("tool_calls", [])
    )
    assert argument_deltas > 4


def test_models_endpoint_and_hook_errors_do_not_break_replies() -> None:
    def hook(body: dict[str, Any]) -> Reply | None:
        if is_compaction_request(body):
            return text_reply("summary")
        raise RuntimeError("boom")

    with FakeModel([text_reply("queued")], on_request=hook) as fake:
        with urllib.request.urlopen(f"{fake.url}/v1/models", timeout=10) as response:
            assert json.load(response)["data"][0]["id"] == "deja-fake"
        _, events = post(fake, chat([{"role": "user", "content": COMPACTION_PROMPT_PREFIX}]))
        assert "".join(e["choices"][0]["delta"].get("content", "") for e in events[:-1]) == (
            "summary"
        )
        assert fake.pending == 1
        _, events = post(fake, chat([{"role": "user", "content": "plain"}]))
        assert "".join(e["choices"][0]["delta"].get("content", "") for e in events[:-1]) == (
            "queued"
        )
        assert [str(error) for error in fake.hook_errors] == ["boom"]
