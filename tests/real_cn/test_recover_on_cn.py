"""`deja recover` proven with the real `cn` 1.5.47: a session whose file was deleted, and a
session `cn` compacted, written back by Deja as a new session; `cn --fork NEWID -p …` then sends
the recovered turns to the (fake) model, and `cn ls --json` lists the new session. The written
file is also checked against Continue's types (`tests/support/continue_schema.py`)."""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli_run import deja_env, json_envelope, run_deja
from tests.support.cn_run import CnDirs, cn_env
from tests.support.cn_store import CnStore
from tests.support.continue_schema import check_list, check_session
from tests.support.fake_model import (
    FakeModel,
    Reply,
    ToolCall,
    is_compaction_request,
    text_reply,
    tool_reply,
)

pytestmark = pytest.mark.real_cn

FIRST = "Write the notes file and print a long listing."
LISTING = "seq -f 'listing line %g of the long output' 1 340"
SUMMARY = "Summary: notes.txt was written and a long listing printed."
FIRST_REPLIES = (
    tool_reply(
        ToolCall("Write", {"filepath": "notes.txt", "content": "first line\n"}, id="call_notes")
    ),
    tool_reply(ToolCall("Bash", {"command": LISTING}, id="call_listing")),
    text_reply("Wrote notes.txt and printed the listing."),
)


@dataclass
class Store(CnStore):
    env: dict[str, str]

    def deja(self, *args: str) -> subprocess.CompletedProcess[str]:
        done = run_deja(self.env, *args, cwd=self.dirs.work)
        assert done.returncode == 0, done.stderr
        return done

    def recover_and_fork(self, session_id: str) -> tuple[str, list[dict[str, Any]]]:
        """`deja recover`, then `cn --fork NEWID -p …`: the new id and the messages cn sent."""
        answer = json_envelope(self.deja("recover", session_id, "--json"), "recover")
        new_id = answer["new_id"]
        assert answer["fork"]["argv"] == ["cn", "--fork", new_id]
        assert answer["fork"]["cwd"] == str(self.dirs.work)
        sessions = self.dirs.root / "sessions"
        check_session(json.loads((sessions / f"{new_id}.json").read_text()))
        check_list(json.loads((sessions / "sessions.json").read_text()))
        self.run("What did we do so far?", (text_reply("We wrote notes.txt."),), "--fork", new_id)
        (request,) = self.fake.requests
        messages: list[dict[str, Any]] = request["messages"]
        return new_id, messages

    def listed_by_cn(self) -> set[str]:
        proc = subprocess.run(
            [str(self.cn), "ls", "--json"],
            cwd=self.dirs.work,
            env=cn_env(self.dirs.root, self.dirs.home),
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
        )
        assert proc.returncode == 0, proc.stderr
        start = proc.stdout.index("{")
        return {entry["id"] for entry in json.loads(proc.stdout[start:])["sessions"]}


@pytest.fixture
def store(cn_exe: Path, tmp_path: Path) -> Iterator[Store]:
    def summarise(body: dict[str, Any]) -> Reply | None:
        return text_reply(SUMMARY) if is_compaction_request(body) else None

    dirs = CnDirs.make(tmp_path)
    env = deja_env(dirs.root, tmp_path / "deja")
    with FakeModel(on_request=summarise) as fake:
        yield Store(cn_exe, dirs, fake, env)


def said(messages: list[dict[str, Any]]) -> str:
    return json.dumps(messages)


def test_a_deleted_session_recovered_is_sent_to_the_model_by_cn_fork(store: Store) -> None:
    original = store.run(FIRST, FIRST_REPLIES)
    store.deja("index")
    sessions = store.dirs.root / "sessions"
    (sessions / f"{original}.json").unlink()
    entries = json.loads((sessions / "sessions.json").read_text())
    kept = [e for e in entries if e["sessionId"] != original]
    (sessions / "sessions.json").write_text(json.dumps(kept, indent=2))
    store.deja("index")

    new_id, messages = store.recover_and_fork(original)
    roles = [m["role"] for m in messages]
    assert FIRST in [m.get("content") for m in messages if m["role"] == "user"]
    calls = [c["function"] for m in messages for c in m.get("tool_calls") or []]
    assert [c["name"] for c in calls] == ["Write", "Bash"]
    assert json.loads(calls[1]["arguments"]) == {"command": LISTING}
    tool_results = [m["content"] for m in messages if m["role"] == "tool"]
    assert len(tool_results) == 2 and "listing line 340 of the long output" in said(messages)
    assert "Wrote notes.txt and printed the listing." in said(messages)
    assert roles[-1] == "user" and messages[-1]["content"] == "What did we do so far?"
    assert new_id in store.listed_by_cn()


def test_turns_cn_compacted_away_are_sent_again_after_recover(store: Store) -> None:
    original = store.run(FIRST, FIRST_REPLIES)
    store.deja("index")
    later = time.time() + 5  # `--resume` takes the newest file: make it this one
    os.utime(store.dirs.root / "sessions" / f"{original}.json", (later, later))
    resumed = store.run(
        "Carry on, please.",
        (text_reply("Continuing from the summary."), text_reply("Nothing else to do.")),
        "--resume",
        context_length=5100,
        max_tokens=100,
    )
    assert resumed == original
    on_disk = (store.dirs.root / "sessions" / f"{original}.json").read_text()
    assert FIRST not in on_disk and SUMMARY in on_disk  # cn's compaction deleted it
    store.deja("index")
    lost = json_envelope(store.deja("sessions", "--lost", "--json", "--all"), "sessions")
    assert [s["id"] for s in lost["sessions"]] == [original]

    new_id, messages = store.recover_and_fork(original)
    assert FIRST in [m.get("content") for m in messages if m["role"] == "user"]
    assert "listing line 340 of the long output" in said(messages)
    assert "Continuing from the summary." in said(messages)
    assert new_id in store.listed_by_cn()


def test_a_fork_of_a_compacted_session_gets_the_turns_it_inherited(store: Store) -> None:
    """`cn --fork` of a session `cn` compacted copies only from the summary on; Deja still
    holds the turns before it, and `deja recover` of the fork writes them too."""
    original = store.run(FIRST, FIRST_REPLIES)
    store.deja("index")
    later = time.time() + 5
    os.utime(store.dirs.root / "sessions" / f"{original}.json", (later, later))
    store.run(
        "Carry on, please.",
        (text_reply("Continuing from the summary."), text_reply("Nothing else to do.")),
        "--resume",
        context_length=5100,
        max_tokens=100,
    )
    store.deja("index")
    fork = store.run("Add a todo file.", (text_reply("Added it."),), "--fork", original)
    assert fork != original
    assert FIRST not in (store.dirs.root / "sessions" / f"{fork}.json").read_text()
    store.deja("index")

    new_id, messages = store.recover_and_fork(fork)
    assert FIRST in [m.get("content") for m in messages if m["role"] == "user"]
    assert "Add a todo file." in said(messages) and "Added it." in said(messages)
    assert new_id in store.listed_by_cn()
