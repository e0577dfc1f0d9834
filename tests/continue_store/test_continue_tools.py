"""Every tool Continue writes (docs/continue-tools.md), in the shape Continue stores its call:
the record the reader makes of it, and for each tool that changes a file, `blame` crediting
the session that changed a line rather than the one that created the file."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from deja.continue_store import Record, read_store
from deja.query import History, Scope
from tests.support.storebuilder import assistant, call, session_doc, user, write_session

DOC = Path(__file__).parents[2] / "docs" / "continue-tools.md"
WORKSPACE = "/w/proj"
OLD = "    return amount * rate\n"
NEW = "    return round(amount * rate, 2)\n"
BEFORE = "".join(f"def price_{n}(amount):\n    rate = {n} / 100\n{OLD}\n" for n in range(12))
AFTER = BEFORE.replace(f"rate = 7 / 100\n{OLD}", f"rate = 7 / 100\n{NEW}")
CHANGED_LINE = AFTER.split("\n").index(NEW.rstrip("\n"))  # 0-based


def _uri_output(path: str, content: str) -> list[dict[str, Any]]:
    """An IDE tool's result: a context item naming its file."""
    return [
        {"name": "x", "description": "", "content": content, "uri": {"type": "file", "value": path}}
    ]


def _block(search: str, replace: str) -> str:
    return f"------- SEARCH\n{search}\n=======\n{replace}\n+++++++ REPLACE"


# tool → (arguments, result items or None, role, path, hunks); `{f}` stands for the file.
F = "src/a.py"
ABS = f"{WORKSPACE}/{F}"
CASES: dict[str, tuple[dict[str, Any], list[dict[str, Any]] | None, str, str | None, Any]] = {
    "Bash": ({"command": "make", "timeout": 60}, None, "command", None, ()),
    "run_terminal_command": (
        {"command": "make", "waitForCompletion": True},
        None,
        "command",
        None,
        (),
    ),
    "Read": ({"filepath": F}, None, "read", ABS, ()),
    "List": ({"dirpath": "src"}, None, "read", f"{WORKSPACE}/src", ()),
    "read_file": ({"filepath": F}, None, "read", ABS, ()),
    "read_file_range": ({"filepath": F, "startLine": 1, "endLine": 3}, None, "read", ABS, ()),
    "read_file_head": ({"filepath": F}, None, "read", ABS, ()),
    "read_currently_open_file": (
        {},
        _uri_output(f"file://{ABS}", "```a.py\nx\n```"),
        "read",
        ABS,
        (),
    ),
    "ls": ({"dirPath": "src", "recursive": False}, None, "read", f"{WORKSPACE}/src", ()),
    "view_subdirectory": ({"directory_path": "src"}, None, "read", f"{WORKSPACE}/src", ()),
    "Write": ({"filepath": F, "content": "x = 1\n"}, None, "edit", ABS, [(None, "x = 1\n")]),
    "Edit": (
        {"file_path": F, "old_string": "a", "new_string": "b"},
        None,
        "edit",
        ABS,
        [("a", "b")],
    ),
    "MultiEdit": (
        {
            "file_path": F,
            "edits": [
                {"old_string": "a", "new_string": "b"},
                {"old_string": "c", "new_string": "d"},
            ],
        },
        None,
        "edit",
        ABS,
        [("a", "b"), ("c", "d")],
    ),
    "create_new_file": ({"filepath": F, "contents": "x"}, None, "edit", ABS, [(None, "x")]),
    "edit_existing_file": (
        {"filepath": F, "changes": "// ... existing code ...\nx = 2\n// ... existing code ..."},
        None,
        "edit",
        ABS,
        [(None, "x = 2")],
    ),
    "single_find_and_replace": (
        {"filepath": F, "old_string": "a", "new_string": "b", "replace_all": False},
        None,
        "edit",
        ABS,
        [("a", "b")],
    ),
    "multi_edit": (
        {"filepath": F, "edits": [{"old_string": "a", "new_string": "b"}]},
        None,
        "edit",
        ABS,
        [("a", "b")],
    ),
    "search_and_replace_in_file": (
        {
            "filepath": F,
            "diffs": [_block("a = 1", "a = 2") + "\n\n" + _block("c", ""), _block("e", "f")],
        },
        None,
        "edit",
        ABS,
        [("a = 1", "a = 2"), ("c", ""), ("e", "f")],
    ),
    "create_rule_block": (
        {"name": "Tabs", "rule": "Indent with tabs", "alwaysApply": True},
        _uri_output(f"file://{WORKSPACE}/.continue/rules/tabs.md", "Rule created successfully"),
        "edit",
        f"{WORKSPACE}/.continue/rules/tabs.md",
        [(None, "Indent with tabs")],
    ),
    "Search": ({"pattern": "price", "path": "src"}, None, "tool", f"{WORKSPACE}/src", ()),
    "Diff": ({"path": "src"}, None, "tool", f"{WORKSPACE}/src", ()),
    "Fetch": ({"url": "https://example.org"}, None, "tool", None, ()),
    "Checklist": ({"checklist": "- [ ] one"}, None, "tool", None, ()),
    "Status": ({"status": "working"}, None, "tool", None, ()),
    "AskQuestion": ({"question": "which?", "options": ["a", "b"]}, None, "tool", None, ()),
    "Skills": ({"skill_name": "deja-history"}, None, "tool", None, ()),
    "Subagent": ({"description": "d", "prompt": "p", "subagent_name": "s"}, None, "tool", None, ()),
    "CheckBackgroundJob": ({"job_id": "1"}, None, "tool", None, ()),
    "Exit": ({}, None, "tool", None, ()),
    "ReportFailure": ({"errorMessage": "stuck"}, None, "tool", None, ()),
    "UploadArtifact": ({"filePath": "out.log"}, None, "tool", f"{WORKSPACE}/out.log", ()),
    "grep_search": ({"query": "price"}, None, "tool", None, ()),
    "file_glob_search": ({"pattern": "*.py"}, None, "tool", None, ()),
    "exact_search": ({"query": "price"}, None, "tool", None, ()),
    "search_web": ({"query": "price"}, None, "tool", None, ()),
    "codebase": ({"query": "price"}, None, "tool", None, ()),
    "fetch_url_content": ({"url": "https://example.org"}, None, "tool", None, ()),
    "view_diff": ({}, None, "tool", None, ()),
    "view_repo_map": ({}, None, "tool", None, ()),
    "request_rule": ({"name": "tabs"}, None, "tool", None, ()),
    "read_skill": ({"skillName": "deja-history"}, None, "tool", None, ()),
}


def _record(root: Path, name: str, args: dict[str, Any], out: Any) -> Record:
    state = call(name, args, "ok")
    if out is not None:
        state["output"] = out
    write_session(root, session_doc("s", [user("go"), assistant("", [state])]))
    (session,) = read_store(root).sessions
    (record,) = [r for r in session.records if r.role not in ("user", "assistant")]
    return record


def _documented() -> dict[str, str]:
    """Each tool of the docs' table and the role it gives."""
    rows = re.findall(r"^\| `(\w+)`[^|]*\| [^|]+ \| [^|]+ \| (\w+)", DOC.read_text(), re.MULTILINE)
    return dict(rows)


def test_the_docs_table_names_every_tool_and_the_role_the_reader_gives() -> None:
    documented = _documented()
    assert documented == {name: case[2] for name, case in CASES.items()}


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_tool_is_read_with_its_arguments_real_shape(tmp_path: Path, name: str) -> None:
    args, out, role, path, hunks = CASES[name]
    record = _record(tmp_path, name, args, out)
    assert (record.role, record.tool, record.path) == (role, name, path)
    assert [(h.replaced, h.written) for h in record.hunks] == list(hunks)


@pytest.mark.parametrize("name", ["create_new_file", "ls", "run_terminal_command"])
def test_an_older_ides_builtin_prefix_reads_as_the_tool(tmp_path: Path, name: str) -> None:
    args, out, role, path, hunks = CASES[name]
    record = _record(tmp_path, f"builtin_{name}", args, out)
    assert (record.role, record.path) == (role, path)
    assert [(h.replaced, h.written) for h in record.hunks] == list(hunks)


def test_an_unfinished_search_replace_block_is_left_out(tmp_path: Path) -> None:
    diffs = [_block("a", "b") + "\n------- SEARCH\nc\n=======\nd"]
    record = _record(tmp_path, "search_and_replace_in_file", {"filepath": F, "diffs": diffs}, None)
    assert [(h.replaced, h.written) for h in record.hunks] == [("a", "b")]


# Each tool that changes part of a file, its arguments for changing price_7's return line.
EDITS: dict[str, dict[str, Any]] = {
    "Edit": {"file_path": F, "old_string": OLD, "new_string": NEW},
    "MultiEdit": {"file_path": F, "edits": [{"old_string": OLD, "new_string": NEW}]},
    "single_find_and_replace": {"filepath": F, "old_string": OLD, "new_string": NEW},
    "multi_edit": {"filepath": F, "edits": [{"old_string": OLD, "new_string": NEW}]},
    "edit_existing_file": {
        "filepath": F,
        "changes": f"// ... existing code ...\n    rate = 7 / 100\n{NEW}// ... existing code ...",
    },
    "search_and_replace_in_file": {
        "filepath": F,
        "diffs": [_block(f"    rate = 7 / 100\n{OLD}", f"    rate = 7 / 100\n{NEW}")],
    },
}
CREATORS = {"Write": "content", "create_new_file": "contents"}


@pytest.mark.parametrize("name", sorted(EDITS))
def test_blame_credits_the_session_whose_tool_changed_the_line(tmp_path: Path, name: str) -> None:
    workspace = tmp_path / "proj"
    (workspace / "src").mkdir(parents=True)
    (workspace / F).write_text(AFTER)
    store, creator = tmp_path / "store", "create_new_file" if name.islower() else "Write"
    created = call(creator, {"filepath": F, CREATORS[creator]: BEFORE}, "ok")
    changed = call(name, EDITS[name], "ok")
    for sid, state, mtime in (
        ("creator", created, 1_750_000_000),
        ("editor", changed, 1_750_100_000),
    ):
        doc = session_doc(sid, [user("go"), assistant("", [state])], workspace=str(workspace))
        write_session(store, doc, mtime=mtime)
    history = History(home=tmp_path / "home", root=store)
    history.refresh()
    events = history.file_history(str(workspace / F))
    owner = history.provenance(events, AFTER).owner(CHANGED_LINE)
    assert owner is not None and events[owner.event].session_id == "editor"
    first = history.provenance(events, AFTER).owner(0)
    assert first is not None and events[first.event].session_id == "creator"
    assert {e.tool for e in events} == {creator, name}
    (touched,) = history.files("round", Scope()).files  # only the editor's change says it
    assert (touched.path, touched.edits, [t.session_id for t in touched.sessions]) == (
        str(workspace / F),
        1,
        ["editor"],
    )
    history.close()


def test_the_clis_earlier_edit_with_search_replace_blocks_is_read_as_its_blocks(
    tmp_path: Path,
) -> None:
    args = {"filepath": F, "diffs": [_block("x = 1", "x = 2")]}
    record = _record(tmp_path, "Edit", args, None)
    assert (record.role, record.path) == ("edit", ABS)
    assert [(h.replaced, h.written) for h in record.hunks] == [("x = 1", "x = 2")]
