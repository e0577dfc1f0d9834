"""`/deja <question>` typed into the real `cn` 1.5.47 TUI (interactive, under tmux) after
`deja install continue`: cn sends the prompt's text, as install wrote it, and the question to the
model; the model's `deja_search` call, approved on screen, brings a seeded session back in the
next request. (`cn -p "/deja …"` sends the text verbatim: only the TUI expands slash commands.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from deja.install.yamledit import load, plain
from tests.support.cn_run import CnDirs, cn_env, run_cn
from tests.support.fake_model import (
    FakeModel,
    Reply,
    ToolCall,
    last_user_text,
    text_reply,
    tool_reply,
)
from tests.support.tmux_tui import Tui, wait_until

pytestmark = pytest.mark.real_cn

SEED = "The flaky test_sync failure was fixed by freezing the clock with time-machine (FT-2291)."
QUESTION = "how did we fix the flaky test"
ANSWER = "We froze the clock with time-machine."
# cn asks for a chat title after an answer (ChatDescriber); those requests are not the chat.
TITLE_REQUEST = "please reply with a title for the chat"
INPUT_READY = "Ask anything"  # the empty input box's placeholder


def deja_argv() -> list[str]:
    """This checkout's `deja`: the console script next to the interpreter when installed."""
    script = Path(sys.executable).parent / "deja"
    return [str(script)] if script.exists() else [sys.executable, "-m", "deja"]


def run_deja(env: dict[str, str], cwd: Path, *args: str) -> None:
    done = subprocess.run(
        [*deja_argv(), *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr


def answer_titles(body: dict[str, Any]) -> Reply | None:
    return text_reply("Flaky test fix") if TITLE_REQUEST in last_user_text(body) else None


@dataclass
class Typed:
    installed_prompt: str  # the /deja prompt's text in config.yaml, as install wrote it
    seed_id: str
    requests: list[dict[str, Any]]  # the chat requests cn sent, titles left out
    screen: str  # the TUI once the answer is shown


def chat_requests(fake: FakeModel) -> list[dict[str, Any]]:
    return [body for body in list(fake.requests) if TITLE_REQUEST not in last_user_text(body)]


@pytest.fixture(scope="module")
def typed(cn_exe: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Typed]:
    dirs = CnDirs.make(tmp_path_factory.mktemp("prompt-in-tui"))
    env = cn_env(
        dirs.root,
        dirs.home,
        {"DEJA_HOME": str(dirs.home / "deja"), "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    with FakeModel(on_request=answer_titles) as fake:
        # A session to recall; run_cn writes <root>/config.yaml for the fake model.
        fake.script(text_reply("Noted."))
        seeded = run_cn(
            SEED, cn=cn_exe, root=dirs.root, home=dirs.home, cwd=dirs.work, model_url=fake.url
        )
        assert seeded.returncode == 0, seeded.stderr
        (seed_file,) = [p for p in (dirs.root / "sessions").glob("*.json") if p.stem != "sessions"]
        run_deja(env, dirs.work, "install", "continue")
        run_deja(env, dirs.work, "index")
        config = dirs.root / "config.yaml"
        (prompt,) = [
            p for p in plain(load(config.read_text(), "c"))["prompts"] if p["name"] == "deja"
        ]
        fake.reset(
            [tool_reply(ToolCall("deja_search", {"query": "flaky test"})), text_reply(ANSWER)]
        )
        # Interactive: ink renders only the last frame under CI, and needs a terminal type.
        tui_env = {key: value for key, value in env.items() if key != "CI"}
        tui_env["TERM"] = "xterm-256color"
        with Tui.start([str(cn_exe), "--config", str(config)], env=tui_env, cwd=dirs.work) as tui:
            tui.wait_for(INPUT_READY)
            # cn connects MCP servers in the background: wait until /mcp shows deja connected.
            # Enter waits for the typed text to show: arriving with it, it is a pasted newline.
            tui.type_text("/mcp")
            tui.wait_for("● /mcp")
            tui.press("Enter")
            tui.wait_for("🟢 deja")
            tui.press("Escape")
            tui.wait_for(INPUT_READY)
            tui.type_text(f"/deja {QUESTION}")
            tui.wait_for(f"● /deja {QUESTION}")
            tui.press("Enter")
            wait_until(lambda: chat_requests(fake), what="cn's request", describe=tui.screen)
            tui.wait_for("Would you like to continue?")  # cn asks before running an MCP tool
            tui.press("y")
            wait_until(lambda: len(chat_requests(fake)) >= 2, what="the request after the tool")
            screen = tui.wait_for(ANSWER)
        yield Typed(prompt["prompt"], seed_file.stem, chat_requests(fake), screen)


def test_typing_slash_deja_sends_the_prompt_text_and_the_question(typed: Typed) -> None:
    first = typed.requests[0]
    sent = last_user_text(first)
    assert sent.startswith(typed.installed_prompt) and "deja_search" in typed.installed_prompt
    assert sent.endswith(QUESTION) and QUESTION not in typed.installed_prompt
    # The question stands apart from the prompt's last sentence.
    assert sent[len(typed.installed_prompt) :] == QUESTION
    assert typed.installed_prompt[-1].isspace()
    assert "deja_search" in [tool["function"]["name"] for tool in first.get("tools", [])]


def test_the_model_calls_deja_search_and_gets_the_seeded_session(typed: Typed) -> None:
    assert len(typed.requests) == 2
    call, result = typed.requests[1]["messages"][-2:]
    assert call["role"] == "assistant"
    assert call["tool_calls"][0]["function"]["name"] == "deja_search"
    assert result["role"] == "tool" and result["tool_call_id"] == call["tool_calls"][0]["id"]
    (content,) = json.loads(result["content"])  # cn passes the MCP content array as JSON text
    text = content["text"]
    assert text.startswith("<deja-recall>\n") and text.endswith("\n</deja-recall>")
    assert "time-machine" in text and typed.seed_id in text
    assert ANSWER in typed.screen
