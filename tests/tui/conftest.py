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
    "compaction/after",
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
    (sessions / "sessions.json").write_text(json.dumps(listed, indent=2), encoding="utf-8")
    return root


@pytest.fixture
def store(tmp_path: Path) -> Path:
    return build_store(tmp_path / "continue")


@pytest.fixture
def history(tmp_path: Path, store: Path) -> Iterator[History]:
    opened = History(home=tmp_path / "deja", root=store)
    opened.refresh()
    try:
        yield opened
    finally:
        opened.close()
