"""The reader and the index on stores that the real `cn` 1.5.47 wrote, run live in this test
session (not only the captured copies in fixtures/real-cn)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from deja.continue_store import Record, Session, read_store
from deja.query import History, SearchQuery
from tests.support.scenarios import ScenarioRun
from tests.support.storebuilder import snapshot

pytestmark = pytest.mark.real_cn

Runner = Callable[[str], ScenarioRun]


def read_one(run: ScenarioRun) -> Session:
    before = snapshot(run.root)
    result = read_store(run.root)
    assert snapshot(run.root) == before  # reading never touches what cn wrote
    assert len(result.sessions) == 1, result.diagnostics
    return result.sessions[0]


def records(session: Session, role: str) -> list[Record]:
    return [record for record in session.records if record.role == role]


def test_bash_success(scenario_run: Runner) -> None:
    run = scenario_run("bash_ok")
    session = read_one(run)
    (command,) = records(session, "command")
    assert command.args == "echo hello" and command.exit_code is None
    assert command.status == "done" and "hello" in (command.output or "")
    assert session.workspace == str(run.workspace) and session.source == "cli"
    assert session.title == "Run echo hello in the shell."  # cn's "Untitled Session" replaced


def test_bash_failure_exit_codes(scenario_run: Runner) -> None:
    session = read_one(scenario_run("bash_fail"))
    loud, quiet = records(session, "command")
    assert (loud.status, loud.exit_code) == ("errored", 3)
    assert "oops" in loud.text
    # Exit 3 with empty stderr: cn records `done` and loses the code; so do we.
    assert (quiet.status, quiet.exit_code) == ("done", None)


def test_write_gives_an_edit_with_written_text(scenario_run: Runner) -> None:
    run = scenario_run("write_new_file")
    (edit,) = records(read_one(run), "edit")
    assert edit.path == str(run.workspace / "notes.txt")
    assert len(edit.hunks) == 1 and edit.hunks[0].replaced is None
    assert (
        edit.hunks[0].written == (run.workspace / "notes.txt").read_text().rstrip("\n")
        or edit.hunks[0].written == (run.workspace / "notes.txt").read_text()
    )


@pytest.mark.parametrize("scenario", ["read_edit", "read_multiedit"])
def test_read_then_edit(scenario_run: Runner, scenario: str) -> None:
    run = scenario_run(scenario)
    session = read_one(run)
    (read,) = records(session, "read")
    (edit,) = records(session, "edit")
    app = str(run.workspace / "app.py")
    assert read.path == app and edit.path == app and edit.status == "done"
    current = (run.workspace / "app.py").read_text()
    assert edit.hunks and all(h.replaced and h.written in current for h in edit.hunks)


def test_parallel_calls_and_errors(scenario_run: Runner) -> None:
    session = read_one(scenario_run("parallel_tools"))
    (command,) = records(session, "command")
    (read,) = records(session, "read")
    assert command.turn == read.turn
    assert read.status == "errored" and read.path and read.path.endswith("missing.txt")


def test_unknown_tool_and_unparseable_arguments(scenario_run: Runner) -> None:
    session = read_one(scenario_run("tool_errors"))
    (tool,) = records(session, "tool")
    assert tool.tool == "NoSuchTool" and tool.status == "errored"
    (command,) = records(session, "command")
    assert command.status == "errored" and command.args == ""


def test_real_compaction_is_kept_through_index_and_rebuild(
    scenario_run: Runner, tmp_path: Path
) -> None:
    run = scenario_run("compaction")
    store = tmp_path / "store"
    shutil.copytree(run.snapshots["before"], store / "sessions")
    history = History(home=tmp_path / "home", root=store)
    try:
        history.refresh()
        before = history.search(SearchQuery("numbered listing", limit=5)).hits
        assert before and not before[0].compacted
        # Replace the store by what cn left after auto-compaction, as cn rewrote it in place.
        for path in (store / "sessions").iterdir():
            path.unlink()
        for path in run.sessions_dir.iterdir():
            shutil.copy2(path, store / "sessions" / path.name)
        after_file = next(
            p for p in (store / "sessions").glob("*.json") if p.name != "sessions.json"
        )
        assert "numbered listing" not in after_file.read_text()  # gone from disk
        report = history.refresh()
        assert report.kept > 0
        for rebuild in (False, True):
            history.refresh(rebuild=rebuild)
            hits = history.search(SearchQuery("numbered listing", limit=5)).hits
            assert hits and hits[0].compacted
            assert history.search(SearchQuery("Summary", limit=5)).hits
    finally:
        history.close()
