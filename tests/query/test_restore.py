"""`deja restore`: selection syntax, collapse rules, the transcript (golden files), `last`, topic
restores, the cache, and the command as a user runs it.

Golden files live in tests/golden/restore/; `DEJA_UPDATE_GOLDEN=1` rewrites them.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from deja.query import History
from deja.query.restore import (
    FORMAT_LINE,
    NO_PREVIOUS,
    Entry,
    RestoreError,
    Selection,
    collapse,
    current_lines,
    expand,
    head_tail,
    listing_lines,
    parse_selection,
    preview,
    tool_summary,
)
from tests.support.storebuilder import assistant, call, session_doc, user, write_session

GOLDEN = Path(__file__).parents[1] / "golden" / "restore"
WS = "/w/proj"  # not a directory anywhere: no `git log` in golden output

A = "aaaaaaaa-0000-4000-8000-000000000001"  # collapse rules, tool summaries
B = "bbbbbbbb-0000-4000-8000-000000000002"  # compacted by the CLI
C = "cccccccc-0000-4000-8000-000000000003"  # summarised by the IDE (nothing removed)
D = "dddddddd-0000-4000-8000-000000000004"  # lost turns without a summary
E = "eeeeeeee-0000-4000-8000-000000000005"  # current, compacted by the CLI
DAY = 86_400
T0 = 1_750_262_400  # 2025-06-18T16:00:00Z


def golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("DEJA_UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"missing golden file {path}: run with DEJA_UPDATE_GOLDEN=1"
    assert text == path.read_text(encoding="utf-8")


def created(day: int) -> str:
    return str((T0 + day * DAY) * 1000)


TITLES = {A: "Fix the upload test", B: "Migrations", C: "Retry helper", D: "Trimmed", E: "Click"}


def put(root: Path, sid: str, history: list[Any], day: int, mtime: float, ws: str = WS) -> None:
    """Write (or rewrite, unlisted) a session at a fixed start and mtime."""
    listed = not (root / "sessions" / f"{sid}.json").exists()
    write_session(
        root,
        session_doc(sid, history, title=TITLES[sid], workspace=ws),
        listed=listed,
        date_created=created(day),
        mtime=mtime,
    )


ASSISTANT_PROSE = (
    "Here is what I found.\n\n"
    "```python\ndef upload(path):\n    | not a table |\n    - not a list\n```\n\n"
    "~~~\nraw block\n~~~\n\n"
    "| file | status |\n|------|--------|\n| a.py | ok |\n| b.py | failing |\n\n"
    "- first point\n- second point\n  continued here\n\n"
    "1. step one\n2) step two\n\n"
    "- a lone bullet stays as text\n\n"
    "```\nunclosed block runs to the end"
)
LONG = " ".join(f"word{i}" for i in range(120))
MEDIUM = " ".join(f"w{i}" for i in range(90))


def collapse_session() -> list[Any]:
    return [
        user(
            "Why does test_upload fail on CI?",
            contextItems=[{"uri": {"type": "file", "value": f"{WS}/src/upload.py"}}],
        ),
        {"message": {"role": "thinking", "content": "thinking is never previewed"}},
        assistant(ASSISTANT_PROSE),
        assistant(
            "Running the test.",
            [
                call(
                    "Bash",
                    {"command": "pytest tests/test_upload.py -x"},
                    "Error executing tool Bash: Error (exit code 1): boom",
                    status="errored",
                    call_id="c1",
                ),
                call("Bash", {"command": "ls\n  -la"}, "total 0", call_id="c2"),
                call("Bash", {"command": "rm -rf /"}, "Permission denied", "canceled", "c3"),
            ],
        ),
        assistant(
            "",
            [
                call("Read", {"filepath": "src/upload.py"}, "Content of src/upload.py", "done"),
                call("List", {"dirpath": "src"}, "upload.py", call_id="c4"),
                call(
                    "Edit",
                    {"file_path": "src/upload.py", "old_string": "a", "new_string": "b"},
                    "Successfully edited",
                    call_id="c5",
                ),
                call("Write", {"filepath": "notes.txt", "content": "x"}, "ok", call_id="c6"),
                call(
                    "Edit",
                    {"file_path": "/elsewhere/x.py", "old_string": "a", "new_string": "b"},
                    "You must use the Read tool first",
                    "errored",
                    "c7",
                ),
                call("Search", {"pattern": "upload("}, "3 matches", call_id="c8"),
                call("NoSuchTool", {"x": 1}, "Tool NoSuchTool not found", "errored", "c9"),
            ],
        ),
        assistant(LONG),
        user("Now a long request: " + LONG),
        user("An unanswered request"),
    ]


def build_store(root: Path) -> History:
    """Four earlier sessions and a current one that lost context, in /w/proj."""
    history = History(home=root.parent / "home", root=root)
    put(root, A, collapse_session(), 0, T0 + 3_600)
    # B: indexed, then compacted by the CLI (the file rewritten to a summary and what followed).
    put(
        root,
        B,
        [
            user("Set up the database migrations"),
            assistant("", [call("Bash", {"command": "alembic upgrade head"}, "ok", call_id="b1")]),
            assistant("Migrations are set up."),
        ],
        1,
        T0 + DAY + 600,
    )
    history.refresh()
    summary = "Summary: alembic is set up and migrations run."
    put(
        root,
        B,
        [
            assistant(summary, conversationSummary=summary),
            assistant("Continuing from the summary."),
            user("continue"),
            assistant("All done."),
        ],
        1,
        T0 + DAY + 1_200,
    )
    # C: the IDE sets a summary on an item and keeps every item.
    put(
        root,
        C,
        [
            user("Explain the retry helper"),
            assistant("It retries three times."),
            assistant("Summing up.", conversationSummary="We discussed the retry helper."),
            user("Make it retry five times"),
            assistant(
                "",
                [
                    call(
                        "Edit",
                        {"file_path": "src/retry.py", "old_string": "3", "new_string": "5"},
                        "ok",
                        call_id="r1",
                    )
                ],
            ),
        ],
        2,
        T0 + 2 * DAY + 600,
    )
    # D: the file loses its first turns without a summary (fewer turns, different start).
    put(
        root,
        D,
        [
            user("Old request one"),
            assistant("Old answer one."),
            user("Old request two"),
            assistant("Old answer two."),
        ],
        3,
        T0 + 3 * DAY + 600,
    )
    history.refresh()
    put(root, D, [user("Kept request"), assistant("Kept answer.")], 3, T0 + 3 * DAY + 1_200)
    # E: the current session, compacted by the CLI.
    put(
        root,
        E,
        [
            user("Port the CLI to click"),
            assistant("", [call("Bash", {"command": "pip install click"}, "ok", call_id="e1")]),
            assistant("Ported the CLI to click."),
            user("Add a --verbose flag"),
            assistant("Added --verbose."),
        ],
        4,
        T0 + 4 * DAY + 600,
    )
    history.refresh()
    summary = "Summary: the CLI uses click and has --verbose."
    put(
        root,
        E,
        [
            assistant(summary, conversationSummary=summary),
            user("continue"),
            assistant("Nothing left."),
        ],
        4,
        T0 + 4 * DAY + 1_200,
    )
    history.refresh()
    return history


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[History]:
    history = build_store(tmp_path_factory.mktemp("restore") / "store")
    yield history
    history.close()


# Selection syntax -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", Selection()),
        ("last", Selection(last=True)),
        (" LAST : flaky  test ", Selection(last=True, topic="flaky test")),
        ("1,3", Selection(((1, 1), (3, 3)))),
        ("1-4", Selection(((1, 4),))),
        ("1, 3-5 ,7", Selection(((1, 1), (3, 5), (7, 7)))),
        ("1,3 : topic", Selection(((1, 1), (3, 3)), topic="topic")),
        ("1,3:topic words", Selection(((1, 1), (3, 3)), topic="topic words")),
        (": topic", Selection(topic="topic")),
        ("0", Selection(((0, 0),))),
    ],
)
def test_parse_selection(text: str, expected: Selection) -> None:
    assert parse_selection(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1-", "needs both ends"),
        ("-3", "needs both ends"),
        ("x", "cannot read 'x'"),
        ("1,x", "cannot read 'x'"),
        ("1,,2", "cannot read"),
        ("1.5", "cannot read"),
        ("4-1", "runs backwards"),
        ("1,3 :", "nothing after ':'"),
        ("lastly", "cannot read"),
    ],
)
def test_parse_selection_rejects(text: str, message: str) -> None:
    with pytest.raises(RestoreError, match=message):
        parse_selection(text)


def test_expand_checks_before_expanding() -> None:
    assert expand([(3, 3), (1, 4)], 5, has_zero=False) == [3, 1, 2, 4]
    assert expand([(0, 0), (2, 2)], 2, has_zero=True) == [0, 2]
    with pytest.raises(RestoreError, match=r"no session #6: this project has 5 earlier"):
        expand([(1, 6)], 5, has_zero=False)
    with pytest.raises(RestoreError, match="no session #99999999999"):
        expand([(1, 99_999_999_999)], 5, has_zero=False)  # fails fast, no huge list
    with pytest.raises(RestoreError, match="no session #0: the current session lost no"):
        expand([(0, 2)], 5, has_zero=False)
    with pytest.raises(RestoreError, match="has none"):
        expand([(1, 1)], 0, has_zero=False)


# Pure rules -----------------------------------------------------------------------------------


def test_collapse_rules() -> None:
    assert collapse(ASSISTANT_PROSE) == [
        "Here is what I found.",
        "",
        "[Code]",
        "",
        "[Code]",
        "",
        "[Table]",
        "",
        "[List]",
        "",
        "[List]",
        "",
        "- a lone bullet stays as text",
        "",
        "[Code]",
    ]
    assert collapse("a | b\n--- | ---\n1 | 2") == ["[Table]"]
    assert collapse("x | y is prose") == ["x | y is prose"]
    assert collapse("````\n```\ninner\n```\n````\nafter") == ["[Code]", "after"]
    assert preview("Intro:\n```\ncode\n```\nthen   done") == "Intro: [Code] then done"


def test_head_tail_keeps_both_ends_on_word_boundaries() -> None:
    assert head_tail("short", 10) == "short"
    cut = head_tail(LONG, 90)
    assert cut.startswith("word0 word1 ") and cut.endswith(" word119")
    assert " […] " in cut and len(cut) <= 95
    assert all(part in LONG.split() for part in cut.replace(" […] ", " ").split())


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        (
            Entry(1, 0, "command", 0, args="make test", exit_code=2, status="errored"),
            "$ make test → exit 2",
        ),
        (Entry(1, 0, "command", 0, args="make", status="done"), "$ make → done"),
        (Entry(1, 0, "command", 0, args="make", status="canceled"), "$ make → canceled"),
        (Entry(1, 0, "command", 0, args="make", status=None), "$ make → no result"),
        (Entry(1, 0, "edit", 0, tool="Edit", path=f"{WS}/a.py", status="done"), "edited a.py"),
        (Entry(1, 0, "edit", 0, tool="Write", path=f"{WS}/n.txt", status="done"), "wrote n.txt"),
        (
            Entry(1, 0, "edit", 0, tool="create_new_file", path="/o/n.txt", status="done"),
            "wrote /o/n.txt",
        ),
        (
            Entry(1, 0, "edit", 0, tool="Edit", path=f"{WS}/a.py", status="errored"),
            "edit a.py → errored",
        ),
        (Entry(1, 0, "read", 0, tool="Read", path=f"{WS}/a.py", status="done"), "read a.py"),
        (Entry(1, 0, "read", 0, tool="List", path=f"{WS}/src", status="done"), "listed src"),
        (
            Entry(1, 0, "tool", 0, tool="Fetch", args='{"url":"x"}', status="done"),
            'Fetch {"url":"x"}',
        ),
    ],
)
def test_tool_summaries(entry: Entry, expected: str) -> None:
    assert tool_summary(entry, WS) == expected


# The transcript -------------------------------------------------------------------------------


def test_listing(store: History) -> None:
    result = store.restore(cwd=WS)
    assert [item.number for item in result.listing] == [0, 1, 2, 3, 4]
    assert [item.session.id for item in result.listing] == [E, D, C, B, A]
    assert result.text == "" and result.total == 4
    lines = listing_lines(
        result.listing,
        scope_label=result.scope,
        total=result.total,
        tz=UTC,
        current=result.current,
        now=T0 + 30 * DAY,
    )
    golden("listing.txt", "\n".join(lines) + "\n")
    paged = store.restore(cwd=WS, limit=2, offset=2)
    assert [(i.number, i.session.id) for i in paged.listing] == [(3, B), (4, A)]


def test_numbered_sessions_golden(store: History) -> None:
    """Every collapse rule, every tool summary, the three kinds of boundary."""
    result = store.restore("1-4", cwd=WS)
    assert [r.session.id for r in result.restored] == [A, B, C, D]  # oldest first
    assert result.text.splitlines()[0] == FORMAT_LINE
    golden("numbered.txt", result.text)
    # Picked one by one, in any order, the same sessions give the same transcript.
    assert store.restore("4,3, 2,1", cwd=WS).text == result.text


def test_last_restores_what_compaction_removed_from_the_current_session(store: History) -> None:
    result = store.restore("last", cwd=WS)
    (restored,) = result.restored
    assert restored.session.id == E and restored.number == 0 and restored.until == 5
    assert "Port the CLI to click" in result.text and "Add a --verbose flag" in result.text
    assert "Nothing left." not in result.text  # after its last compaction: not restored
    golden("last_current.txt", result.text)
    assert store.restore("0", cwd=WS).text == result.text


def test_last_without_context_loss_is_the_most_recent_other(tmp_path: Path) -> None:
    root = tmp_path / "store"
    history = History(home=tmp_path / "home", root=root)
    try:
        put(root, A, [user("older one"), assistant("ok")], 0, T0 + 100)
        put(root, B, [user("newer one"), assistant("ok")], 1, T0 + DAY + 100)
        put(root, C, [user("current one"), assistant("ok")], 2, T0 + 2 * DAY + 100)
        history.refresh()
        result = history.restore("last", cwd=WS)
        assert [(r.session.id, r.number, r.until) for r in result.restored] == [(B, 1, None)]
        assert "newer one" in result.text and "current one" not in result.text
        listing = history.restore(cwd=WS).listing
        assert [i.session.id for i in listing] == [B, A]  # the current one left out
        with pytest.raises(RestoreError, match="no session #0"):
            history.restore("0", cwd=WS)
    finally:
        history.close()


def test_last_with_nothing_to_restore(tmp_path: Path) -> None:
    root = tmp_path / "store"
    history = History(home=tmp_path / "home", root=root)
    try:
        put(root, A, [user("the only one"), assistant("ok")], 0, T0 + 100)
        history.refresh()
        for selection in ("last", ""):
            result = history.restore(selection, cwd=WS)
            assert result.message == NO_PREVIOUS and not result.text and not result.restored
        # A directory no session belongs to is not "every workspace".
        elsewhere = history.restore("last", cwd="/somewhere/else")
        assert elsewhere.message == NO_PREVIOUS and "--all" in elsewhere.notes[0]
        assert history.restore("last", cwd="/somewhere/else", all_workspaces=True).message
    finally:
        history.close()


def test_last_skips_a_current_session_compacted_before_deja_saw_it(tmp_path: Path) -> None:
    root = tmp_path / "store"
    history = History(home=tmp_path / "home", root=root)
    try:
        put(root, A, [user("older work"), assistant("ok")], 0, T0 + 100)
        summary = "Summary: earlier work Deja never saw."
        put(
            root,
            B,
            [assistant(summary, conversationSummary=summary), user("continue"), assistant("ok")],
            1,
            T0 + DAY,
        )
        history.refresh()
        assert history.sessions(history.scope_for(cwd=WS).scope)[0].lost_context
        # `last` wants context the model no longer has: Continue's summary is still in it.
        result = history.restore("last", cwd=WS)
        assert [(r.session.id, r.number) for r in result.restored] == [(A, 1)]
        # Listed as #0, as `sessions` says it lost context; by number or by id, the same text:
        # Continue's summary, which is all Deja holds of what compaction removed.
        assert [i.number for i in history.restore(cwd=WS).listing] == [0, 1]
        alone = history.restore(session=B).text
        assert alone == history.restore("0", cwd=WS).text
        assert f'summary: "{summary}"' in alone
        assert "Deja first saw it after Continue compacted it" in alone
        assert "Nothing left" not in alone and '"continue"' not in alone  # after it: in context
    finally:
        history.close()


def test_session_option_and_conflicts(store: History) -> None:
    assert store.restore(session=B[:8]).text == store.restore("3", cwd=WS).text
    # The current session is cut at its last compaction whichever way it is picked.
    assert store.restore(session=E).text == store.restore("0", cwd=WS).text
    with pytest.raises(RestoreError, match="not both"):
        store.restore("1", session=A)
    with pytest.raises(RestoreError, match="twice"):
        store.restore("1 : a", cwd=WS, topic="b")


# Topic restore ----------------------------------------------------------------------------------


def topic_store(root: Path) -> History:
    history = History(home=root.parent / "home", root=root)
    items: list[Any] = []
    for n in range(30):
        about = "the websocket reconnect backoff" if n in (7, 19) else f"chore number {n}"
        items.append(user(f"Request {n} about {about}. " + MEDIUM))
        items.append(assistant(f"Answer {n} on {about}.\n```\ncode {n}\n```\n" + MEDIUM))
    put(root, A, items, 0, T0 + 3_600)
    put(root, B, [user("current"), assistant("ok")], 1, T0 + DAY)
    history.refresh()
    return history


def cache_files(home: Path) -> dict[str, tuple[bytes, int]]:
    folder = home / "restore-cache"
    if not folder.exists():
        return {}
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in folder.iterdir()}


def test_topic_shows_the_ranked_turns_in_full_and_never_touches_the_cache(
    tmp_path: Path,
) -> None:
    history = topic_store(tmp_path / "store")
    try:
        result = history.restore("1 : websocket reconnect", cwd=WS)
        assert cache_files(history.home) == {}  # a topic restore writes no cache
        (restored,) = result.restored
        # User and assistant turns 7 and 19: history items 14, 15, 38, 39.
        assert restored.full_turns == [14, 15, 38, 39]
        text = result.text
        assert '# topic: "websocket reconnect" · 4 turns shown in full' in text
        for n in (7, 19):
            assert f'User: "Request {n} about the websocket reconnect backoff. {MEDIUM}"' in text
            assert f"  1. Answer {n} on the websocket reconnect backoff.\n     ```" in text
        assert f"Request 8 about chore number 8. {MEDIUM}" not in text  # a preview, cut
        assert "Request 8 about chore number 8. w0" in text and " […] " in text
        golden("topic.txt", text)

        plain = history.restore("1", cwd=WS)
        before = cache_files(history.home)
        assert len(before) == 1 and not plain.restored[0].full_turns
        again = history.restore("1 : websocket", cwd=WS)
        assert again.restored[0].full_turns and cache_files(history.home) == before
        assert history.restore("1", cwd=WS).restored[0].cached
        nothing = history.restore("1 : zzzqqq", cwd=WS)
        assert '# topic: "zzzqqq" · no turn matched; previews only' in nothing.text
    finally:
        history.close()


def test_default_selection_with_a_topic(store: History, tmp_path: Path) -> None:
    result = store.restore(": verbose", cwd=WS)  # the current session lost context: #0
    assert [r.number for r in result.restored] == [0] and result.restored[0].full_turns
    history = topic_store(tmp_path / "store")
    try:
        nothing = history.restore(": websocket", cwd=WS)  # no loss: nothing selected
        assert not nothing.restored and nothing.listing and "Nothing selected" in nothing.message
    finally:
        history.close()


# Cache ------------------------------------------------------------------------------------------


def test_cache_hit_rebuild_on_change_permissions_and_forget(tmp_path: Path) -> None:
    root = tmp_path / "store"
    history = History(home=tmp_path / "home", root=root)
    try:
        put(root, A, [user("first request"), assistant("first answer")], 0, T0 + 100)
        put(root, B, [user("current"), assistant("ok")], 1, T0 + DAY)
        history.refresh()
        cold = history.restore("1", cwd=WS)
        warm = history.restore("1", cwd=WS)
        assert not cold.restored[0].cached and warm.restored[0].cached
        assert warm.text == cold.text
        folder = history.home / "restore-cache"
        (file,) = folder.iterdir()
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
        assert stat.S_IMODE(file.stat().st_mode) == 0o600
        assert A not in file.name  # the file name is a hash, never the id
        # The session changes: its indexed state changes, the cache entry is rebuilt.
        put(root, A, [user("first request"), assistant("first answer"), user("more")], 0, T0 + 200)
        history.refresh()
        changed = history.restore("1", cwd=WS)
        assert not changed.restored[0].cached and '"more"' in changed.text
        # A stale or corrupt file is rebuilt, not trusted.
        file.write_bytes(b"{not json")
        assert history.restore("1", cwd=WS).text == changed.text
        # Forgotten sessions leave the cache at its next write.
        history.forget_session(A)
        put(root, C, [user("another"), assistant("ok")], 0, T0 + 300)
        history.refresh()
        history.restore("1", cwd=WS)
        assert [p.name for p in folder.iterdir()] == [history_cache_name(C)]
    finally:
        history.close()


def history_cache_name(session_id: str) -> str:
    from deja.query.restore import SectionCache

    return SectionCache(Path("/")).path(session_id).name


# Closing block: commits --------------------------------------------------------------------


def test_closing_block_lists_the_workspace_commits_of_the_range(tmp_path: Path) -> None:
    workspace = tmp_path / "repo"
    workspace.mkdir()

    def git(*args: str, date: str | None = None) -> None:
        env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
        if date:
            env |= {"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
        subprocess.run(
            ["git", "-C", str(workspace), *args], check=True, env=env, capture_output=True
        )

    git("init", "-q")
    git("config", "user.email", "dev@example.com")
    git("config", "user.name", "Dev")
    for name, date in (("inside", "2025-06-18T16:30:00Z"), ("outside", "2025-07-01T12:00:00Z")):
        (workspace / f"{name}.txt").write_text(name)
        git("add", f"{name}.txt")
        git("commit", "-q", "-m", f"commit {name}", date=date)
    root = tmp_path / "store"
    history = History(home=tmp_path / "home", root=root)
    try:
        ws = str(workspace)
        put(root, A, [user("the work"), assistant("done")], 0, T0 + 3_600, ws=ws)
        put(root, B, [user("current"), assistant("ok")], 20, T0 + 20 * DAY, ws=ws)
        history.refresh()
        text = history.restore("1", cwd=ws).text
        assert f"Commits in {ws} during that time (git log --since=2025-06-18T16:00:00Z" in text
        assert "commit inside" in text and "inside.txt | 1 +" in text
        assert "commit outside" not in text
    finally:
        history.close()


# The command ------------------------------------------------------------------------------------


@pytest.fixture
def cli_env(tmp_path: Path) -> tuple[dict[str, str], Path]:
    workspace = tmp_path / "proj"
    workspace.mkdir()
    env = {
        **os.environ,
        "DEJA_CONTINUE_ROOT": str(tmp_path / "store"),
        "DEJA_HOME": str(tmp_path / "home"),
        "PYTHONPATH": os.pathsep.join(sys.path),
        "NO_COLOR": "1",
    }
    return env, workspace


def deja(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "deja", "restore", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_command_listing_selection_errors_and_json(cli_env: tuple[dict[str, str], Path]) -> None:
    env, workspace = cli_env
    root = Path(env["DEJA_CONTINUE_ROOT"])
    ws = str(workspace)
    put(root, A, [user("older request"), assistant("ok")], 0, T0 + 100, ws=ws)
    put(root, B, [user("newer request"), assistant("ok")], 1, T0 + DAY, ws=ws)
    put(root, C, [user("current request"), assistant("ok")], 2, T0 + 2 * DAY, ws=ws)

    listing = deja(env, workspace)
    assert listing.returncode == 0, listing.stderr
    assert listing.stdout.startswith(f"Sessions in {ws}, newest first (#1-#2 of 2):\n#1 ")
    assert "first: newer request" in listing.stdout and "current request" not in listing.stdout

    for words in (["1,2", ":", "older"], ["1,2:older"], ["1,", "2", ":older"]):
        out = deja(env, workspace, *words)
        assert out.returncode == 0, out.stderr
        assert out.stdout.startswith(FORMAT_LINE + '\n# topic: "older"')

    for bad, message in (("1-", "needs both ends"), ("x", "cannot read 'x'"), ("3", "#3")):
        out = deja(env, workspace, bad)
        assert out.returncode == 1 and out.stdout == ""
        assert out.stderr.startswith("deja: ") and message in out.stderr
        assert out.stderr.count("\n") == 1

    data = json.loads(deja(env, workspace, "last", "--json").stdout)
    assert data["schema"] == 1 and data["command"] == "restore"
    assert data["restored"][0]["id"] == B and data["restored"][0]["number"] == 1
    assert data["text"].startswith(FORMAT_LINE)
    assert deja(env, workspace, "--session", A[:8]).stdout.count("older request") >= 1


def test_command_last_with_no_previous_session_exits_0(
    cli_env: tuple[dict[str, str], Path],
) -> None:
    env, workspace = cli_env
    put(
        Path(env["DEJA_CONTINUE_ROOT"]),
        A,
        [user("only"), assistant("ok")],
        0,
        T0,
        ws=str(workspace),
    )
    out = deja(env, workspace, "last")
    assert (out.returncode, out.stderr) == (0, "")
    # Nothing before the current session; which one that is, and how to restore it anyway.
    assert out.stdout.startswith(NO_PREVIOUS + "\nCurrent session (not numbered): ")
    assert out.stdout.endswith("deja restore --session aaaaaaaa restores it\n")


def test_forget_removes_the_cached_transcript(tmp_path: Path) -> None:
    store = tmp_path / "store"
    write_session(store, session_doc("f1", [user("private plans for the launch")]))
    history = History(home=tmp_path / "home", root=store)
    try:
        history.refresh()
        history.restore(session="f1")
        cache = tmp_path / "home" / "restore-cache"
        assert list(cache.glob("*.json"))
        history.forget_session("f1")
        assert list(cache.glob("*.json")) == []
    finally:
        history.close()


# Issue 11: the current session is named, commits of the session's own window ------------------


def test_listing_names_the_current_session_and_how_to_restore_it(tmp_path: Path) -> None:
    root = tmp_path / "store"
    history = History(home=tmp_path / "home", root=root)
    try:
        put(root, A, [user("older one"), assistant("ok")], 0, T0 + 100)
        put(root, B, [user("newest one"), assistant("ok")], 1, T0 + DAY + 100)
        history.refresh()
        result = history.restore(cwd=WS)
        assert [i.session.id for i in result.listing] == [A]
        assert result.current is not None and result.current.session.id == B
        lines = listing_lines(
            result.listing,
            scope_label=result.scope,
            total=result.total,
            tz=UTC,
            current=result.current,
            now=T0 + 30 * DAY,
        )
        text = "\n".join(lines)
        assert (
            'Current session (not numbered): "Migrations" (bbbbbbbb), the newest in /w/proj,'
            " last active 2025-06-19 16:01" in text
        )
        assert "Not the one you are in? deja restore --session bbbbbbbb restores it" in text
        # The hint does what it says.
        assert history.restore(session="bbbbbbbb").restored[0].session.id == B
        # A file written a moment ago: the session open now.
        recent = current_lines(result.current, scope_label=WS, now=T0 + DAY + 160)
        assert "written 1 minute ago (open now)" in recent[0]
    finally:
        history.close()


def test_command_says_which_session_it_left_out(cli_env: tuple[dict[str, str], Path]) -> None:
    env, workspace = cli_env
    root = Path(env["DEJA_CONTINUE_ROOT"])
    ws = str(workspace)
    put(root, A, [user("the only one"), assistant("ok")], 0, T0 + 100, ws=ws)
    for selection in ([], ["last"]):
        out = deja(env, workspace, *selection)
        assert out.returncode == 0, out.stderr
        assert out.stdout.startswith(NO_PREVIOUS + "\n")
        assert '"Fix the upload test" (aaaaaaaa), the newest in ' in out.stdout
        assert "deja restore --session aaaaaaaa restores it" in out.stdout
    data = json.loads(deja(env, workspace, "--json").stdout)
    assert data["current"]["id"] == A and data["current"]["why"] == "newest"
    assert data["current"]["restore"] == "deja restore --session aaaaaaaa"
    # `last` picks the one before the current session, and says which one it left out.
    put(root, B, [user("newer one"), assistant("ok")], 1, T0 + DAY, ws=ws)
    out = deja(env, workspace, "last")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith(FORMAT_LINE) and "the only one" in out.stdout
    assert out.stderr.count("\n") == 1
    assert 'left out the current session "Migrations" (bbbbbbbb)' in out.stderr
    assert "deja restore --session bbbbbbbb" in out.stderr


def test_commits_are_those_of_the_sessions_own_window(tmp_path: Path) -> None:
    """From a session's first turn until the next session there starts, or two hours after its
    last activity, whichever is sooner."""
    workspace = tmp_path / "repo"
    workspace.mkdir()
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}

    def git(*args: str, date: str | None = None) -> None:
        dated = env | ({"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date} if date else {})
        subprocess.run(
            ["git", "-C", str(workspace), *args], check=True, env=dated, capture_output=True
        )

    git("init", "-q")
    git("config", "user.email", "dev@example.com")
    git("config", "user.name", "Dev")
    hour = 3_600
    # A: T0 → T0+1h; B starts T0+2h (before A's two hours are up), last active T0+2h10m.
    commits = {
        "during-a": T0 + hour // 2,
        "after-a": T0 + 3 * hour // 2,  # after A's last activity, before B starts
        "in-b": T0 + 5 * hour // 2,  # B has started: B's, not A's
        "late": T0 + 5 * hour,  # more than two hours after B's last activity
    }
    for name, when in commits.items():
        (workspace / f"{name}.txt").write_text(name)
        git("add", f"{name}.txt")
        stamp = datetime.fromtimestamp(when, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        git("commit", "-q", "-m", f"commit {name}", date=stamp)
    root = tmp_path / "store"
    history = History(home=tmp_path / "home", root=root)
    ws = str(workspace)
    try:
        put(root, A, [user("work a"), assistant("done")], 0, T0 + hour, ws=ws)
        write_session(
            root,
            session_doc(B, [user("work b"), assistant("done")], workspace=ws),
            date_created=str((T0 + 2 * hour) * 1000),
            mtime=T0 + 2 * hour + 600,
        )
        put(root, C, [user("current"), assistant("ok")], 20, T0 + 20 * DAY, ws=ws)
        history.refresh()

        def shown(selection: str) -> set[str]:
            text = history.restore(selection, cwd=ws).text
            return {name for name in commits if f"commit {name}" in text}

        assert shown("2") == {"during-a", "after-a"}
        assert shown("1") == {"in-b"}
        assert shown("1-2") == {"during-a", "after-a", "in-b"}
    finally:
        history.close()
