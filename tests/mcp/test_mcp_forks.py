"""Forks through `deja mcp` (issue 13), the real stdio server: a fork written while the server
runs (its incremental pass before each answer picks it up) copies its parent's edit of queue.py;
search and file history name only the parent, and the fork's restore carries the parent's turns
once, marked as the parent's, and says whose it is."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.mcp.test_mcp import mcp_session
from tests.support.storebuilder import assistant, call, session_doc, user, write_session

PARENT = "55555555-aaaa-4bbb-8ccc-000000000005"
FORK = "66666666-aaaa-4bbb-8ccc-000000000006"


def parent_history(workspace: Path) -> list[Any]:
    edit = {
        "file_path": f"{workspace}/queue.py",
        "old_string": "lock = redis_lock()",
        "new_string": "lock = advisory_lock(conn)",
    }
    return [
        user("Which lock should the job queue use?"),
        assistant("", [call("Edit", edit, "Successfully edited queue.py", call_id="e1")]),
        assistant("The queue now takes an advisory lock."),
    ]


def test_mcp_attributes_a_forks_copy_to_its_parent(tmp_path: Path) -> None:
    root, home, workspace = tmp_path / "continue", tmp_path / "home", tmp_path / "proj"
    workspace.mkdir()
    inherited = parent_history(workspace)
    parent = session_doc(PARENT, inherited, title="Pick a lock", workspace=str(workspace))
    write_session(root, parent, date_created="1750262400000", mtime=1750262700)
    with mcp_session(root, home, workspace) as mcp:
        mcp.ready()
        own = [user("Now document the lock choice"), assistant("Wrote the docs paragraph.")]
        fork = session_doc(
            FORK, inherited + own, title="Untitled Session", workspace=str(workspace)
        )
        write_session(root, fork, date_created="1750348800000", mtime=1750348900)
        found, error = mcp.call("deja_search", {"query": "advisory lock"})
        assert not error and PARENT in found and FORK not in found
        edits, _ = mcp.call("deja_file_history", {"path": "queue.py"})
        assert f"{PARENT} · turn 1" in edits and FORK not in edits
        docs, _ = mcp.call("deja_search", {"query": "docs paragraph"})
        assert FORK in docs and PARENT not in docs
        restored, error = mcp.call("deja_restore", {"session": FORK[:8]})
    assert not error
    assert f"forked from Pick a lock ({PARENT[:8]}) at turn 3" in restored
    assert "Now document the lock choice" in restored
    # Its real history: the parent's turns, once, as the parent's.
    assert restored.count("Which lock should the job queue use?") == 1
    assert f"--- inherited: turns #0-#2 of {PARENT[:8]}" in restored
