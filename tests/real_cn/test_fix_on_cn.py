"""`deja fix` on what the real `cn` 1.5.47 wrote: a session where a script fails, is edited and
then passes; a later session where the same error comes back (from another copy of the script,
another line) and is never fixed; and a different error kept apart. The error is asked the way a
user meets it: pasted from their own terminal, with their own paths and line numbers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.fake_model import ToolCall, text_reply, tool_reply
from tests.support.scenarios import Scenario, ScenarioRun, Step, run_scenario

pytestmark = pytest.mark.real_cn

BROKEN = "import json\nimport yaml_helpers_v2\n\nprint('config ok')\n"
# The same broken import two lines lower: another line number in the traceback.
BROKEN_COPY = "import json\n\n\nimport yaml_helpers_v2\nprint('config ok')\n"

UNUSED_IMPORT = {
    "file_path": "check.py",
    "old_string": "import yaml_helpers_v2\n",
    "new_string": "",
}

FIX_THEN_BREAK = Scenario(
    name="fix_then_break",
    description=(
        "Run 1: `python3 check.py` fails (ModuleNotFoundError, exit 1); an Edit before a Read "
        "is refused; it fails again; Read, Edit removes the import, the same command passes. "
        "Run 2 (a new session): the copy in legacy/ fails the same way and is left; "
        "`python3 -c 'import numpy_nope'` fails with another module."
    ),
    files={"check.py": BROKEN, "legacy/check.py": BROKEN_COPY},
    steps=(
        Step(
            prompt="Make check.py pass.",
            replies=(
                tool_reply(ToolCall("Bash", {"command": "python3 check.py"}, id="call_fix_1")),
                # cn refuses an Edit of a file not Read first: an errored call, no change.
                tool_reply(ToolCall("Edit", UNUSED_IMPORT, id="call_fix_2")),
                tool_reply(ToolCall("Bash", {"command": "python3 check.py"}, id="call_fix_3")),
                tool_reply(ToolCall("Read", {"filepath": "check.py"}, id="call_fix_4")),
                tool_reply(ToolCall("Edit", UNUSED_IMPORT, id="call_fix_5")),
                tool_reply(ToolCall("Bash", {"command": "python3 check.py"}, id="call_fix_6")),
                text_reply("check.py passes now: the unused import is gone."),
            ),
        ),
        Step(
            prompt="Run the legacy checker and the numpy probe.",
            replies=(
                tool_reply(
                    ToolCall("Bash", {"command": "python3 legacy/check.py"}, id="call_leg_1")
                ),
                tool_reply(
                    ToolCall("Bash", {"command": "python3 -c 'import numpy_nope'"}, id="call_np_1")
                ),
                text_reply("Both fail; I left them as they are."),
            ),
        ),
    ),
)

Deja = Callable[..., dict[str, Any]]


@pytest.fixture(scope="module")
def ran(cn_exe: Path, tmp_path_factory: pytest.TempPathFactory) -> ScenarioRun:
    run = run_scenario(FIX_THEN_BREAK, cn=cn_exe, base=tmp_path_factory.mktemp("fix-on-cn"))
    for step in run.steps:
        assert step.proc.returncode == 0, step.proc.stderr
        assert step.replies_left == 0, "cn asked the model fewer times than scripted"
    return run


@pytest.fixture(scope="module")
def deja(ran: ScenarioRun, tmp_path_factory: pytest.TempPathFactory) -> Deja:
    env = {
        **os.environ,
        "DEJA_CONTINUE_ROOT": str(ran.root),
        "DEJA_HOME": str(tmp_path_factory.mktemp("fix-home")),
        "PYTHONPATH": os.pathsep.join(sys.path),
        "NO_COLOR": "1",
    }

    def run(*args: str, stdin: str | None = None) -> dict[str, Any]:
        done = subprocess.run(
            [sys.executable, "-m", "deja", *args, "--json"],
            env=env,
            cwd=ran.workspace,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        data: dict[str, Any] = json.loads(done.stdout)
        return data

    return run


def users_own_traceback(tmp_path: Path) -> str:
    """The error as the user's terminal shows it: their path, their line number."""
    script = tmp_path / "elsewhere" / "check.py"
    script.parent.mkdir()
    script.write_text("\n" * 6 + "import yaml_helpers_v2\n", encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    assert done.returncode == 1 and str(script) in done.stderr and "line 7" in done.stderr
    return done.stderr


def test_cn_recorded_the_failures_as_failures(ran: ScenarioRun) -> None:
    states = [
        state
        for path in ran.session_files()
        for item in json.loads(path.read_text(encoding="utf-8"))["history"]
        for state in item.get("toolCallStates") or []
    ]
    bash = [s for s in states if s["toolCall"]["function"]["name"] == "Bash"]
    # (the two session files in either order)
    assert sorted(s["status"] for s in bash) == ["done", "errored", "errored", "errored", "errored"]
    edits = [s["status"] for s in states if s["toolCall"]["function"]["name"] == "Edit"]
    assert sorted(edits) == ["done", "errored"]
    assert len(ran.session_files()) == 2


def test_fix_finds_the_fix_and_says_when_it_was_never_fixed(
    deja: Deja, tmp_path: Path, ran: ScenarioRun
) -> None:
    answer = deja("fix", "-", stdin=users_own_traceback(tmp_path))
    assert answer["error"] == "ModuleNotFoundError: No module named 'yaml_helpers_v2'"
    fixed, never = answer["failures"]
    assert fixed["call"] == "python3 check.py" and fixed["exit_code"] == 1
    assert fixed["fixed"] and fixed["confirmed"] and fixed["attempts"] == 2
    assert [(s["role"], s["what"]) for s in fixed["steps"]] == [("edit", "check.py")]
    assert fixed["passed_by"]["what"] == "python3 check.py"
    assert fixed["passed_by"]["exit_code"] is None and fixed["passed_by"]["status"] == "done"
    assert never["call"] == "python3 legacy/check.py"
    assert not never["fixed"] and never["steps"] == [] and never["passed_by"] is None
    # The other missing module is another error, not a near miss.
    assert all("numpy_nope" not in f["error"] for f in answer["failures"])
    assert fixed["workspace"] == str(ran.workspace)


def test_the_other_error_has_its_own_answer(deja: Deja) -> None:
    answer = deja("fix", "ModuleNotFoundError: No module named 'numpy_nope'")
    (only,) = answer["failures"]
    assert only["call"] == "python3 -c 'import numpy_nope'" and not only["fixed"]


def test_files_of_the_checker_work(deja: Deja) -> None:
    answer = deja("files", "check.py")
    first = answer["files"][0]
    assert first["relative"] == "check.py" and first["edits"] == 1
    assert len(first["sessions"]) == 1
