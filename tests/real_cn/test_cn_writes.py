"""What the real ``cn`` 1.5.47 writes to the session store, scenario by scenario.

Each scenario (``tests/support/scenarios.py``) runs the real CLI headless against the scripted
fake model; the assertions are on the raw JSON that ``cn`` wrote under
``<CONTINUE_GLOBAL_DIR>/sessions``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.cn_run import MULTIEDIT_MODEL, CnDirs, run_cn
from tests.support.fake_model import FakeModel, text_reply
from tests.support.scenarios import (
    APP_PY,
    COMPACTION_SUMMARY,
    FIXTURES_DIR,
    LISTING_LINES,
    SCENARIOS,
    ScenarioRun,
    load_json,
    store_files,
)

pytestmark = pytest.mark.real_cn

RunScenario = Callable[[str], ScenarioRun]
TOOL_RESULT_KEYS = {"content", "name", "description"}
STATE_KEYS = {"toolCallId", "toolCall", "status", "parsedArgs", "output"}


# -- helpers -----------------------------------------------------------------------------------
def ok(run: ScenarioRun) -> ScenarioRun:
    """Fail unless every cn run exited 0 and used exactly the scripted replies."""
    for result in run.steps:
        assert result.proc.returncode == 0, result.proc.stderr
        assert result.hook_errors == []
        assert result.replies_left == 0, "cn asked the model fewer times than scripted"
    return run


def states(document: dict[str, Any]) -> list[dict[str, Any]]:
    return [state for item in document["history"] for state in item.get("toolCallStates") or []]


def only_output(state: dict[str, Any]) -> str:
    output = state["output"]
    assert isinstance(output, list) and len(output) == 1
    assert set(output[0]) == TOOL_RESULT_KEYS
    assert output[0]["name"] == "Tool Result"
    assert output[0]["description"] == "Tool execution result"
    content = output[0]["content"]
    assert isinstance(content, str)
    return content


def roles(document: dict[str, Any]) -> list[str]:
    return [item["message"]["role"] for item in document["history"]]


def offered_tools(run: ScenarioRun) -> set[str]:
    return {tool["function"]["name"] for tool in run.steps[0].requests[0]["tools"]}


def check_list_entry(run: ScenarioRun, document: dict[str, Any], message_count: int) -> None:
    (entry,) = run.sessions_list()
    assert entry["sessionId"] == document["sessionId"]
    assert entry["title"] == document["title"] == "Untitled Session"
    assert entry["workspaceDirectory"] == document["workspaceDirectory"] == str(run.workspace)
    assert re.fullmatch(r"\d{13}", entry["dateCreated"]), entry["dateCreated"]
    assert entry["messageCount"] == message_count
    assert message_count == sum(1 for role in roles(document) if role == "assistant")


def check_tool_state(state: dict[str, Any], call_id: str, name: str, args: dict[str, Any]) -> None:
    assert set(state) == STATE_KEYS
    assert state["toolCallId"] == call_id
    assert state["toolCall"]["id"] == call_id
    assert state["toolCall"]["type"] == "function"
    assert state["toolCall"]["function"]["name"] == name
    assert json.loads(state["toolCall"]["function"]["arguments"]) == args
    assert state["parsedArgs"] == args


# -- scenarios ---------------------------------------------------------------------------------
def test_bash_success(scenario_run: RunScenario) -> None:
    run = ok(scenario_run("bash_ok"))
    doc = run.session()
    assert list(doc) == ["sessionId", "title", "workspaceDirectory", "history", "usage"]
    assert run.session_files()[0].name == f"{doc['sessionId']}.json"
    assert roles(doc) == ["user", "assistant", "assistant"]
    user = doc["history"][0]
    assert user["message"] == {"role": "user", "content": "Run echo hello in the shell."}
    assert user["editorState"] == "Run echo hello in the shell."
    assert user["contextItems"] == []

    call_item = doc["history"][1]
    assert call_item["message"]["content"] == ""
    (tool_call,) = call_item["message"]["toolCalls"]
    # cn re-serialises the arguments it parsed (compact JSON), it does not keep the model's text
    assert tool_call == {
        "id": "call_bash_ok_1",
        "type": "function",
        "function": {"name": "Bash", "arguments": '{"command":"echo hello"}'},
    }
    (state,) = call_item["toolCallStates"]
    check_tool_state(state, "call_bash_ok_1", "Bash", {"command": "echo hello"})
    assert state["status"] == "done"
    assert only_output(state) == "hello\n"

    # Per-message usage is stored in the provider's snake_case shape, plus cn's own keys.
    assert call_item["message"]["usage"] == {
        "prompt_tokens": 1200,
        "completion_tokens": 1,
        "total_tokens": 1201,
        "model": "deja-fake-model",
        "cost_cents": 0,
    }
    final = doc["history"][2]
    assert final["message"]["content"] == "The command printed hello."
    assert final["message"]["usage"]["prompt_tokens"] == 1300
    assert "toolCallStates" not in final
    # Session usage is camelCase and accumulates.
    assert doc["usage"]["promptTokens"] == 2500
    assert doc["usage"]["completionTokens"] == 2
    assert isinstance(doc["usage"]["totalCost"], float | int)
    check_list_entry(run, doc, message_count=2)

    # The tool result went back to the model as a role:"tool" message (never stored as an item).
    follow_up = run.steps[0].requests[1]["messages"]
    assert follow_up[-1] == {
        "role": "tool",
        "content": "hello\n",
        "tool_call_id": "call_bash_ok_1",
    }
    assert run.steps[0].proc.stdout.strip() == "The command printed hello."


def test_bash_failure_with_stderr_is_errored_with_exit_code(scenario_run: RunScenario) -> None:
    run = ok(scenario_run("bash_fail"))
    doc = run.session()
    failing, _quiet = states(doc)
    check_tool_state(
        failing, "call_bash_fail_1", "Bash", {"command": "sh -c 'echo oops >&2; exit 3'"}
    )
    assert failing["status"] == "errored"
    assert only_output(failing) == "Error executing tool Bash: Error (exit code 3): oops\n"


def test_bash_nonzero_exit_without_stderr_is_done_and_loses_the_code(
    scenario_run: RunScenario,
) -> None:
    run = ok(scenario_run("bash_fail"))
    _, quiet = states(run.session())
    check_tool_state(quiet, "call_bash_fail_2", "Bash", {"command": "sh -c 'echo partial; exit 3'"})
    assert quiet["status"] == "done"
    assert only_output(quiet) == "partial\n"
    assert roles(run.session()) == ["user", "assistant", "assistant", "assistant"]
    check_list_entry(run, run.session(), message_count=3)


def test_write_new_file(scenario_run: RunScenario) -> None:
    run = ok(scenario_run("write_new_file"))
    doc = run.session()
    (state,) = states(doc)
    args = {"filepath": "notes.txt", "content": "line one\nline two\n"}
    check_tool_state(state, "call_write_1", "Write", args)
    assert state["status"] == "done"
    # the path is reported as the model gave it (relative to workspaceDirectory)
    assert only_output(state) == "Successfully created file: notes.txt"
    written = Path(doc["workspaceDirectory"]) / "notes.txt"
    assert written.read_text() == "line one\nline two\n"


def test_read_then_edit(scenario_run: RunScenario) -> None:
    run = ok(scenario_run("read_edit"))
    assert {"Edit", "Read", "Write", "Bash"} <= offered_tools(run)
    assert "MultiEdit" not in offered_tools(run)
    doc = run.session()
    read, edit = states(doc)
    check_tool_state(read, "call_read_1", "Read", {"filepath": "app.py"})
    assert read["status"] == "done"
    assert only_output(read) == f"Content of app.py:\n{APP_PY}"

    check_tool_state(
        edit,
        "call_edit_1",
        "Edit",
        {
            "file_path": "app.py",
            "old_string": "return 'hello'",
            "new_string": "return 'hello, world'",
        },
    )
    assert edit["status"] == "done"
    absolute = run.workspace / "app.py"
    text = only_output(edit)
    # the Edit result names the *absolute* path, and carries a unified diff
    assert text.startswith(f"Successfully edited {absolute}\nDiff:\nIndex: {absolute}\n")
    assert f"--- {absolute}\n+++ {absolute}\n" in text
    assert "-    return 'hello'\n+    return 'hello, world'\n" in text
    assert (run.workspace / "app.py").read_text() == APP_PY.replace("'hello'", "'hello, world'")
    assert roles(doc) == ["user", "assistant", "assistant", "assistant"]
    check_list_entry(run, doc, message_count=3)


def test_read_then_multiedit_with_capable_model_name(scenario_run: RunScenario) -> None:
    run = ok(scenario_run("read_multiedit"))
    assert run.steps[0].requests[0]["model"] == MULTIEDIT_MODEL
    assert "MultiEdit" in offered_tools(run)
    assert "Edit" not in offered_tools(run)
    read, multi = states(run.session())
    assert read["status"] == "done"
    edits = [
        {"old_string": "def greet(", "new_string": "def greet_all("},
        {"old_string": "print(greet())", "new_string": "print(greet_all())"},
    ]
    check_tool_state(
        multi, "call_multiedit_1", "MultiEdit", {"file_path": "app.py", "edits": edits}
    )
    assert multi["status"] == "done"
    absolute = run.workspace / "app.py"
    text = only_output(multi)
    assert text.startswith(f"Successfully edited {absolute} with 2 edits\nDiff:\n")
    assert "-def greet():\n+def greet_all():\n" in text
    assert (run.workspace / "app.py").read_text() == APP_PY.replace("greet(", "greet_all(")


def test_parallel_tool_calls_share_one_assistant_item(scenario_run: RunScenario) -> None:
    run = ok(scenario_run("parallel_tools"))
    doc = run.session()
    assert roles(doc) == ["user", "assistant", "assistant"]
    item = doc["history"][1]
    assert [call["id"] for call in item["message"]["toolCalls"]] == [
        "call_par_bash",
        "call_par_read",
    ]
    bash, read = item["toolCallStates"]
    check_tool_state(bash, "call_par_bash", "Bash", {"command": "echo one"})
    assert (bash["status"], only_output(bash)) == ("done", "one\n")
    check_tool_state(read, "call_par_read", "Read", {"filepath": "missing.txt"})
    # an execution error of Read: prefixed, and worded "File does not exist: <path>"
    assert read["status"] == "errored"
    assert only_output(read) == "Error executing tool Read: File does not exist: missing.txt"


def test_unknown_tool_and_unparseable_arguments(scenario_run: RunScenario) -> None:
    run = ok(scenario_run("tool_errors"))
    unknown, bad = states(run.session())
    check_tool_state(unknown, "call_unknown_1", "NoSuchTool", {"x": 1})
    assert (unknown["status"], only_output(unknown)) == ("errored", "Tool NoSuchTool not found")
    # arguments that are not JSON are stored as "{}" (the model's text is lost)
    check_tool_state(bad, "call_badargs_1", "Bash", {})
    assert bad["toolCall"]["function"]["arguments"] == "{}"
    assert bad["status"] == "errored"
    assert only_output(bad) == 'Required parameter "command" missing for tool "Bash"'


def test_auto_compaction_rewrites_the_session_file(scenario_run: RunScenario) -> None:
    run = ok(scenario_run("compaction"))
    before_dir = run.snapshots["before"]
    before, after = run.session(before_dir), run.session()
    # the same file (same id) is rewritten in place
    assert [p.name for p in store_files(before_dir)] == [p.name for p in run.session_files()]
    assert before["sessionId"] == after["sessionId"]

    assert roles(before) == ["user", "assistant", "assistant"]
    (listing,) = states(before)
    assert listing["status"] == "done"
    assert only_output(listing).count("\n") == LISTING_LINES

    # after: [summary item, reply, user "continue" (added by cn itself), reply]
    assert roles(after) == ["assistant", "assistant", "user", "assistant"]
    summary = after["history"][0]
    assert summary == {
        "message": {"role": "assistant", "content": COMPACTION_SUMMARY},
        "contextItems": [],
        "conversationSummary": COMPACTION_SUMMARY,
    }
    assert after["history"][2]["message"] == {"role": "user", "content": "continue"}
    assert after["history"][2]["editorState"] == "continue"
    assert [item["message"]["content"] for item in after["history"][1::2]] == [
        "Continuing from the summary.",
        "Nothing else is left to do.",
    ]
    # earlier turns are gone from disk -- and so is the prompt of the resumed run itself
    raw_after = run.session_files()[0].read_text()
    assert states(after) == []
    assert "listing line 1 of" not in raw_after
    assert "Now the next step, please." not in raw_after

    # cn really compacted: it asked the model for a summary of the whole history + new prompt
    resumed = run.steps[1]
    (compaction_request,) = resumed.compaction_requests
    sent = [message["role"] for message in compaction_request["messages"]]
    assert sent == ["system", "user", "assistant", "tool", "assistant", "user", "user"]
    assert compaction_request["messages"][-2]["content"] == "Now the next step, please."
    assert resumed.requests[1]["messages"][1]["content"] == COMPACTION_SUMMARY

    (entry_before,) = run.sessions_list(before_dir)
    (entry_after,) = run.sessions_list()
    assert entry_before["dateCreated"] == entry_after["dateCreated"]
    assert (entry_before["messageCount"], entry_after["messageCount"]) == (2, 3)


def test_plain_text_turn_with_run_cn(cn_exe: Path, fake_model: FakeModel, cn_dirs: CnDirs) -> None:
    fake_model.script(text_reply("Just text."))
    proc = run_cn(
        "Say something.",
        cn=cn_exe,
        root=cn_dirs.root,
        home=cn_dirs.home,
        cwd=cn_dirs.work,
        model_url=fake_model.url,
        timeout=90,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "Just text."
    assert len(fake_model.requests) == 1
    assert fake_model.requests[0]["stream"] is True
    (path,) = store_files(cn_dirs.root / "sessions")
    doc = load_json(path)
    assert doc["workspaceDirectory"] == str(cn_dirs.work)
    assert [item["message"] for item in doc["history"]] == [
        {"role": "user", "content": "Say something."},
        {"role": "assistant", "content": "Just text."},
    ]


# -- the checked-in captures still match what cn writes ----------------------------------------
def _normalised(sessions_dir: Path, workspace: str) -> list[Any]:
    documents = [load_json(path) for path in store_files(sessions_dir)]
    listing = load_json(sessions_dir / "sessions.json")
    ids = {doc["sessionId"]: f"<session-{index}>" for index, doc in enumerate(documents)}
    text = json.dumps([documents, listing]).replace(workspace, "<workspace>")
    for real, placeholder in ids.items():
        text = text.replace(real, placeholder)
    result: list[Any] = json.loads(text)
    for entry in result[1]:
        assert re.fullmatch(r"\d{13}", entry.pop("dateCreated"))
    return result


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_fixture_capture_matches_a_fresh_run(scenario_run: RunScenario, name: str) -> None:
    run = ok(scenario_run(name))
    folder = FIXTURES_DIR / name
    meta = load_json(folder / "scenario.json")
    assert meta["scenario"] == name
    pairs = (
        [
            (folder / "before" / "sessions", run.snapshots["before"]),
            (folder / "after" / "sessions", run.sessions_dir),
        ]
        if "before" in run.snapshots
        else [(folder / "sessions", run.sessions_dir)]
    )
    for captured, fresh in pairs:
        assert _normalised(captured, meta["workspaceDirectory"]) == _normalised(
            fresh, str(run.workspace)
        ), f"fixtures/real-cn/{name} is stale: rerun tests/support/capture_real_cn.py"
