"""A wrong or missing store never looks like mass deletion (issue 11): a pass over a store folder
that is missing, unreadable or suddenly empty changes nothing and says so, in the core, the CLI
(every command that runs a pass) and MCP. `deja index --accept-empty` applies an emptied store."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from deja.mcp.tools import Recall
from deja.query import History, Scope
from tests.support.cli_run import deja_env, run_deja
from tests.support.storebuilder import assistant, call, session_doc, user, write_session

FIRST = "aaaaaaaa-1111-4aaa-8bbb-000000000001"
SECOND = "aaaaaaaa-2222-4aaa-8bbb-000000000002"


def build_store(root: Path, workspace: Path) -> None:
    write_session(
        root,
        session_doc(
            FIRST,
            [
                user("make the migration idempotent"),
                assistant(
                    "",
                    [
                        call(
                            "Edit",
                            {
                                "file_path": str(workspace / "migrate.py"),
                                "old_string": "create()",
                                "new_string": "create_if_missing()",
                            },
                            "edited",
                        )
                    ],
                ),
            ],
            title="Idempotent migration",
            workspace=str(workspace),
        ),
    )
    write_session(
        root,
        session_doc(SECOND, [user("rename the queue worker")], workspace=str(workspace)),
    )


@pytest.fixture
def world(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(store, home, workspace), the store indexed once."""
    store, home, workspace = tmp_path / "continue", tmp_path / "home", tmp_path / "proj"
    workspace.mkdir()
    build_store(store, workspace)
    history = History(home, store)
    try:
        assert history.refresh().changed == 2
    finally:
        history.close()
    return store, home, workspace


def live_sessions(home: Path, store: Path) -> list[tuple[str, bool]]:
    history = History(home, store)
    try:
        return sorted((s.id, s.deleted) for s in history.sessions(Scope()))
    finally:
        history.close()


INTACT = [(FIRST, False), (SECOND, False)]


def break_store(store: Path, how: str) -> Path:
    """The store as a wrong setting, an unmounted home or a broken folder shows it."""
    if how == "root missing":
        return store.parent / "not-there"
    if how == "sessions missing":
        shutil.rmtree(store / "sessions")
    elif how == "sessions unreadable":
        shutil.rmtree(store / "sessions")
        (store / "sessions").write_text("not a folder")
    elif how == "emptied":
        for path in (store / "sessions").iterdir():
            path.unlink()
    return store


CASES = ["root missing", "sessions missing", "sessions unreadable", "emptied"]
KINDS = {
    "root missing": "missing",
    "sessions missing": "missing",
    "sessions unreadable": "unreadable",
    "emptied": "empty",
}


@pytest.mark.parametrize("how", CASES)
def test_a_missing_unreadable_or_emptied_store_changes_nothing(
    world: tuple[Path, Path, Path], how: str
) -> None:
    store, home, _ = world
    root = break_store(store, how)
    history = History(home, root)
    try:
        report = history.refresh()
        again = history.refresh(rebuild=True)
    finally:
        history.close()
    assert report.refused is not None and report.refused.problem == KINDS[how]
    assert again.refused is not None
    assert report.deleted == 0 and report.changed_ids == []
    assert str(root / "sessions") in report.refused.message
    assert live_sessions(home, store) == INTACT


def test_an_emptied_store_is_applied_when_accepted(world: tuple[Path, Path, Path]) -> None:
    store, home, _ = world
    break_store(store, "emptied")
    history = History(home, store)
    try:
        report = history.refresh(accept_empty=True)
    finally:
        history.close()
    assert report.refused is None and report.deleted == 2
    assert live_sessions(home, store) == [(FIRST, True), (SECOND, True)]


def test_an_empty_store_over_one_session_at_most_is_applied(tmp_path: Path) -> None:
    store = tmp_path / "continue"
    (store / "sessions").mkdir(parents=True)
    history = History(tmp_path / "home", store)
    try:
        assert history.refresh().refused is None
        only = write_session(store, session_doc(FIRST, [user("the only session")]))
        assert history.refresh().changed == 1
        only.unlink()
        report = history.refresh()
        assert report.refused is None and report.deleted == 1
    finally:
        history.close()


def test_the_store_coming_back_is_indexed_as_usual(world: tuple[Path, Path, Path]) -> None:
    store, home, _ = world
    aside = store.parent / "aside"
    (store / "sessions").rename(aside)
    history = History(home, store)
    try:
        assert history.refresh().refused is not None
        aside.rename(store / "sessions")
        (store / "sessions" / f"{SECOND}.json").unlink()
        report = history.refresh()
    finally:
        history.close()
    assert report.refused is None and report.deleted == 1
    assert live_sessions(home, store) == [(FIRST, False), (SECOND, True)]


# The CLI ---------------------------------------------------------------------------------------


cli_env = deja_env


def deja(
    env: dict[str, str], *args: str, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return run_deja(env, *args, cwd=cwd)


@pytest.mark.parametrize("how", CASES)
def test_deja_index_refuses_a_missing_or_emptied_store_with_one_line(
    world: tuple[Path, Path, Path], how: str
) -> None:
    store, home, _ = world
    root = break_store(store, how)
    for args in (["index"], ["index", "--rebuild"]):
        result = deja(cli_env(root, home), *args)
        assert result.returncode == 1, (args, result.stdout, result.stderr)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("deja: "), result.stderr
        assert str(root / "sessions") in lines[0] and "not applied" in lines[0]
        assert result.stdout == ""
    scripted = deja(cli_env(root, home), "index", "--json")
    assert scripted.returncode == 1 and "Traceback" not in scripted.stderr
    error = json.loads(scripted.stdout)["error"]["message"]
    assert str(root / "sessions") in error and "not applied" in error
    assert live_sessions(home, store) == INTACT


def test_deja_index_accept_empty_applies_an_emptied_store(world: tuple[Path, Path, Path]) -> None:
    store, home, _ = world
    break_store(store, "emptied")
    refused = deja(cli_env(store, home), "index")
    assert refused.returncode == 1 and "--accept-empty" in refused.stderr
    accepted = deja(cli_env(store, home), "index", "--accept-empty")
    assert accepted.returncode == 0, accepted.stderr
    assert "2 marked deleted" in accepted.stdout
    assert live_sessions(home, store) == [(FIRST, True), (SECOND, True)]


def test_accept_empty_does_not_apply_a_missing_store(world: tuple[Path, Path, Path]) -> None:
    store, home, _ = world
    root = break_store(store, "sessions missing")
    result = deja(cli_env(root, home), "index", "--accept-empty")
    assert result.returncode == 1 and "no Continue session store" in result.stderr
    assert live_sessions(home, store) == INTACT


@pytest.mark.parametrize("how", ["root missing", "emptied"])
def test_commands_with_an_implicit_pass_answer_from_the_index_and_say_so_once(
    world: tuple[Path, Path, Path], how: str
) -> None:
    store, home, workspace = world
    root = break_store(store, how)
    env = cli_env(root, home)
    commands = {
        "search": (["search", "idempotent", "--all"], "Idempotent migration"),
        "sessions": (["sessions", "--all"], FIRST[:8]),
        "show": (["show", FIRST], "make the migration idempotent"),
        "blame": (["blame", str(workspace / "migrate.py")], "create_if_missing"),
        "restore": (["restore", "--session", FIRST], "make the migration idempotent"),
        "resume": (["resume", FIRST], f"--fork {FIRST}"),
        "handoff": (["handoff", FIRST], "cn "),
    }
    for name, (args, expected) in commands.items():
        result = deja(env, *args, cwd=workspace)
        assert result.returncode == 0, (name, result.stderr)
        assert expected in result.stdout, (name, result.stdout)
        refusals = [line for line in result.stderr.splitlines() if "not applied" in line]
        assert len(refusals) == 1, (name, result.stderr)
        assert str(root / "sessions") in refusals[0]
    assert live_sessions(home, store) == INTACT


def test_no_store_and_an_empty_index_is_still_an_error(tmp_path: Path) -> None:
    result = deja(cli_env(tmp_path / "none", tmp_path / "home"), "sessions", "--all")
    assert result.returncode == 1 and str(tmp_path / "none") in result.stderr


# MCP -------------------------------------------------------------------------------------------


def test_mcp_answers_do_not_apply_an_emptied_store(world: tuple[Path, Path, Path]) -> None:
    store, home, workspace = world
    break_store(store, "emptied")
    recall = Recall(str(workspace), home=home, root=store)
    recall.start()
    assert recall.wait_indexed(60)
    try:
        text, error = recall.answer("deja_search", {"query": "idempotent migration"})
    finally:
        recall.close()
    assert not error and "Idempotent migration" in text and "not applied" in text
    assert live_sessions(home, store) == INTACT
