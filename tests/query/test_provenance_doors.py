"""Provenance through the CLI (`deja blame --line`) and MCP (`deja_file_history`): a file a past
Write created, a later Edit changed and a person then edited by hand."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.mcp.test_mcp import McpSession, mcp_session
from tests.support.cli_run import deja_env, json_envelope, run_deja
from tests.support.provenance_store import (
    EDITED_LINE,
    EDITOR,
    EDITOR_TITLE,
    HAND_LINE,
    WRITER,
    WRITER_TITLE,
    Project,
    build,
)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Project:
    return build(tmp_path_factory.mktemp("provenance"))


def blame(project: Project, *args: str) -> dict[str, object]:
    env = deja_env(project.store, project.home)
    result = run_deja(env, "blame", str(project.file), *args, "--json")
    assert result.returncode == 0, result.stderr
    return json_envelope(result, "blame")


def test_a_line_the_write_created_names_the_write(project: Project) -> None:
    data = blame(project, "--line", "2")
    assert data["written_by"] == {
        "session_id": WRITER,
        "title": WRITER_TITLE,
        "turn": 1,
        "tool": "Write",
        "changed_since": False,
    }
    events = data["events"]
    assert isinstance(events, list) and [e["session_id"] for e in events] == [WRITER]
    out = run_deja(deja_env(project.store, project.home), "blame", str(project.file), "--line", "2")
    assert out.stdout.startswith(f"line 2: written by {WRITER_TITLE} ({WRITER[:8]}) #1\n")


def test_a_line_changed_by_hand_is_the_writes_changed_since(project: Project) -> None:
    data = blame(project, "--line", str(HAND_LINE))
    owner = data["written_by"]
    assert isinstance(owner, dict) and owner["session_id"] == WRITER and owner["changed_since"]
    out = run_deja(
        deja_env(project.store, project.home), "blame", str(project.file), "--line", str(HAND_LINE)
    )
    assert f"line {HAND_LINE}: written by {WRITER_TITLE} ({WRITER[:8]}) #1, changed since" in (
        out.stdout
    )


def test_the_newer_edit_owns_its_lines_and_the_write_is_listed_after(project: Project) -> None:
    data = blame(project, "--line", str(EDITED_LINE))
    owner = data["written_by"]
    assert isinstance(owner, dict) and (owner["session_id"], owner["tool"]) == (EDITOR, "Edit")
    assert [e["session_id"] for e in data["events"]] == [EDITOR]  # type: ignore[attr-defined]
    # The `def` line both wrote as it stands: the Edit owns it, the Write comes after.
    events = blame(project, "--line", str(EDITED_LINE - 2))["events"]
    assert isinstance(events, list) and [e["session_id"] for e in events] == [EDITOR, WRITER]
    edit = events[0]
    assert edit["ranges"] == [
        {"start_line": 29, "start_char": 0, "end_line": 31, "end_char": 34}
    ], "the Edit's written text, where it stands now (lines from 1, as --line counts them)"
    assert data["line"] == EDITED_LINE and 29 <= EDITED_LINE <= 31
    # Without --line, every event with its ranges all the same.
    everything = blame(project)["events"]
    assert isinstance(everything, list)
    same = next(e for e in everything if e["session_id"] == EDITOR and e["role"] == "edit")
    assert same["ranges"] == edit["ranges"]


@pytest.mark.parametrize("line", ["0", "-1", "241"])
def test_a_line_outside_the_file_is_a_clear_error(project: Project, line: str) -> None:
    env = deja_env(project.store, project.home)
    result = run_deja(env, "blame", str(project.file), "--line", line)
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.strip() == (
        f"deja: line {line} is not in {project.file}: it has 240 lines (lines count from 1)"
    )
    as_json = run_deja(env, "blame", str(project.file), "--line", line, "--json")
    assert as_json.returncode == 1 and "it has 240 lines" in as_json.stdout


@pytest.fixture(scope="module")
def mcp(project: Project) -> Iterator[McpSession]:
    with mcp_session(project.store, project.home, project.workspace) as session:
        session.ready()
        yield session


def test_mcp_file_history_says_where_each_edit_stands_now(mcp: McpSession) -> None:
    text, error = mcp.call("deja_file_history", {"path": "pricing.py"})
    assert not error
    edit, write = text.split("\n[2] ")
    assert f"{EDITOR_TITLE} · {EDITOR}" in edit and "    now: lines 29–31 of the file\n" in edit
    assert f"{WRITER_TITLE} · {WRITER}" in write
    # The last line is blank: a blank line is claimed only inside a run.
    assert "    now: lines 1–28, 32–239 of the file (1 changed since)\n" in write


def test_mcp_file_history_of_a_file_rewritten_since(mcp: McpSession, project: Project) -> None:
    before = project.file.read_text()
    try:
        project.file.write_text("print('started over')\n")
        text, _ = mcp.call("deja_file_history", {"path": "pricing.py"})
        assert text.count("    now: none of its lines stand in the file") == 2
    finally:
        project.file.write_text(before)
    assert Path(project.file).read_text() == before
