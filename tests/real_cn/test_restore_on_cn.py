"""`deja restore last` on a session the real `cn` 1.5.47 auto-compacted: the user messages that
compaction deleted from the file come back."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from deja.query.restore import FORMAT_LINE
from tests.support.scenarios import COMPACTION_SUMMARY, ScenarioRun

pytestmark = pytest.mark.real_cn

Runner = Callable[[str], ScenarioRun]


def test_restore_last_prints_what_cn_compaction_deleted(
    scenario_run: Runner, tmp_path: Path
) -> None:
    run = scenario_run("compaction")
    store = tmp_path / "store"
    env = {
        **os.environ,
        "DEJA_CONTINUE_ROOT": str(store),
        "DEJA_HOME": str(tmp_path / "home"),
        "PYTHONPATH": os.pathsep.join(sys.path),
        "NO_COLOR": "1",
    }

    def deja(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "deja", *args],
            env=env,
            cwd=run.workspace,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    # Deja indexed the session before cn compacted it; then cn rewrote the file in place.
    shutil.copytree(run.snapshots["before"], store / "sessions")
    deja("index")
    shutil.rmtree(store / "sessions")
    shutil.copytree(run.sessions_dir, store / "sessions")
    (session_file,) = run.session_files(store / "sessions")
    on_disk = session_file.read_text(encoding="utf-8")
    request = "Print a long numbered listing."
    assert request not in on_disk  # compaction deleted it

    listing = deja("restore")
    assert "#0 " in listing and "current session, lost context to compaction" in listing

    out = deja("restore", "last")
    assert out.startswith(FORMAT_LINE + "\n")
    assert f'User: "{request}"' in out
    assert "$ seq -f 'listing line %g of the long output' 1 340 → done" in out
    assert "Current session: only what came before its last compaction" in out
    assert "Nothing else is left to do." not in out  # after the compaction: still in context
    assert f'"{request}"' in out.split("Last user messages (oldest first):")[1]


def test_a_session_first_seen_compacted_restores_continues_summary(
    scenario_run: Runner, tmp_path: Path
) -> None:
    """Deja never saw the turns cn's compaction removed: `restore 0` and `restore --session`
    agree with `sessions` (it lost context) and give the summary cn wrote, not nothing."""
    run = scenario_run("compaction")
    env = {
        **os.environ,
        "DEJA_CONTINUE_ROOT": str(run.root),
        "DEJA_HOME": str(tmp_path / "home"),
        "PYTHONPATH": os.pathsep.join(sys.path),
        "NO_COLOR": "1",
    }

    def deja(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "deja", *args],
            env=env, cwd=run.workspace, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        return done.stdout

    sessions = json.loads(deja("sessions", "--json"))["sessions"]
    (session,) = sessions
    assert session["lost_context"]
    listing = deja("restore")
    assert "#0 " in listing
    by_number = deja("restore", "0")
    assert by_number == deja("restore", "--session", session["id"])
    summary = " ".join(COMPACTION_SUMMARY.split())[:60]
    assert summary in " ".join(by_number.split()), by_number
    assert "Deja first saw it after Continue compacted it" in by_number
    assert "Nothing else is left to do." not in by_number  # after the compaction: in context
