"""Issue 11: newest-first order when mtimes tie, `deja show` of calls that did not run, and
`deja forget` of what the index does not hold, its dry run, list and undo."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from deja import render_markdown
from deja.cli import render
from deja.index import NotIndexed
from deja.query import History, SearchQuery
from deja.query.restore import Entry, tool_summary
from tests.support.cli_run import deja_env, json_envelope, run_deja
from tests.support.storebuilder import assistant, call, session_doc, user, write_session

WS = "/w/proj"
DAY = 86_400
T0 = 1_750_262_400  # 2025-06-18T16:00:00Z
# Ids sort the same way as their start times: newest first by id alone would be oldest first.
OLDEST = "11111111-0000-4000-8000-000000000001"
MIDDLE = "88888888-0000-4000-8000-000000000002"
NEWEST = "ffffffff-0000-4000-8000-000000000003"


run = run_deja


def cli_env(tmp_path: Path) -> dict[str, str]:
    return deja_env(tmp_path / "store", tmp_path / "home")


def envelope(result: subprocess.CompletedProcess[str], command: str) -> dict[str, Any]:
    assert result.returncode == 0, result.stderr
    return json_envelope(result, command)


# Equal mtimes ---------------------------------------------------------------------------------


def tied_store(root: Path, mtime: float) -> None:
    """Three sessions whose files share one mtime, as after `cp -r` or a restore from backup."""
    for day, (session_id, words) in enumerate(
        [(OLDEST, "oldest work"), (MIDDLE, "middle work"), (NEWEST, "newest work")]
    ):
        write_session(
            root,
            session_doc(session_id, [user(words), assistant("ok")], workspace=WS),
            date_created=str((T0 + day * DAY) * 1000),
            mtime=mtime,
        )


def test_equal_mtimes_order_by_start_then_id(tmp_path: Path) -> None:
    root = tmp_path / "store"
    tied_store(root, T0 + 10 * DAY)
    history = History(home=tmp_path / "home", root=root)
    try:
        history.refresh()
        scope = history.scope_for(cwd=WS).scope
        listed = history.sessions(scope)
        assert [s.id for s in listed] == [NEWEST, MIDDLE, OLDEST]
        assert [s.id for s in listed if s.current] == [NEWEST]
        result = history.restore(cwd=WS)
        assert [(i.number, i.session.id) for i in result.listing] == [(1, MIDDLE), (2, OLDEST)]
        last = history.restore("last", cwd=WS)
        assert [r.session.id for r in last.restored] == [MIDDLE]
        # The newest is current whichever way it is asked for: restored by id, it is whole.
        alone = history.restore(session=NEWEST[:8])
        assert alone.restored[0].until is None and "newest work" in alone.text
    finally:
        history.close()


def test_equal_mtimes_and_equal_starts_order_by_id(tmp_path: Path) -> None:
    root = tmp_path / "store"
    for session_id in (OLDEST, NEWEST, MIDDLE):
        write_session(
            root,
            session_doc(session_id, [user("same time")], workspace=WS),
            date_created=str(T0 * 1000),
            mtime=T0 + DAY,
        )
    history = History(home=tmp_path / "home", root=root)
    try:
        history.refresh()
        first = [s.id for s in history.sessions(history.scope_for(cwd=WS).scope)]
        history.refresh(rebuild=True)
        again = [s.id for s in history.sessions(history.scope_for(cwd=WS).scope)]
        assert first == again == sorted(first)
    finally:
        history.close()


# deja show ---------------------------------------------------------------------------------------

SHOWN = "5a5a5a5a-0000-4000-8000-000000000001"
SUMMARY = "Summary: the upload test was fixed by retrying the request."


def show_store(root: Path) -> None:
    states = [
        call(
            "Read",
            {"filepath": "src/missing.py"},
            "File does not exist: src/missing.py",
            "errored",
            "r1",
        ),
        call("Write", {"filepath": "notes.txt", "content": "draft"}, None, "canceled", "w1"),
        call(
            "Edit",
            {"file_path": "src/app.py", "old_string": "a = 1", "new_string": "a = 2"},
            "Permission denied by user",
            "canceled",
            "e1",
        ),
        call(
            "Bash", {"command": "pytest -q"}, "collected 3 items\n3 passed in 0.12s", "done", "b1"
        ),
        call(
            "Edit",
            {"file_path": "src/up.py", "old_string": "retries = 0", "new_string": "retries = 3"},
            "Successfully edited src/up.py",
            "done",
            "e2",
        ),
        call(
            "Bash",
            {"command": "rm -rf build"},
            "Command blocked by security policy",
            "canceled",
            "b2",
        ),
    ]
    write_session(
        root,
        session_doc(
            SHOWN,
            [
                assistant(SUMMARY, conversationSummary=SUMMARY),
                user("fix the upload test"),
                assistant("Working on it.", states),
            ],
            workspace=WS,
        ),
        mtime=T0 + 600,
    )


@pytest.fixture
def shown(tmp_path: Path) -> dict[str, str]:
    env = cli_env(tmp_path)
    show_store(Path(env["DEJA_CONTINUE_ROOT"]))
    return env


def test_show_marks_calls_that_did_not_run(shown: dict[str, str]) -> None:
    out = run(shown, "show", SHOWN[:8])
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "read /w/proj/src/missing.py → errored" in text
    assert "write /w/proj/notes.txt → canceled" in text
    assert "edit /w/proj/src/app.py → refused" in text
    assert "$ rm -rf build → refused" in text
    assert "edited /w/proj/src/up.py (+1 −1)" in text
    assert "(+0 −0)" not in text
    assert "Summary: Summary:" not in text
    assert "Summary: the upload test was fixed" in text
    # Without --full: no command output, no diff.
    assert "3 passed" not in text and "retries = 3" not in text


def test_blame_names_a_call_that_did_not_run_as_show_does(shown: dict[str, str]) -> None:
    refused = run(shown, "blame", "/w/proj/src/app.py")
    assert refused.returncode == 0, refused.stderr
    assert "edit /w/proj/src/app.py → refused" in refused.stdout
    assert "edited /w/proj/src/app.py" not in refused.stdout
    done = run(shown, "blame", "/w/proj/src/up.py")
    assert "edited /w/proj/src/up.py" in done.stdout and "→" not in done.stdout


def test_show_full_has_command_output_and_edit_diffs(shown: dict[str, str]) -> None:
    out = run(shown, "show", SHOWN, "--full")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    command = next(i for i, line in enumerate(lines) if "$ pytest -q" in line)
    assert "collected 3 items" in lines[command + 1] and "3 passed" in lines[command + 2]
    edit = next(i for i, line in enumerate(lines) if "edited /w/proj/src/up.py" in line)
    assert lines[edit + 1].strip() == "- retries = 0"
    assert lines[edit + 2].strip() == "+ retries = 3"
    # A call that failed says why.
    read = next(i for i, line in enumerate(lines) if "src/missing.py → errored" in line)
    assert "File does not exist" in lines[read + 1]


def test_show_json_has_a_status_per_tool_record(shown: dict[str, str]) -> None:
    data = envelope(run(shown, "show", SHOWN, "--json"), "show")
    statuses = {
        (r["tool"], r["path"] or r["args"]): r["status"]
        for r in data["records"]
        if r["role"] in ("command", "read", "edit", "tool")
    }
    assert statuses == {
        ("Read", "/w/proj/src/missing.py"): "errored",
        ("Write", "/w/proj/notes.txt"): "canceled",
        ("Edit", "/w/proj/src/app.py"): "refused",
        ("Bash", "pytest -q"): "done",
        ("Edit", "/w/proj/src/up.py"): "done",
        ("Bash", "rm -rf build"): "refused",
    }


def test_show_markdown_and_restore_say_the_same(tmp_path: Path) -> None:
    root = tmp_path / "store"
    show_store(root)
    history = History(home=tmp_path / "home", root=root)
    try:
        history.refresh()
        view = history.show(SHOWN)
    finally:
        history.close()
    style = render.Style(sys.stdout)
    seen = set()
    for record in view.records:
        if record.role not in ("command", "read", "edit", "tool") or record.status == "done":
            continue
        entry = Entry(
            0,
            record.turn,
            record.role,
            record.time,
            tool=record.tool,
            status=record.status,
            path=record.path,
            exit_code=record.exit_code,
            args=record.args,
        )
        word = f"→ {record.status}"
        assert tool_summary(entry, WS).endswith(word)
        assert render.record_line(record, style).endswith(word)
        assert word in render_markdown.record(record)[0]
        seen.add(record.status)
    assert seen == {"errored", "canceled", "refused"}
    markdown = render_markdown.session(view)
    assert (
        "Edited `/w/proj/notes.txt`" not in markdown and "Wrote `/w/proj/notes.txt`" not in markdown
    )


# deja forget ---------------------------------------------------------------------------------


KEEP = "0e0e0e0e-0000-4000-8000-000000000001"
CLIENT = "c1c1c1c1-0000-4000-8000-000000000002"
PRIVATE = "9a9a9a9a-0000-4000-8000-000000000003"


@pytest.fixture
def forget_env(tmp_path: Path) -> dict[str, str]:
    env = cli_env(tmp_path)
    root = Path(env["DEJA_CONTINUE_ROOT"])
    for session_id, words, workspace in (
        (KEEP, "ordinary kept words", "/work/mine"),
        (CLIENT, "client contract words", "/work/client"),
        (PRIVATE, "private diary words", "/work/mine"),
    ):
        write_session(
            root, session_doc(session_id, [user(words)], workspace=workspace), mtime=T0 + 60
        )
    assert run(env, "index").returncode == 0
    return env


def hits(env: dict[str, str], words: str) -> int:
    data = envelope(run(env, "search", words, "--all", "--json"), "search")
    return len(data["hits"])


def tombstones(env: dict[str, str]) -> list[dict[str, Any]]:
    listed: list[dict[str, Any]] = envelope(run(env, "forget", "--list", "--json"), "forget")[
        "tombstones"
    ]
    return listed


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--workspace", "/work/nowhere"], "no indexed session"),
        (["--session", "deadbeef-0000-4000-8000-000000000000"], "no session"),
        (["--undo", "deadbeef"], "nothing forgotten"),
    ],
)
def test_forget_of_what_the_index_does_not_hold_is_an_error(
    forget_env: dict[str, str], args: list[str], message: str
) -> None:
    out = run(forget_env, "forget", *args)
    assert out.returncode == 1 and out.stdout == ""
    assert out.stderr.startswith("deja: ") and message in out.stderr
    assert out.stderr.count("\n") == 1
    assert tombstones(forget_env) == []


def test_index_refuses_to_tombstone_nothing(tmp_path: Path) -> None:
    history = History(home=tmp_path / "home", root=tmp_path / "store")
    try:
        with pytest.raises(NotIndexed):
            history._index.forget_session("no-such-session")
        with pytest.raises(NotIndexed):
            history._index.forget_workspace("/no/such/workspace")
        assert history._db.execute("SELECT count(*) FROM tombstones").fetchone()[0] == 0
    finally:
        history.close()


def test_forget_dry_run_lists_and_changes_nothing(forget_env: dict[str, str]) -> None:
    out = run(forget_env, "forget", "--workspace", "/work/mine", "--dry-run")
    assert out.returncode == 0, out.stderr
    assert "would forget 2 sessions" in out.stdout
    assert KEEP[:8] in out.stdout and PRIVATE[:8] in out.stdout and CLIENT[:8] not in out.stdout
    data = envelope(
        run(forget_env, "forget", "--session", PRIVATE[:8], "--dry-run", "--json"), "forget"
    )
    assert data["dry_run"] is True and [s["id"] for s in data["targets"]] == [PRIVATE]
    assert tombstones(forget_env) == []
    assert hits(forget_env, "ordinary") == 1 and hits(forget_env, "private") == 1


def test_forget_list_and_undo_bring_sessions_back(forget_env: dict[str, str]) -> None:
    assert run(forget_env, "forget", "--session", PRIVATE[:8]).returncode == 0
    assert run(forget_env, "forget", "--workspace", "/work/client").returncode == 0
    assert run(forget_env, "index").returncode == 0
    assert hits(forget_env, "private") == 0 and hits(forget_env, "client") == 0
    listed = tombstones(forget_env)
    assert sorted((t["kind"], t["value"]) for t in listed) == [
        ("session", PRIVATE),
        ("workspace", "/work/client"),
    ]
    assert all(t["created"] for t in listed)
    human = run(forget_env, "forget", "--list").stdout
    assert PRIVATE in human and "/work/client" in human

    undone = envelope(run(forget_env, "forget", "--undo", PRIVATE[:8], "--json"), "forget")
    assert undone["undone"]["value"] == PRIVATE
    out = run(forget_env, "forget", "--undo", "/work/client")
    assert out.returncode == 0, out.stderr
    assert tombstones(forget_env) == []
    assert run(forget_env, "index").returncode == 0
    assert hits(forget_env, "private") == 1 and hits(forget_env, "client") == 1


def test_a_forgotten_workspace_stays_forgotten_after_undoing_another(tmp_path: Path) -> None:
    root = tmp_path / "store"
    for session_id, workspace in ((KEEP, "/work/one"), (CLIENT, "/work/two")):
        write_session(
            root, session_doc(session_id, [user(f"words of {workspace}")], workspace=workspace)
        )
    history = History(home=tmp_path / "home", root=root)
    try:
        history.refresh()
        history.forget_workspace("/work/one")
        history.forget_workspace("/work/two")
        history.refresh()
        history.unforget("/work/one")
        history.refresh()
        found = {hit.session_id for hit in history.search(SearchQuery("words", limit=10)).hits}
        assert found == {KEEP}
    finally:
        history.close()
