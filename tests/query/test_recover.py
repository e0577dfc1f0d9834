"""`deja recover`: what the index holds of a session written back into Continue's store as a
new session, in Continue's own shape, without changing anything that was there."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from fixtures.continue_builder import ide_user, tool_item

from deja import continue_write
from deja.continue_store.parse import parse_session
from deja.query.recover import workspace_directory
from tests.support.cli_run import deja_env, json_envelope, run_deja
from tests.support.continue_schema import check_list, check_session
from tests.support.storebuilder import assistant, call, session_doc, snapshot, user, write_session

GONE = "aaaaaaaa-0000-4000-8000-000000000001"
KEPT = "bbbbbbbb-0000-4000-8000-000000000002"


def full_history() -> list[dict[str, Any]]:
    return [
        user("make the parser faster please"),
        assistant(
            "Reading it first.",
            [
                call("Read", {"filepath": "src/parser.py"}, "Content of src/parser.py:\ndef parse"),
                call("Bash", {"command": "pytest -q"}, "3 passed", call_id="call_2"),
            ],
        ),
        user("now edit the tokenizer"),
        assistant(
            "Edited.",
            [
                call(
                    "Edit",
                    {"file_path": "src/tok.py", "old_string": "slow()", "new_string": "fast()"},
                    "Successfully edited src/tok.py",
                ),
                call(
                    "Bash",
                    {"command": "make lint"},
                    "Error executing tool Bash: Error (exit code 2): lint failed",
                    status="errored",
                    call_id="call_4",
                ),
            ],
        ),
    ]


@pytest.fixture
def store(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    root = tmp_path / "store"
    write_session(root, session_doc(GONE, full_history(), title="Parser speed", workspace="/w/p"))
    write_session(root, session_doc(KEPT, [user("hello there"), assistant("hi")], title="Kept"))
    env = deja_env(root, tmp_path / "home")
    assert run_deja(env, "index").returncode == 0
    return root, env


def listed(root: Path) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = json.loads((root / "sessions" / "sessions.json").read_text())
    return entries


def recover(env: dict[str, str], *args: str) -> dict[str, Any]:
    done = run_deja(env, "recover", *args, "--json")
    assert done.returncode == 0, done.stderr
    return json_envelope(done, "recover")


def test_a_deleted_session_comes_back_as_a_new_one(store: tuple[Path, dict[str, str]]) -> None:
    root, env = store
    (root / "sessions" / f"{GONE}.json").unlink()
    before = snapshot(root)
    answer = recover(env, GONE[:8])
    new_id = answer["new_id"]
    assert new_id != GONE and answer["written"] and answer["only_deja"] == 4
    document = json.loads((root / "sessions" / f"{new_id}.json").read_text())
    check_session(document)
    assert document["sessionId"] == new_id and document["title"] == "Parser speed (recovered)"
    assert document["workspaceDirectory"] == "/w/p"
    roles = [item["message"]["role"] for item in document["history"]]
    assert roles == ["user", "assistant", "user", "assistant"]
    states = document["history"][3]["toolCallStates"]
    assert states[0]["parsedArgs"] == {
        "file_path": "/w/p/src/tok.py",
        "old_string": "slow()",
        "new_string": "fast()",
    }
    assert states[1]["status"] == "errored" and "lint failed" in states[1]["output"][0]["content"]
    assert document["history"][1]["toolCallStates"][1]["parsedArgs"] == {"command": "pytest -q"}
    # Nothing that was there changed; the list gained one entry, in Continue's shape.
    after = snapshot(root)
    assert {k: v for k, v in after.items() if k in before and not k.endswith("sessions.json")} == {
        k: v for k, v in before.items() if not k.endswith("sessions.json")
    }
    entries = listed(root)
    check_list(entries)
    assert entries[:-1] == json.loads(before[str(root / "sessions" / "sessions.json")][0])
    assert entries[-1]["sessionId"] == new_id and entries[-1]["messageCount"] == 2
    assert answer["fork"]["argv"] == ["cn", "--fork", new_id]
    assert not [p for p in (root / "sessions").iterdir() if "deja-tmp" in p.name]


def reader_facts(path: Path) -> list[tuple[object, ...]]:
    """What Deja's reader makes of a session file: every record but its time."""
    data = path.read_bytes()
    session, warnings = parse_session(
        data,
        session_id="x",
        entry=None,
        file=str(path),
        size=len(data),
        mtime_ns=0,
        redact=lambda text: text,
    )
    assert not warnings
    return [
        (r.turn, r.role, r.text, r.tool, r.status, r.path, r.exit_code, r.output, r.hunks)
        for r in session.records
    ]


def test_the_recovered_file_reads_back_as_the_same_records(
    store: tuple[Path, dict[str, str]],
) -> None:
    root, env = store
    original = root / "sessions" / f"{GONE}.json"
    facts = reader_facts(original)
    original.unlink()
    new_id = recover(env, GONE)["new_id"]
    assert reader_facts(root / "sessions" / f"{new_id}.json") == facts


def test_a_compacted_session_gets_its_turns_back_without_the_summary_marker(
    store: tuple[Path, dict[str, str]],
) -> None:
    root, env = store
    summary = "Summary: the parser and tokenizer were sped up."
    compacted = [
        assistant(summary, conversationSummary=summary),
        user("and then?"),
        assistant("ok"),
    ]
    write_session(root, session_doc(GONE, compacted, title="Parser speed", workspace="/w/p"))
    assert run_deja(env, "index").returncode == 0
    before = snapshot(root)
    answer = recover(env, GONE)
    document = json.loads((root / "sessions" / f"{answer['new_id']}.json").read_text())
    check_session(document)
    texts = [item["message"]["content"] for item in document["history"]]
    assert texts[0] == "make the parser faster please" and texts[-2:] == ["and then?", "ok"]
    assert summary not in texts  # cn resumes from the first summary item: none is written
    assert not any("conversationSummary" in item for item in document["history"])
    assert answer["only_deja"] == 4
    file = str(root / "sessions" / f"{GONE}.json")
    assert snapshot(root)[file] == before[file]


def test_a_session_continue_holds_whole_is_nothing_to_recover_unless_copied(
    store: tuple[Path, dict[str, str]],
) -> None:
    root, env = store
    before = snapshot(root)
    done = run_deja(env, "recover", KEPT)
    assert done.returncode == 1 and "nothing to recover" in done.stderr
    assert "Traceback" not in done.stderr and snapshot(root) == before
    answer = recover(env, KEPT, "--copy")
    assert answer["only_deja"] == 0 and len(listed(root)) == 3


def test_a_list_that_does_not_parse_is_a_refusal(store: tuple[Path, dict[str, str]]) -> None:
    root, env = store
    (root / "sessions" / f"{GONE}.json").unlink()
    (root / "sessions" / "sessions.json").write_text('[{"sessionId": "x",')
    before = snapshot(root)
    done = run_deja(env, "recover", GONE)
    assert done.returncode == 1 and "does not parse" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and snapshot(root) == before


def test_dry_run_shows_the_file_and_the_entry_and_writes_nothing(
    store: tuple[Path, dict[str, str]],
) -> None:
    root, env = store
    (root / "sessions" / f"{GONE}.json").unlink()
    before = snapshot(root)
    done = run_deja(env, "recover", GONE, "--dry-run")
    assert done.returncode == 0, done.stderr
    assert "dry run: nothing written" in done.stdout
    assert '"title": "Parser speed (recovered)"' in done.stdout
    assert "sessions.json: this entry appended" in done.stdout
    assert "redacted" in done.stderr
    assert snapshot(root) == before
    answer = recover(env, GONE, "--dry-run")
    assert not answer["written"]
    check_session(answer["document"])
    assert not (root / "sessions" / f"{answer['new_id']}.json").exists()


def test_what_is_written_is_the_redacted_text(tmp_path: Path) -> None:
    root = tmp_path / "store"
    secret = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    write_session(root, session_doc(GONE, [user(f"my token is {secret}"), assistant("noted")]))
    env = deja_env(root, tmp_path / "home")
    assert run_deja(env, "index").returncode == 0
    os.unlink(root / "sessions" / f"{GONE}.json")
    new_id = recover(env, GONE)["new_id"]
    text = (root / "sessions" / f"{new_id}.json").read_text()
    assert secret not in text and "[redacted:" in text


def test_a_fork_gets_the_turns_it_inherited_before_its_parents_compaction(
    tmp_path: Path,
) -> None:
    root = tmp_path / "store"
    env = deja_env(root, tmp_path / "home")
    parent, fork = GONE, KEPT
    write_session(root, session_doc(parent, full_history(), title="Parent"))
    assert run_deja(env, "index").returncode == 0
    summary = "Summary of the parser work."
    after = [assistant(summary, conversationSummary=summary), user("then this"), assistant("done")]
    write_session(root, session_doc(parent, after, title="Parent"))
    forked = [*after, user("fork's own request"), assistant("fork's own answer")]
    write_session(root, session_doc(fork, forked, title="Fork"), date_created="1750262500000")
    assert run_deja(env, "index").returncode == 0
    shown = json_envelope(run_deja(env, "show", fork, "--json"), "show")["session"]
    assert shown["forked_from"] == parent, shown
    answer = recover(env, fork)
    document = json.loads((root / "sessions" / f"{answer['new_id']}.json").read_text())
    check_session(document)
    texts = [item["message"]["content"] for item in document["history"]]
    assert texts[0] == "make the parser faster please"
    assert texts[-4:] == ["then this", "done", "fork's own request", "fork's own answer"]
    assert summary not in texts and answer["only_deja"] == 4


def test_sessions_lost_lists_what_only_deja_holds(tmp_path: Path) -> None:
    root = tmp_path / "store"
    compacted_id = "cccccccc-0000-4000-8000-000000000003"
    write_session(root, session_doc(GONE, full_history(), title="Parser speed", workspace="/w/p"))
    write_session(root, session_doc(KEPT, [user("hello there"), assistant("hi")], title="Kept"))
    write_session(root, session_doc(compacted_id, full_history(), title="Squashed"))
    env = deja_env(root, tmp_path / "home")
    assert run_deja(env, "index").returncode == 0
    summary = "Summary: sped up."
    squashed = [assistant(summary, conversationSummary=summary), user("more"), assistant("ok")]
    write_session(root, session_doc(compacted_id, squashed, title="Squashed"))
    (root / "sessions" / f"{GONE}.json").unlink()
    done = run_deja(env, "sessions", "--lost", "--all", "--json")
    assert done.returncode == 0, done.stderr
    lost = {
        s["id"]: (s["lost"], s["only_deja"]) for s in json_envelope(done, "sessions")["sessions"]
    }
    assert lost == {GONE: ("deleted", 4), compacted_id: ("compacted", 4)}
    text = run_deja(env, "sessions", "--lost", "--all").stdout
    assert "file gone: 4 turns only Deja holds (deja recover aaaaaaaa)" in text
    assert "compacted: 4 turns only Deja holds (deja recover cccccccc)" in text
    assert "Kept" not in text


@pytest.mark.parametrize(
    ("workspace", "source", "written"),
    [
        ("/home/u/my proj", "cli", "/home/u/my proj"),
        ("/home/u/my proj", "ide", "file:///home/u/my%20proj"),
        ("c:/Users/u/proj", "ide", "file:///c%3A/Users/u/proj"),
        ("//server/share/proj", "ide", "file://server/share/proj"),
        ("", "ide", ""),
    ],
)
def test_the_workspace_is_written_as_continue_wrote_it(
    workspace: str, source: str, written: str
) -> None:
    assert workspace_directory(workspace, source) == written


def test_an_ide_session_keeps_its_tool_items_paired_and_its_workspace_uri(tmp_path: Path) -> None:
    root = tmp_path / "store"
    state = call(
        "run_terminal_command",
        {"command": "ls"},
        "a.txt",
        call_id="t1",
        output_status="Command failed with exit code 2",
    )
    history = [
        ide_user("list the files", "u1"),
        {"message": {"role": "thinking", "content": "I should run ls"}, "contextItems": []},
        assistant("Listing.", [state]),
        tool_item("t1", "a.txt", "u2"),
        assistant("There is a.txt."),
    ]
    write_session(root, session_doc(GONE, history, workspace="file:///w/my%20proj"))
    env = deja_env(root, tmp_path / "home")
    assert run_deja(env, "index").returncode == 0
    (root / "sessions" / f"{GONE}.json").unlink()
    document = json.loads((root / "sessions" / f"{recover(env, GONE)['new_id']}.json").read_text())
    check_session(document)
    assert document["workspaceDirectory"] == "file:///w/my%20proj"
    items = document["history"]
    assert [i["message"]["role"] for i in items] == [
        "user",
        "thinking",
        "assistant",
        "tool",
        "assistant",
    ]
    call_id = items[2]["toolCallStates"][0]["toolCallId"]
    assert items[3]["message"] == {"role": "tool", "content": "a.txt", "toolCallId": call_id}
    assert items[2]["toolCallStates"][0]["parsedArgs"] == {"command": "ls"}
    # The exit code stays where the IDE wrote it, so Deja reads it back from the new file too.
    assert items[2]["toolCallStates"][0]["output"][0]["status"] == "Command failed with exit code 2"
    new_file = root / "sessions" / f"{document['sessionId']}.json"
    assert [f[6] for f in reader_facts(new_file) if f[1] == "command"] == [2]


def test_an_entry_continue_adds_meanwhile_is_kept(tmp_path: Path) -> None:
    """`sessions.json` is read again just before it is replaced: an entry Continue wrote after
    the plan survives."""
    root = tmp_path / "store"
    write_session(root, session_doc(KEPT, [user("hi"), assistant("hello")]))
    new = continue_write.plan_new_session(root, {"title": "t", "history": []}, message_count=0)
    write_session(root, session_doc(GONE, [user("meanwhile"), assistant("ok")]))
    continue_write.write_new_session(new)
    ids = [entry["sessionId"] for entry in listed(root)]
    assert ids == [KEPT, GONE, new.session_id]
    assert json.loads(new.file.read_text())["sessionId"] == new.session_id


def test_a_list_broken_after_the_plan_takes_the_new_file_back_out(tmp_path: Path) -> None:
    root = tmp_path / "store"
    write_session(root, session_doc(KEPT, [user("hi"), assistant("hello")]))
    new = continue_write.plan_new_session(root, {"title": "t", "history": []}, message_count=0)
    (root / "sessions" / "sessions.json").write_text("[{")
    with pytest.raises(continue_write.StoreWriteRefused, match="does not parse"):
        continue_write.write_new_session(new)
    assert not new.file.exists()
    assert (root / "sessions" / "sessions.json").read_text() == "[{"
    assert sorted(p.name for p in (root / "sessions").iterdir()) == [
        f"{KEPT}.json",
        "sessions.json",
    ]


def test_no_sessions_folder_is_a_refusal(tmp_path: Path) -> None:
    with pytest.raises(continue_write.StoreWriteRefused, match="no Continue sessions folder"):
        continue_write.plan_new_session(tmp_path / "nowhere", {"history": []}, message_count=0)
    assert not (tmp_path / "nowhere").exists()


def test_a_session_recovered_once_says_so_and_copy_writes_another(
    store: tuple[Path, dict[str, str]],
) -> None:
    root, env = store
    (root / "sessions" / f"{GONE}.json").unlink()
    first = recover(env, GONE)["new_id"]
    assert run_deja(env, "index").returncode == 0
    before = snapshot(root)
    again = run_deja(env, "recover", GONE)
    assert again.returncode == 1 and f"already recovered: Continue holds it as session {first}" in (
        again.stderr
    )
    assert snapshot(root) == before
    lost = run_deja(env, "sessions", "--lost", "--all").stdout
    assert f"file gone: 4 turns only Deja holds (recovered as {first})" in lost
    assert recover(env, GONE, "--copy")["new_id"] not in (first, GONE)
