"""The reader's rules (issue 2), one or more tests each; each fails if its rule breaks."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import pytest

from deja.continue_store import Record, Session, list_store, read_store, resolve_root
from deja.continue_store.times import parse_date_created
from deja.continue_store.workspace import normalize_workspace, project_name
from tests.support.storebuilder import assistant, call, session_doc, snapshot, user, write_session


def only_session(root: Path) -> Session:
    result = read_store(root)
    assert len(result.sessions) == 1, result.diagnostics
    return result.sessions[0]


def roles(session: Session) -> list[str]:
    return [record.role for record in session.records]


def record_of(session: Session, role: str) -> Record:
    matches = [record for record in session.records if record.role == role]
    assert len(matches) == 1, roles(session)
    return matches[0]


# Rule 1: root and the session list ------------------------------------------------------------


def test_root_prefers_deja_override_then_continue_global_dir_then_home(tmp_path: Path) -> None:
    env = {"DEJA_CONTINUE_ROOT": "/a", "CONTINUE_GLOBAL_DIR": "/b", "HOME": "/h"}
    assert resolve_root(env) == Path("/a")
    assert resolve_root({"CONTINUE_GLOBAL_DIR": "/b", "HOME": "/h"}) == Path("/b")
    assert resolve_root({"HOME": "/h"}) == Path("/h/.continue")


def test_relative_continue_global_dir_is_relative_to_cwd(tmp_path: Path) -> None:
    assert resolve_root({"CONTINUE_GLOBAL_DIR": "rel/dir"}, cwd=tmp_path) == tmp_path / "rel/dir"


def test_sessions_are_list_union_files_deduplicated(tmp_path: Path) -> None:
    write_session(tmp_path, session_doc("s1", [user("hello one")]))
    write_session(tmp_path, session_doc("s2", [user("hello two")]), listed=False)
    # The same id listed twice (a race between two writers) is still one session.
    entries = json.loads((tmp_path / "sessions/sessions.json").read_text())
    (tmp_path / "sessions/sessions.json").write_text(json.dumps(entries + entries))
    result = read_store(tmp_path)
    assert sorted(s.id for s in result.sessions) == ["s1", "s2"]


def test_orphans_both_ways_are_reported_not_fatal(tmp_path: Path) -> None:
    write_session(tmp_path, session_doc("s1", [user("listed and present")]))
    write_session(tmp_path, session_doc("filed", [user("file only")]), listed=False)
    entries = json.loads((tmp_path / "sessions/sessions.json").read_text())
    entries.append({"sessionId": "ghost", "title": "gone", "dateCreated": "1"})
    (tmp_path / "sessions/sessions.json").write_text(json.dumps(entries))
    result = read_store(tmp_path)
    messages = {Path(d.path).name: d.message for d in result.diagnostics}
    assert "no file" in messages["ghost.json"]
    assert "not in sessions.json" in messages["filed.json"]
    assert sorted(s.id for s in result.sessions) == ["filed", "s1"]


def test_legacy_session_id_entries_are_skipped(tmp_path: Path) -> None:
    write_session(tmp_path, session_doc("s1", [user("hi")]))
    entries = json.loads((tmp_path / "sessions/sessions.json").read_text())
    entries.append({"session_id": "legacy-1", "title": "old python server"})
    (tmp_path / "sessions/sessions.json").write_text(json.dumps(entries))
    listing = list_store(tmp_path)
    assert [ref.id for ref in listing.refs] == ["s1"]
    assert not any("legacy" in d.path for d in listing.diagnostics)


def test_missing_sessions_folder_is_reported(tmp_path: Path) -> None:
    listing = list_store(tmp_path / "nowhere")
    assert not listing.exists
    assert "sessions" in listing.diagnostics[0].path


# Rule 2: roles ---------------------------------------------------------------------------------


def test_user_assistant_thinking_become_records_system_and_tool_skipped(tmp_path: Path) -> None:
    history = [
        {"message": {"role": "system", "content": "SYSTEM PROMPT"}, "contextItems": []},
        user("fix the parser"),
        {"message": {"role": "thinking", "content": "pondering the grammar"}, "contextItems": []},
        assistant("", [call("Bash", {"command": "pytest"}, "3 passed", call_id="c1")]),
        {
            "message": {"role": "tool", "content": "DUPLICATE OUTPUT", "toolCallId": "c1"},
            "contextItems": [],
        },
        assistant("all green"),
    ]
    write_session(tmp_path, session_doc("s", history))
    session = only_session(tmp_path)
    assert roles(session) == ["user", "reasoning", "command", "assistant"]
    texts = " ".join(record.text for record in session.records)
    assert "SYSTEM PROMPT" not in texts and "DUPLICATE OUTPUT" not in texts
    assert record_of(session, "command").output == "3 passed"
    assert [record.turn for record in session.records] == [1, 2, 3, 5]


def test_tool_result_falls_back_to_ide_tool_item_when_state_has_no_output(tmp_path: Path) -> None:
    history = [
        user("list"),
        assistant("", [call("run_terminal_command", {"command": "ls"}, None, call_id="t9")]),
        {
            "message": {"role": "tool", "content": "README.md", "toolCallId": "t9"},
            "contextItems": [],
        },
    ]
    write_session(tmp_path, session_doc("s", history))
    assert record_of(only_session(tmp_path), "command").output == "README.md"


# Rule 3: content -------------------------------------------------------------------------------


def test_content_parts_joined_images_become_marker_context_paths_kept(tmp_path: Path) -> None:
    parts = [
        {"type": "text", "text": "look at this"},
        {"type": "imageUrl", "imageUrl": {"url": "data:image/png;base64,iVBORw0KGgoAAAANSUhEUg"}},
        {"type": "text", "text": "and fix it"},
    ]
    item = user(
        parts,
        editorState={"type": "doc", "content": [{"type": "text", "text": "EDITOR STATE"}]},
        promptLogs=[{"prompt": "PROMPT LOG TEXT", "completion": "x"}],
    )
    item["contextItems"] = [
        {
            "id": {"providerTitle": "file", "itemId": "1"},
            "content": "CONTEXT FILE BODY",
            "name": "main.py",
            "description": "src/main.py",
            "uri": {"type": "file", "value": "file:///w/proj/src/main.py"},
        }
    ]
    write_session(tmp_path, session_doc("s", [item]))
    session = only_session(tmp_path)
    assert record_of(session, "user").text == "look at this\n[image]\nand fix it"
    assert record_of(session, "attached").path == "/w/proj/src/main.py"
    texts = " ".join(record.text for record in session.records)
    for absent in ("base64", "iVBOR", "EDITOR STATE", "PROMPT LOG TEXT", "CONTEXT FILE BODY"):
        assert absent not in texts


# Rule 4: summaries -----------------------------------------------------------------------------


def test_cli_compaction_summary_item_becomes_one_summary_record(tmp_path: Path) -> None:
    summary = "We fixed the flaky test by pinning the seed."
    history = [
        {
            "message": {"role": "assistant", "content": summary},
            "contextItems": [],
            "conversationSummary": summary,
        },
        user("continue"),
    ]
    write_session(tmp_path, session_doc("s", history))
    session = only_session(tmp_path)
    assert roles(session) == ["summary", "user"]
    assert record_of(session, "summary").text == summary
    assert session.compacted_on_disk
    assert session.items[0].is_summary


def test_ide_summary_on_existing_item_keeps_the_message_too(tmp_path: Path) -> None:
    history = [user("q"), assistant("the answer", conversationSummary="summary so far")]
    write_session(tmp_path, session_doc("s", history))
    assert roles(only_session(tmp_path)) == ["user", "summary", "assistant"]


# Rule 5: tool calls ----------------------------------------------------------------------------


def test_arguments_fall_back_to_function_arguments_when_parsed_args_missing(
    tmp_path: Path,
) -> None:
    state = call("Bash", {"command": "make build"}, "ok", parsed=False)
    write_session(tmp_path, session_doc("s", [user("b"), assistant("", [state])]))
    assert record_of(only_session(tmp_path), "command").args == "make build"


@pytest.mark.parametrize("tool", ["Read", "read_file", "read_file_range", "List", "ls"])
def test_read_tools_give_read_records_with_resolved_path(tmp_path: Path, tool: str) -> None:
    key = {"List": "dirpath", "ls": "dirPath"}.get(tool, "filepath")
    state = call(tool, {key: "src/app.py"}, "Content of src/app.py:\nprint()")
    write_session(tmp_path, session_doc("s", [user("r"), assistant("", [state])]))
    record = record_of(only_session(tmp_path), "read")
    assert record.path == "/w/proj/src/app.py"
    assert record.tool == tool


@pytest.mark.parametrize(
    ("tool", "args", "expected"),
    [
        (
            "Edit",
            {"file_path": "a.py", "old_string": "x = 1", "new_string": "x = 2"},
            [("x = 1", "x = 2")],
        ),
        (
            "single_find_and_replace",
            {"filepath": "a.py", "old_string": "o", "new_string": "n"},
            [("o", "n")],
        ),
        (
            "MultiEdit",
            {
                "file_path": "a.py",
                "edits": [
                    {"old_string": "a", "new_string": "b"},
                    {"old_string": "c", "new_string": "d"},
                ],
            },
            [("a", "b"), ("c", "d")],
        ),
        (
            "multi_edit",
            {"filepath": "a.py", "edits": [{"old_string": "e", "new_string": "f"}]},
            [("e", "f")],
        ),
        ("Write", {"filepath": "a.py", "content": "print(1)\n"}, [(None, "print(1)\n")]),
        ("create_new_file", {"filepath": "a.py", "contents": "new"}, [(None, "new")]),
        (
            "edit_existing_file",
            {
                "filepath": "a.py",
                "changes": "// ... existing code ...\ndef f():\n    return 2\n"
                "// ... existing code ...\nX = 3",
            },
            [(None, "def f():\n    return 2"), (None, "X = 3")],
        ),
    ],
)
def test_edit_tools_give_replaced_and_written_sides(
    tmp_path: Path, tool: str, args: dict[str, object], expected: list[tuple[str | None, str]]
) -> None:
    state = call(tool, args, "Successfully edited")
    write_session(tmp_path, session_doc("s", [user("e"), assistant("", [state])]))
    record = record_of(only_session(tmp_path), "edit")
    assert record.path == "/w/proj/a.py"
    assert [(h.replaced, h.written) for h in record.hunks] == expected
    assert "existing code" not in record.text


def test_other_tools_give_generic_tool_records(tmp_path: Path) -> None:
    state = call("github_create_issue", {"title": "Crash on start"}, '[{"type":"text"}]')
    write_session(tmp_path, session_doc("s", [user("t"), assistant("", [state])]))
    record = record_of(only_session(tmp_path), "tool")
    assert record.tool == "github_create_issue"
    assert "Crash on start" in record.text and record.args is not None


# Rule 6: statuses ------------------------------------------------------------------------------


@pytest.mark.parametrize("status", ["errored", "canceled", "generating", "generated", "calling"])
def test_unfinished_or_failed_edit_keeps_path_and_status_but_no_lines(
    tmp_path: Path, status: str
) -> None:
    state = call(
        "Edit",
        {"file_path": "a.py", "old_string": "OLD", "new_string": "NEW"},
        "Permission denied by user",
        status=status,
    )
    write_session(tmp_path, session_doc("s", [user("e"), assistant("", [state])]))
    record = record_of(only_session(tmp_path), "edit")
    # A canceled call with this output was refused (see the test below).
    expected = "refused" if status == "canceled" else status
    assert (record.status, record.path, record.hunks) == (expected, "/w/proj/a.py", ())
    assert record.output == "Permission denied by user"


# Rule 7: exit codes ----------------------------------------------------------------------------


def exit_of(tmp_path: Path, state: dict[str, object]) -> int | None:
    write_session(tmp_path, session_doc("s", [user("x"), assistant("", [state])]))
    return record_of(only_session(tmp_path), "command").exit_code


def test_cli_bash_error_text_gives_exit_code(tmp_path: Path) -> None:
    out = "Error executing tool Bash: Error (exit code 3): oops"
    assert exit_of(tmp_path, call("Bash", {"command": "x"}, out, status="errored")) == 3


def test_ide_output_status_gives_exit_code(tmp_path: Path) -> None:
    state = call(
        "run_terminal_command",
        {"command": "make"},
        "make: *** [all] Error 2",
        output_status="Command failed with exit code 2",
    )
    assert exit_of(tmp_path, state) == 2


def test_ide_error_text_gives_exit_code(tmp_path: Path) -> None:
    out = "run_terminal_command failed with the message: Command failed with exit code 127"
    assert exit_of(tmp_path, call("run_terminal_command", {"command": "x"}, out, "errored")) == 127


def test_clean_run_has_no_exit_code(tmp_path: Path) -> None:
    state = call("Bash", {"command": "echo hi"}, "hi\n\nStderr: warning: exit code 5 maybe\n")
    assert exit_of(tmp_path, state) is None


# Rule 8: times ---------------------------------------------------------------------------------


def test_date_created_epoch_ms_and_iso() -> None:
    assert parse_date_created("1750262400123") == pytest.approx(1750262400.123)
    assert parse_date_created("2025-06-18T16:00:00.000Z") == pytest.approx(1750262400.0)
    assert parse_date_created("garbage") is None
    assert parse_date_created(None) is None


def test_turns_one_second_apart_never_after_mtime(tmp_path: Path) -> None:
    history = [user(f"m{i}") for i in range(6)]
    write_session(
        tmp_path, session_doc("s", history), date_created="1750262400000", mtime=1750262403.0
    )
    session = only_session(tmp_path)
    assert [r.time for r in session.records] == [
        1750262400.0,
        1750262401.0,
        1750262402.0,
        1750262403.0,
        1750262403.0,
        1750262403.0,
    ]
    assert session.started == 1750262400.0 and session.last_active == 1750262403.0


def test_start_falls_back_to_mtime_without_date(tmp_path: Path) -> None:
    write_session(tmp_path, session_doc("s", [user("a")]), listed=False, mtime=1700000000.0)
    session = only_session(tmp_path)
    assert session.started == 1700000000.0
    assert session.records[0].time == 1700000000.0


# Rule 9: workspace, project, titles --------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "path", "project"),
    [
        ("file:///home/u/my%20proj", "/home/u/my proj", "my proj"),
        ("file:///c%3A/Users/me/app/", "c:/Users/me/app", "app"),
        ("/home/u/cli-proj", "/home/u/cli-proj", "cli-proj"),
        ("", "", ""),
    ],
)
def test_workspace_uris_decoded_and_project_named(raw: str, path: str, project: str) -> None:
    assert normalize_workspace(raw) == path
    assert project_name(path) == project


def test_workspace_falls_back_to_list_entry(tmp_path: Path) -> None:
    doc = session_doc("s", [user("x")], workspace="")
    write_session(tmp_path, doc)
    entries = json.loads((tmp_path / "sessions/sessions.json").read_text())
    entries[0]["workspaceDirectory"] = "file:///srv/listed"
    (tmp_path / "sessions/sessions.json").write_text(json.dumps(entries))
    session = only_session(tmp_path)
    assert (session.workspace, session.project) == ("/srv/listed", "listed")


@pytest.mark.parametrize("placeholder", ["New Session", "Untitled Session", "[object Object]abc"])
def test_placeholder_titles_are_derived_from_first_user_message(
    tmp_path: Path, placeholder: str
) -> None:
    history = [user([{"type": "text", "text": "\n  Why does   the build fail?\nmore"}])]
    write_session(tmp_path, session_doc("s", history, title=placeholder))
    assert only_session(tmp_path).title == "Why does the build fail?"


def test_real_title_is_kept(tmp_path: Path) -> None:
    write_session(tmp_path, session_doc("s", [user("x")], title="Fix flaky CI"))
    assert only_session(tmp_path).title == "Fix flaky CI"


# Rule 10: secrets ------------------------------------------------------------------------------


def test_secrets_redacted_in_messages_arguments_outputs_and_edits(tmp_path: Path) -> None:
    key = "sk-proj-" + "a1B2c3D4e5F6g7H8i9J0kLmN"
    history = [
        user(f"my key is {key}"),
        assistant(
            "",
            [
                call(
                    "Bash",
                    {"command": f"curl -H 'Authorization: Bearer {key}' x"},
                    f"echo {key}",
                    call_id="a",
                ),
                call(
                    "Write",
                    {"filepath": ".env", "content": f"OPENAI_API_KEY={key}\n"},
                    "ok",
                    call_id="b",
                ),
            ],
        ),
    ]
    write_session(tmp_path, session_doc("s", history))
    session = only_session(tmp_path)
    dump = repr(session)
    assert key not in dump
    assert "[redacted:" in record_of(session, "user").text
    assert "[redacted:" in record_of(session, "edit").hunks[0].written


def test_no_redact_switch_is_the_only_way_out(tmp_path: Path) -> None:
    key = "ghp_" + "x7Kq2Lm9Pz" * 3 + "Ab12Cd"
    write_session(tmp_path, session_doc("s", [user(f"token {key}")]))
    assert key in read_store(tmp_path, redact_secrets=False).sessions[0].records[0].text
    assert key not in read_store(tmp_path).sessions[0].records[0].text


# Rule 11: bad input ----------------------------------------------------------------------------


def test_half_written_file_is_retried_then_reported_and_others_still_read(tmp_path: Path) -> None:
    write_session(tmp_path, session_doc("good", [user("fine")]))
    whole = json.dumps(session_doc("half", [user("partial")]), indent=2)
    write_session(tmp_path, whole[: len(whole) // 2], "half")
    result = read_store(tmp_path)
    assert [s.id for s in result.sessions] == ["good"]
    diagnostic = next(d for d in result.diagnostics if d.path.endswith("half.json"))
    assert "invalid JSON" in diagnostic.message and "retried" in diagnostic.message


def test_half_written_file_completed_during_retry_is_read(tmp_path: Path) -> None:
    whole = json.dumps(session_doc("late", [user("finished in time")]), indent=2)
    path = write_session(tmp_path, whole[:40], "late")
    timer = threading.Timer(0.05, lambda: path.write_text(whole))
    timer.start()
    try:
        result = read_store(tmp_path)
    finally:
        timer.join()
    assert [s.id for s in result.sessions] == ["late"]


@pytest.mark.parametrize(
    "doc",
    [
        b"[1, 2, 3]",
        b'"just a string"',
        b'{"history": {"not": "a list"}}',
        b'{"history": [1, "two", null, {"message": 5}, {"message": {"role": 7, "content": 8}}]}',
        b'{"history": [{"message": {"role": "assistant", "content": "x"}, '
        b'"toolCallStates": [1, {"toolCall": 5, "status": 9, "parsedArgs": "no", "output": 3}]}]}',
        b"\xff\xfe{ not utf8 \x80",
        b'{"title": ["x"], "workspaceDirectory": 5, "history": [{"message": '
        b'{"role": "user", "content": [1, {"type": "text", "text": 2}, null]}}]}',
    ],
)
def test_wrong_shapes_never_crash_and_never_hide_other_sessions(tmp_path: Path, doc: bytes) -> None:
    write_session(tmp_path, session_doc("good", [user("fine")]))
    write_session(tmp_path, doc, "weird", listed=False)
    result = read_store(tmp_path)
    assert "good" in [s.id for s in result.sessions]
    weird = [s for s in result.sessions if s.id == "weird"]
    if not weird:
        assert any(d.path.endswith("weird.json") for d in result.diagnostics)


def test_invalid_utf8_inside_strings_is_replaced_not_fatal(tmp_path: Path) -> None:
    doc = json.dumps(session_doc("u", [user("caf\u00e9 XX")])).encode().replace(b"XX", b"\xff\xfe")
    write_session(tmp_path, doc, "u", listed=False)
    assert "caf\u00e9" in only_session(tmp_path).records[0].text


def test_large_history_and_file_read(tmp_path: Path) -> None:
    history = [user(f"message number {i}") for i in range(100_000)]
    write_session(tmp_path, session_doc("big", history))
    session = only_session(tmp_path)
    assert len(session.records) == 100_000
    assert session.records[-1].text == "message number 99999"


def test_fifo_symlink_and_non_id_names_are_reported_not_read(tmp_path: Path) -> None:
    write_session(tmp_path, session_doc("good", [user("fine")]))
    folder = tmp_path / "sessions"
    os.mkfifo(folder / "fifo.json")
    outside = tmp_path / "outside.json"
    outside.write_text(json.dumps(session_doc("outside", [user("secret elsewhere")])))
    (folder / "link.json").symlink_to(outside)
    (folder / "..hidden.json").write_text("{}")
    started = time.monotonic()
    result = read_store(tmp_path)
    assert time.monotonic() - started < 5
    assert [s.id for s in result.sessions] == ["good"]
    reported = {Path(d.path).name for d in result.diagnostics}
    assert {"fifo.json", "link.json", "..hidden.json"} <= reported


def test_reading_never_changes_the_store(tmp_path: Path) -> None:
    write_session(tmp_path, session_doc("s1", [user("a"), assistant("b")]))
    write_session(tmp_path, b"{broken", "s2", listed=False)
    before = snapshot(tmp_path)
    read_store(tmp_path)
    list_store(tmp_path)
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize(
    ("status", "output", "expected"),
    [
        ("canceled", "Permission denied by user", "refused"),
        ("canceled", "Command blocked by security policy", "refused"),
        ("canceled", "Interactive permission prompt unavailable", "refused"),
        ("canceled", None, "canceled"),
        ("canceled", "The user cancelled this tool call.", "canceled"),
        ("errored", "Error executing tool Bash: Error (exit code 1): Permission denied", "errored"),
        ("done", "Permission denied by user", "done"),
    ],
)
def test_a_call_refused_permission_is_refused_not_canceled(
    tmp_path: Path, status: str, output: str | None, expected: str
) -> None:
    """`cn` records a call it did not run because the user or a policy refused it as `canceled`
    with one of these outputs; other cancellations (stopped, interrupted) stay `canceled`."""
    state = call("Bash", {"command": "rm -rf build"}, output, status=status)
    write_session(tmp_path, session_doc("s", [user("x"), assistant("", [state])]))
    assert record_of(only_session(tmp_path), "command").status == expected
