"""Every key of the history screen, driven by Textual's pilot over a store the real `cn` wrote."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from textual import events
from textual.widgets import Input

from deja.query import History
from deja.query.handoff import Launch
from deja.tui.app import DejaApp, dark_background
from deja.tui.screens import AnswerScreen, ConfirmScreen, PromptScreen, SessionScreen

from .conftest import FORKED_FROM, WORKSPACE
from .screen import markdown, opened, rows, search, select, settled, status

BASH_FAIL = "08fbb9ac-e294-4687-8a87-8ac6bea4aad4"


async def test_the_first_screen_lists_the_recent_sessions(history: History) -> None:
    async with opened(history) as (app, _):
        listed = rows(app)
        assert len(listed) == 9
        assert listed[0].startswith("Print a long numbered listing.")  # newest: cn compacted it
        assert "compacted" in listed[0]
        assert listed[1].startswith("Now add a todo file.") and "forked" in listed[1]
        assert "searching all" in status(app)  # the cwd is no workspace: said, then all


async def test_typing_searches_and_groups_hits_by_session_with_their_badges(
    history: History,
) -> None:
    async with opened(history) as (app, pilot):
        await search(pilot, "exit")
        listed = rows(app)
        assert listed[0].startswith("Run the failing script and then the quiet one.")
        assert listed[1].startswith("  #1 command → exit 3")
        await pilot.press(*" -oops")  # the query syntax of `deja search`: -word excludes
        await settled(pilot)
        assert not any("→ exit 3" in row for row in rows(app))
        await pilot.press(*["backspace"] * len("exit -oops"), *"Bash")
        await settled(pilot)
        assert any("errored" in row for row in rows(app))  # tool_errors' failed calls
        await pilot.press(*["backspace"] * 4, *"listing")
        await settled(pilot)
        assert any(row.startswith("  #1 command compacted") for row in rows(app))
        await pilot.press("tab")
        await select(pilot, "  #1 command compacted")  # its preview: the turn cn compacted away
        assert "kept by Deja" in markdown(app)


async def test_a_bad_query_is_one_line_and_the_screen_stays(history: History) -> None:
    async with opened(history) as (app, pilot):
        await search(pilot, "-oops")
        assert status(app).startswith("the search needs at least one word to find")
        assert app.is_running


async def test_the_preview_shows_the_hit_turn(history: History) -> None:
    async with opened(history) as (app, pilot):
        await search(pilot, "oops")
        shown = markdown(app)
        assert "`$ sh -c 'echo oops >&2; exit 3'` → exit 3" in shown
        assert "Error (exit code 3): oops" in shown
        await pilot.press(*["backspace"] * 4)
        await search(pilot, "greet_all")
        await pilot.press("tab", "down", "down")  # to the edit's hit
        await settled(pilot)
        assert "```diff\n- def greet(" in markdown(app)  # the edit, as a diff


async def test_enter_opens_the_whole_session_at_the_turn_and_pages(history: History) -> None:
    async with opened(history) as (app, pilot):
        await search(pilot, "oops")
        await pilot.press("enter", "enter")  # to the hits, then open
        await settled(pilot)
        assert isinstance(app.screen, SessionScreen)
        assert (app.screen.page.session.id, app.screen.page.at_turn) == (BASH_FAIL, 1)
        assert "Turn 1" in markdown(app) and "Turn 0" in markdown(app)
        await pilot.press("n")  # one page holds the whole session: nothing further
        await settled(pilot)
        assert app.screen.page.offset == 0
        await pilot.press("escape")
        await settled(pilot)
        assert not isinstance(app.screen, SessionScreen)


async def test_w_toggles_this_workspace_and_all(history: History) -> None:
    async with opened(history, cwd=WORKSPACE) as (app, pilot):
        assert [row.split(" 08fb")[0] for row in rows(app)] == [
            "Run the failing script and then the quiet one."
        ]
        await pilot.press("tab", "w")
        await settled(pilot)
        assert len(rows(app)) == 9


async def test_o_cycles_the_role_filter(history: History) -> None:
    async with opened(history) as (app, pilot):
        await search(pilot, "oops")
        await pilot.press("tab", "o")  # user
        await settled(pilot)
        assert app.role == "user" and "role: user" in str(app.query_one("#scope").render())
        assert rows(app) == [] and "nothing found" in status(app)


async def test_s_filters_by_since_and_says_a_bad_value(history: History) -> None:
    async with opened(history) as (app, pilot):
        await search(pilot, "oops")
        await pilot.press("tab", "s")
        assert isinstance(app.screen, PromptScreen)
        await pilot.press(*"2026-12-30", "enter")
        await settled(pilot)
        assert rows(app) == [] and app.since_text == "2026-12-30"
        await pilot.press("s", *["backspace"] * 10, *"yesterday", "enter")
        await settled(pilot)
        assert "yesterday" in status(app) and app.since_text == "2026-12-30"


async def test_r_resumes_only_after_a_yes(history: History) -> None:
    async with opened(history) as (app, pilot):
        await search(pilot, "oops")
        await pilot.press("tab", "r")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await settled(pilot)
        assert app.is_running and "not run" in status(app)
        await pilot.press("r", "y")
        await settled(pilot)
    assert isinstance(app.return_value, Launch)
    assert app.return_value.argv == ["cn", "--fork", BASH_FAIL]


async def test_h_hands_off_with_the_digest_after_a_yes(history: History) -> None:
    async with opened(history) as (app, pilot):
        await search(pilot, "oops")
        await pilot.press("tab", "h")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await settled(pilot)
    plan = app.return_value
    assert isinstance(plan, Launch) and plan.argv[0] == "cn"
    assert "Run the failing script" in plan.argv[1]


async def test_c_copies_the_restore_transcript(history: History) -> None:
    async with opened(history) as (app, pilot):
        await search(pilot, "oops")
        await pilot.press("tab", "c")
        await settled(pilot)
        assert app.clipboard.startswith("# deja-restore-format: 1")
        assert "echo oops" in app.clipboard
        assert "OSC 52" in status(app) and "deja restore --session 08fbb9ac" in status(app)


async def test_f_shows_deja_fix_for_a_pasted_error(history: History) -> None:
    async with opened(history) as (app, pilot):
        await pilot.press("tab", "f")
        assert isinstance(app.screen, PromptScreen)
        await pilot.press(*"oops", "enter")
        await settled(pilot)
        assert isinstance(app.screen, AnswerScreen)
        assert "sh -c 'echo oops >&2; exit 3'" in markdown(app)
        assert "then `sh -c 'echo partial; exit 3'` (turn 2) ran without the error" in markdown(app)


async def test_b_shows_a_files_blame(history: History) -> None:
    async with opened(history) as (app, pilot):
        await pilot.press("tab", "b", *"notes.txt", "enter")
        await settled(pilot)
        assert isinstance(app.screen, AnswerScreen)
        assert "# History of `notes.txt`" in markdown(app)
        assert "Wrote" in markdown(app)
        await pilot.press("escape", "b", *"no/such/file.py", "enter")
        await settled(pilot)
        assert app.is_running


async def test_question_mark_lists_every_key(history: History) -> None:
    async with opened(history) as (app, pilot):
        await pilot.press("tab", "question_mark")
        await settled(pilot)
        keys = markdown(app)
        for key in ("`w`", "`o`", "`s`", "`r`", "`h`", "`c`", "`f`", "`b`", "`q`"):
            assert key in keys


async def test_q_quits_and_runs_nothing(history: History) -> None:
    async with opened(history) as (app, pilot):
        await pilot.press("tab", "q")
        await settled(pilot)
    assert app.return_value is None


async def test_escape_and_q_typed_as_one_alt_q_quit_from_a_session(history: History) -> None:
    async with opened(history) as (app, pilot):
        await search(pilot, "oops")
        await pilot.press("enter", "enter")
        await settled(pilot)
        assert isinstance(app.screen, SessionScreen)
        await pilot.press("alt+q")  # what a terminal's Escape and q within Textual's delay give
        await settled(pilot)
        assert not app.is_running


async def test_q_in_the_query_line_is_a_letter(history: History) -> None:
    async with opened(history) as (app, pilot):
        await search(pilot, "q")
        assert app.is_running and app.query_one("#query").value == "q"


async def test_the_mouse_selects_a_hit_and_opens_its_session(history: History) -> None:
    async with opened(history) as (app, pilot):
        await search(pilot, "oops")
        await pilot.click("#hits", offset=(4, 1))  # the hit under the group line
        await settled(pilot)
        assert isinstance(app.screen, SessionScreen)
        assert app.screen.page.at_turn == 1


async def test_the_fork_is_marked_and_opens_at_its_own_turns(history: History) -> None:
    async with opened(history) as (app, pilot):
        await search(pilot, "todo")
        assert rows(app)[0].startswith("Now add a todo file.") and "forked" in rows(app)[0]
        await pilot.press("enter", "enter")
        await settled(pilot)
        assert isinstance(app.screen, SessionScreen)
        assert app.screen.page.session.forked_from == FORKED_FROM
        assert "from the session it was forked from" in markdown(app)


async def test_indexing_runs_in_a_worker_while_the_screen_answers(
    tmp_path: Path, store: Path
) -> None:
    unindexed = History(home=tmp_path / "fresh", root=store)
    try:
        async with opened(unindexed, index=True) as (app, pilot):
            await settled(pilot)
            assert not app.indexing and len(rows(app)) == 9  # searched again once it was done
    finally:
        unindexed.close()


def test_the_background_follows_colorfgbg() -> None:
    assert dark_background({"COLORFGBG": "15;0"})
    assert not dark_background({"COLORFGBG": "0;15"})
    assert dark_background({})
    assert DejaApp.__init__.__kwdefaults__["dark"] is None  # type: ignore[index]


async def test_no_color_gives_a_monochrome_screen(
    history: History, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    async with opened(history) as (app, _):
        assert app.no_color


def test_bare_deja_off_a_terminal_prints_the_help_and_loads_no_textual(tmp_path: Path) -> None:
    probe = "import sys; from deja.cli.main import main; code = main([]); print(code);"
    probe += " print('textual' in sys.modules)"
    run = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60,
        stdin=subprocess.DEVNULL, env={**os.environ, "DEJA_HOME": str(tmp_path)},
    )  # fmt: skip
    assert "usage: deja" in run.stdout
    assert run.stdout.splitlines()[-2:] == ["2", "False"]


async def test_a_later_keystroke_cancels_the_searches_it_supersedes(history: History) -> None:
    async with opened(history) as (app, pilot):
        answered = app.searches
        for key in "oops":  # posted together, as a fast typist's or a paste's keys arrive
            app.post_message(events.Key(key, key))
        await settled(pilot)
        assert app.superseded > 0 and app.searches - answered < 4
        assert app.query_one("#query", Input).value == "oops"
        assert rows(app)[1].startswith("  #1 command → exit 3")  # the last query's hits
