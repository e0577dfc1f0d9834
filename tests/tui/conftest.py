"""A store of sessions the real `cn` wrote (fixtures/real-cn, copied byte for byte), indexed
once per test, and the screen opened on it with a fixed clock and fixed file times, so what
the screen shows depends on nothing of the machine."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from deja.query import History

REAL_CN = Path(__file__).parent.parent.parent / "fixtures" / "real-cn"
SCENARIOS = (
    "bash_ok",
    "bash_fail",
    "write_new_file",
    "read_edit",
    "read_multiedit",
    "parallel_tools",
    "tool_errors",
    "compaction/before",
)
# The files' mtimes (Continue's last activity) and the screen's clock: fixed, one minute apart.
FIRST_MTIME = 1_796_070_400
NOW = FIRST_MTIME + 3 * 86_400
WORKSPACE = "/tmp/deja-real-cn/bash_fail/work"


def build_store(root: Path) -> Path:
    """Every scenario's session file in one store, with one `sessions.json` listing them."""
    sessions = root / "sessions"
    sessions.mkdir(parents=True)
    listed: list[object] = []
    for number, scenario in enumerate(SCENARIOS):
        folder = REAL_CN / scenario / "sessions"
        listed += json.loads((folder / "sessions.json").read_text(encoding="utf-8"))
        for path in sorted(folder.glob("*.json")):
            if path.name != "sessions.json":
                copy = sessions / path.name
                shutil.copyfile(path, copy)
                os.utime(copy, (FIRST_MTIME + 60 * number, FIRST_MTIME + 60 * number))
    listed.append(add_fork(sessions, len(SCENARIOS)))
    (sessions / "sessions.json").write_text(json.dumps(listed, indent=2), encoding="utf-8")
    return root


FORK_ID = "7f0c5e1a-0000-4000-8000-000000000001"
FORKED_FROM = "4beef44c-5218-4586-8d08-e2a408f7a7fd"  # write_new_file


def add_fork(sessions: Path, number: int) -> dict[str, object]:
    """What `cn --fork` writes: the parent's history copied under a new id, then its own turn
    (the real forks are tests/real_cn/test_forks_on_cn.py's; none is among the captures)."""
    document = json.loads((sessions / f"{FORKED_FROM}.json").read_text(encoding="utf-8"))
    document["sessionId"], document["title"] = FORK_ID, "Untitled Session"
    # A fork starts after its parent (cn gives it a fresh dateCreated).
    document["dateCreated"] = str(int(document.get("dateCreated") or FIRST_MTIME * 1000) + 60_000)
    document["history"] += [
        {"message": {"role": "user", "content": "Now add a todo file."}, "contextItems": []},
        {"message": {"role": "assistant", "content": "Added todo.txt."}, "contextItems": []},
    ]
    path = sessions / f"{FORK_ID}.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    os.utime(path, (FIRST_MTIME + 60 * number, FIRST_MTIME + 60 * number))
    return {
        "sessionId": FORK_ID,
        "title": "Untitled Session",
        "workspaceDirectory": document["workspaceDirectory"],
        "dateCreated": document["dateCreated"],
    }


@pytest.fixture
def store(tmp_path: Path) -> Path:
    return build_store(tmp_path / "continue")


def compact(root: Path) -> None:
    """The compaction scenario's second run: `cn --resume` compacted the session in place."""
    after = REAL_CN / "compaction" / "after" / "sessions"
    for path in after.glob("*-*.json"):
        copy = root / "sessions" / path.name
        shutil.copyfile(path, copy)
        moment = FIRST_MTIME + 60 * (len(SCENARIOS) + 1)
        os.utime(copy, (moment, moment))


def indexed(home: Path, store: Path) -> History:
    """The store indexed before and after cn compacted its session: Deja keeps the lost turns."""
    opened = History(home=home, root=store)
    opened.refresh()
    compact(store)
    opened.refresh()
    return opened


@pytest.fixture
def history(tmp_path: Path, store: Path) -> Iterator[History]:
    opened = indexed(tmp_path / "deja", store)
    try:
        yield opened
    finally:
        opened.close()
