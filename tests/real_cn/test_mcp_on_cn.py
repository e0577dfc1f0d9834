"""Deja wired into the real `cn` 1.5.47 by `deja install continue`, against the scripted fake model:
the tools are offered in every request, a `deja_search` call brings a seeded decision back into
the conversation, the skill is announced, and `cn --fork` run as `deja resume` printed it
continues the old session. Also measures what Deja adds to each request (docs/continue.md)."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from deja.install import SKILL_DESCRIPTION
from tests.support.cn_run import CnDirs, cn_env, run_cn
from tests.support.fake_model import FakeModel, ToolCall, text_reply, tool_reply

pytestmark = pytest.mark.real_cn

DECISION = "use PostgreSQL advisory locks, not Redis"
SEED = f"Decision for the job queue: {DECISION} (ticket QX-4471)."
DEJA_TOOLS = {"deja_search", "deja_file_history", "deja_restore", "deja_fix", "deja_files"}


def deja_argv() -> list[str]:
    """This checkout's `deja`: the console script next to the interpreter when installed."""
    script = Path(sys.executable).parent / "deja"
    return [str(script)] if script.exists() else [sys.executable, "-m", "deja"]


def size(value: Any) -> int:
    """Bytes of `value` as compact JSON, the way `cn` serialises a request body."""
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


@dataclass
class Wired:
    dirs: CnDirs
    env: dict[str, str]  # cn's environment: the MCP server it starts inherits it
    cn: Path
    fake: FakeModel  # still running, for later cn runs
    seed_id: str
    baseline: dict[str, Any]  # cn's first request before Deja was installed
    requests: list[dict[str, Any]]  # the recalling run's requests, after install

    @property
    def config(self) -> Path:
        return self.dirs.root / "config.yaml"


def run_deja(env: dict[str, str], cwd: Path, *args: str) -> str:
    result = subprocess.run(
        [*deja_argv(), *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def run_cn_as_configured(
    cn: Path, env: dict[str, str], config: Path, cwd: Path, prompt: str
) -> subprocess.CompletedProcess[str]:
    """`cn -p --auto` on the config as it is (`run_cn` would rewrite it without Deja's entries)."""
    return subprocess.run(
        [str(cn), "-p", "--auto", "--config", str(config), prompt],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=180,
    )


def session_files(dirs: CnDirs) -> set[Path]:
    return {p for p in (dirs.root / "sessions").glob("*.json") if p.name != "sessions.json"}


@pytest.fixture(scope="module")
def wired(cn_exe: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Wired]:
    dirs = CnDirs.make(tmp_path_factory.mktemp("mcp-on-cn"))
    env = cn_env(
        dirs.root,
        dirs.home,
        {"DEJA_HOME": str(dirs.home / "deja"), "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    with FakeModel() as fake:
        # A real cn session holding a decision; run_cn writes <root>/config.yaml for the model.
        fake.script(text_reply("Noted."))
        seeded = run_cn(
            SEED, cn=cn_exe, root=dirs.root, home=dirs.home, cwd=dirs.work, model_url=fake.url
        )
        assert seeded.returncode == 0, seeded.stderr
        baseline = fake.requests[0]
        (seed_file,) = session_files(dirs)
        run_deja(env, dirs.work, "install", "continue")
        # Indexed before cn starts, so the answer does not depend on the server's first pass.
        run_deja(env, dirs.work, "index")
        fake.reset(
            [
                tool_reply(ToolCall("deja_search", {"query": "job queue"})),
                text_reply("We chose advisory locks."),
            ]
        )
        recall = run_cn_as_configured(
            cn_exe, env, dirs.root / "config.yaml", dirs.work, "How did we lock the job queue?"
        )
        assert recall.returncode == 0, recall.stderr
        assert fake.pending == 0, "cn asked the model fewer times than scripted"
        yield Wired(dirs, env, cn_exe, fake, seed_file.stem, baseline, list(fake.requests))


def tool_names(request: dict[str, Any]) -> list[str]:
    return [tool["function"]["name"] for tool in request.get("tools", [])]


def test_deja_tools_are_in_every_request(wired: Wired) -> None:
    assert len(wired.requests) == 2
    for request in wired.requests:
        assert set(tool_names(request)) >= DEJA_TOOLS
    assert not DEJA_TOOLS & set(tool_names(wired.baseline))


def test_a_recalled_decision_is_in_the_very_next_request(wired: Wired) -> None:
    call, result = wired.requests[1]["messages"][-2:]
    assert call["role"] == "assistant" and call["tool_calls"][0]["function"]["name"] == (
        "deja_search"
    )
    assert result["role"] == "tool"
    (content,) = json.loads(result["content"])  # cn passes the MCP content array as JSON text
    text = content["text"]
    assert text.startswith("<deja-recall>\n") and text.endswith("\n</deja-recall>")
    assert DECISION in text and wired.seed_id in text


def test_the_skill_is_announced_in_the_skills_tool(wired: Wired) -> None:
    (skills,) = [t for t in wired.requests[0]["tools"] if t["function"]["name"] == "Skills"]
    description = skills["function"]["description"]
    assert f"name: deja-history\ndescription: {SKILL_DESCRIPTION}" in description


def test_bytes_deja_adds_to_requests(wired: Wired) -> None:
    """The numbers in docs/continue.md's "Cost per request" (print them with `pytest -s`)."""
    before, after = wired.baseline, wired.requests[0]
    tools = [t for t in after["tools"] if t["function"]["name"] in DEJA_TOOLS]
    tool_bytes = size(tools) - 1  # without the list's brackets, plus one comma each
    skills_before = [t for t in before["tools"] if t["function"]["name"] == "Skills"]
    skills_after = [t for t in after["tools"] if t["function"]["name"] == "Skills"]
    skill_bytes = size(skills_after) - size(skills_before)
    system_bytes = size(after["messages"][0]) - size(before["messages"][0])
    every_request = size(after["tools"]) - size(before["tools"]) + system_bytes
    call, result = wired.requests[1]["messages"][-2:]
    recall_turn = size(call) + size(result)
    print(
        f"\nDeja's cost: tools {tool_bytes} B, skill {skill_bytes} B, system prompt "
        f"{system_bytes} B, every request {every_request} B; the recalling turn adds "
        f"{recall_turn} B (call {size(call)} B, result {size(result)} B)"
    )
    assert tool_bytes <= 1_600 and skill_bytes <= 400 and system_bytes == 0
    assert every_request <= tool_bytes + skill_bytes + 3
    assert recall_turn <= 6_000


def test_fork_as_resume_printed_it_continues_the_old_session(wired: Wired, tmp_path: Path) -> None:
    line = run_deja(wired.env, wired.dirs.work, "resume", wired.seed_id).strip()
    assert line == f"cd '{wired.dirs.work}' && cn --fork {wired.seed_id}"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "cn").symlink_to(wired.cn)
    env = {**wired.env, "PATH": f"{bin_dir}{os.pathsep}{wired.env['PATH']}"}
    # The line as printed, made headless: -p needs a prompt and the config file.
    headless = f" -p --auto --config {shlex.quote(str(wired.config))} 'Carry on.'"
    wired.fake.reset()
    before = session_files(wired.dirs)
    done = subprocess.run(
        ["sh", "-c", line + headless],
        env=env,
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr
    (new_file,) = session_files(wired.dirs) - before
    old = json.loads((wired.dirs.root / "sessions" / f"{wired.seed_id}.json").read_text())
    new = json.loads(new_file.read_text())
    assert new["sessionId"] != old["sessionId"]
    assert new["workspaceDirectory"] == str(wired.dirs.work)  # where resume's `cd` went
    messages = [item["message"] for item in new["history"]]
    assert messages[: len(old["history"])] == [item["message"] for item in old["history"]]
    assert messages[len(old["history"])] == {"role": "user", "content": "Carry on."}
