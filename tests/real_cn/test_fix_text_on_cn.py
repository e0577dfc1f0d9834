"""`deja fix` on what the real `cn` 1.5.47 recorded of a command that prints to stdout, then an
error to stderr, and exits 3: asked with the line `cn` shows (`Error (exit code 3): …`) and with
the command's own mixed output piped in (`cmd 2>&1 | deja fix -`), it finds the failure that the
bare error text finds."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.fake_model import ToolCall, text_reply, tool_reply
from tests.support.scenarios import Scenario, ScenarioRun, Step, run_scenario

pytestmark = pytest.mark.real_cn

DEPLOY = "#!/bin/sh\necho 'starting deploy'\necho '0 errors in the config'\n"
DEPLOY += "echo 'deploy target unreachable: staging-gw' >&2\necho 'cleaning up'\nexit 3\n"
FIXED = "#!/bin/sh\necho 'starting deploy'\necho deployed\n"

SCENARIO = Scenario(
    name="fix_text",
    description="`sh deploy.sh` fails (stdout and stderr, exit 3), is rewritten, then passes.",
    files={"deploy.sh": DEPLOY},
    steps=(
        Step(
            prompt="Run the deploy script and make it work.",
            replies=(
                tool_reply(ToolCall("Bash", {"command": "sh deploy.sh"}, id="call_d1")),
                tool_reply(ToolCall("Read", {"filepath": "deploy.sh"}, id="call_d2")),
                tool_reply(
                    ToolCall("Write", {"filepath": "deploy.sh", "content": FIXED}, id="call_d3")
                ),
                tool_reply(ToolCall("Bash", {"command": "sh deploy.sh"}, id="call_d4")),
                text_reply("deploy.sh works now."),
            ),
        ),
    ),
)


@pytest.fixture(scope="module")
def ran(cn_exe: Path, tmp_path_factory: pytest.TempPathFactory) -> ScenarioRun:
    run = run_scenario(SCENARIO, cn=cn_exe, base=tmp_path_factory.mktemp("fix-text-on-cn"))
    for step in run.steps:
        assert step.proc.returncode == 0, step.proc.stderr
        assert step.replies_left == 0, "cn asked the model fewer times than scripted"
    return run


def test_the_line_cn_shows_and_piped_output_find_the_failure(
    ran: ScenarioRun, tmp_path: Path
) -> None:
    env = {
        **os.environ,
        "DEJA_CONTINUE_ROOT": str(ran.root),
        "DEJA_HOME": str(tmp_path / "home"),
        "PYTHONPATH": os.pathsep.join(sys.path),
        "NO_COLOR": "1",
    }

    def fix(*args: str, stdin: str | None = None) -> dict[str, Any]:
        done = subprocess.run(
            [sys.executable, "-m", "deja", "fix", *args, "--json"],
            env=env, cwd=ran.workspace, input=stdin, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        data: dict[str, Any] = json.loads(done.stdout)
        return data

    stored = [
        state["output"]
        for path in ran.session_files()
        for item in json.loads(path.read_text(encoding="utf-8"))["history"]
        for state in item.get("toolCallStates") or []
        if state.get("status") == "errored"
    ]
    shown = "Error (exit code 3): deploy target unreachable: staging-gw"
    assert any(shown in json.dumps(output) for output in stored), stored  # what cn recorded
    bare = fix("deploy target unreachable: staging-gw")
    assert [f["call"] for f in bare["failures"]] == ["sh deploy.sh"]
    assert fix(shown)["failures"] == bare["failures"]
    script = tmp_path / "deploy.sh"
    script.write_text(DEPLOY, encoding="utf-8")
    mixed = subprocess.run(
        ["/bin/sh", "-c", f"sh {script} 2>&1"], capture_output=True, text=True, timeout=30
    )
    assert mixed.returncode == 3 and "starting deploy" in mixed.stdout
    piped = fix("-", stdin=mixed.stdout)
    assert piped["failures"] == bare["failures"] and piped["failures"][0]["confirmed"]
