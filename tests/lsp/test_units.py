"""The sidecar's logic without a server: options, parameters, the watcher, file views, markdown,
lenses, hovers, scopes and fork commands, over real indexes built from small stores."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import stat
import threading
import time
from collections import namedtuple
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
from lsprotocol import types
from pygls.workspace import PositionCodec

from deja import render_markdown
from deja.continue_store.watch import MOST_TICKS, RETRIES, StoreWatcher
from deja.live_index import PassCancelled, PassProgress, ProgressReport
from deja.lsp.documents import FileView, FileViews, build_view, client_range
from deja.lsp.errors import RequestError
from deja.lsp.hover import hover_markdown
from deja.lsp.lens import lenses
from deja.lsp.options import ServerOptions, parse_options
from deja.lsp.params import Params, command_params, plain
from deja.lsp.requests import file_history_result, search_result, session_result
from deja.lsp.views import file_view_name, write_view
from deja.operations import SearchRequest
from deja.query import History, LineRange, Scope, SearchQuery
from deja.query.fork_command import fork_command
from deja.wire import hit_json
from tests.lsp.conftest import (
    CONFIG_PY,
    EDIT_SESSION,
    NEW,
    OTHER_SESSION,
    World,
    edit_session,
    make_world,
)
from tests.support.storebuilder import session_doc, user, write_session

UTF16 = PositionCodec(types.PositionEncodingKind.Utf16)


@pytest.fixture
def indexed(tmp_path: Path) -> Iterator[tuple[World, History]]:
    world = make_world(tmp_path)
    history = History(world.home, world.store)
    history.refresh()
    yield world, history
    history.close()


# Options ----------------------------------------------------------------------------------------


def test_options_default_when_absent() -> None:
    assert parse_options(None) == (ServerOptions(), [])
    assert parse_options({}) == (ServerOptions(), [])


def test_good_options_are_typed(tmp_path: Path) -> None:
    raw = {"continueRoot": str(tmp_path), "dejaHome": "~/deja-test", "scope": "all"}
    options, problems = parse_options(raw)
    assert problems == []
    assert options.continue_root == tmp_path and options.scope == "all"
    assert options.deja_home == Path("~/deja-test").expanduser()


def test_each_wrong_option_is_named_and_defaulted(tmp_path: Path) -> None:
    raw = {
        "continueRoot": str(tmp_path / "missing"),
        "dejaHome": "relative/home",
        "scope": "everywhere",
        "colour": "blue",
    }
    options, problems = parse_options(raw)
    assert options == ServerOptions()
    text = "\n".join(problems)
    for needle in ("continueRoot", "is not a folder", "dejaHome", "absolute", "everywhere"):
        assert needle in text
    assert "unknown option 'colour'" in text
    assert all(problem.endswith("using the default") for problem in problems)
    options, problems = parse_options({"continueRoot": 42})
    assert options.continue_root is None and "must be a folder path" in problems[0]


def test_options_that_are_not_an_object() -> None:
    options, problems = parse_options(["scope", "all"])
    assert options == ServerOptions() and "must be an object" in problems[0]


# Parameters -------------------------------------------------------------------------------------


def test_params_come_back_from_namedtuples() -> None:
    Position = namedtuple("Position", ["line", "character"])
    Outer = namedtuple("Outer", ["uri", "position", "tags"])
    raw = Outer("file:///a.py", Position(3, 4), [Position(1, 2)])
    assert plain(raw) == {
        "uri": "file:///a.py",
        "position": {"line": 3, "character": 4},
        "tags": [{"line": 1, "character": 2}],
    }
    assert Params("x", raw).position() == types.Position(3, 4)


@pytest.mark.parametrize(
    ("values", "call", "message"),
    [
        ({}, lambda p: p.required_text("query"), "query is required"),
        ({"query": 3}, lambda p: p.required_text("query"), "query must be a string"),
        (
            {"query": "q", "role": "wizard"},
            lambda p: p.request(SearchRequest, ("query", "role"), {}),
            "role must be one of user, assistant",
        ),
        (
            {"query": "q", "since": "soon"},
            lambda p: p.request(SearchRequest, ("query", "since"), {}),
            "^since: ",
        ),
        ({"scope": "mine"}, lambda p: p.scope(), "scope must be one of workspace, all"),
        ({"limit": 0}, lambda p: p.integer("limit", 20, low=1), "limit must be a whole number"),
        ({"limit": True}, lambda p: p.integer("limit", 20), "limit must be a whole number"),
        ({"position": [1, 2]}, lambda p: p.position(), "position must be"),
        ({"file": "http://x/y"}, lambda p: p.file(), "not a file: URI"),
    ],
)
def test_wrong_params_say_what_is_wrong(
    values: dict[str, Any], call: Callable[[Params], object], message: str
) -> None:
    with pytest.raises(RequestError, match=message):
        call(Params("deja/x", values))


def test_params_must_be_an_object() -> None:
    with pytest.raises(RequestError, match="takes an object"):
        Params("deja/search", "parse_config")


def test_file_param_takes_uris_and_paths() -> None:
    assert Params("x", {"file": "file:///w/src/a%20b.py"}).file() == "/w/src/a b.py"
    assert Params("x", {"file": "./src/a.py"}).file() == "src/a.py"
    assert Params("x", {"file": ""}).file() is None


def test_command_arguments_positional_or_one_object() -> None:
    names = ("sessionId", "turn")
    assert command_params("c", ("abc", 2), names).values == {"sessionId": "abc", "turn": 2}
    assert command_params("c", ({"sessionId": "abc"},), names).values == {"sessionId": "abc"}
    assert command_params("c", (), names).values == {}
    with pytest.raises(RequestError, match="at most 2 arguments"):
        command_params("c", ("a", 1, 2), names)


# The watcher ------------------------------------------------------------------------------------


# The files these tests write stand for ones being written now: their mtimes lie ahead, never
# a tick old (a file a tick old is handed over at once: tests/continue_store/test_watch_polling.py).
_AHEAD_NS = time.time_ns() + 3600 * 10**9


def touch(path: Path, text: str, mtime_ns: int) -> None:
    path.write_text(text)
    os.utime(path, ns=(_AHEAD_NS + mtime_ns, _AHEAD_NS + mtime_ns))


def test_watcher_hands_over_a_file_once_it_holds_still(tmp_path: Path) -> None:
    folder = tmp_path / "sessions"
    folder.mkdir()
    touch(folder / "a.json", "{}", 1_000)
    touch(folder / "sessions.json", "[]", 1_000)
    watcher = StoreWatcher(folder.parent)
    watcher.prime()
    assert watcher.poll() == set()
    touch(folder / "a.json", '{"x": 1}', 2_000)
    touch(folder / "sessions.json", "[{}]", 2_000)  # the list is not a session
    assert watcher.poll() == set()  # changed: wait a tick
    assert watcher.poll() == {"a"}  # held still
    assert watcher.poll() == set()
    (folder / "a.json").unlink()
    assert watcher.poll() == set()
    assert watcher.poll() == {"a"}  # gone: the index marks it deleted


def test_watcher_does_not_wait_forever_for_a_busy_file(tmp_path: Path) -> None:
    folder = tmp_path / "sessions"
    folder.mkdir()
    watcher = StoreWatcher(folder.parent)
    watcher.prime()
    ticks = 0
    for tick in range(10):
        touch(folder / "busy.json", "x" * (tick + 1), 1_000 + tick)
        ticks += 1
        if watcher.poll():
            break
    assert ticks == MOST_TICKS + 1


def test_watcher_retries_an_unreadable_file_then_gives_up(tmp_path: Path) -> None:
    folder = tmp_path / "sessions"
    folder.mkdir()
    watcher = StoreWatcher(folder.parent)
    watcher.prime()
    touch(folder / "half.json", '{"sess', 1_000)
    watcher.poll()
    assert watcher.poll() == {"half"}
    for _ in range(RETRIES):
        assert watcher.failed("half") is False
        assert watcher.poll() == {"half"}  # read again on the next tick
    assert watcher.failed("half") is True  # given up until the file changes
    assert watcher.poll() == set()
    touch(folder / "half.json", '{"sessionId": "half"}', 2_000)
    watcher.poll()
    assert watcher.poll() == {"half"}
    assert watcher.failed("half") is False  # a new version gets its own retries


def test_watcher_without_a_store_folder(tmp_path: Path) -> None:
    watcher = StoreWatcher(tmp_path / "not-yet")
    watcher.prime()
    assert watcher.poll() == set()


# Progress ---------------------------------------------------------------------------------------


def test_pass_progress_reports_each_percent_once_and_stops_on_request() -> None:
    sent: list[ProgressReport] = []
    stopping = threading.Event()
    progress = PassProgress(sent.append, stopping)
    for done in range(1, 401):
        progress(done, 400)
    assert [report.percentage for report in sent] == list(range(0, 101))
    assert sent[-1].message == "400/400 sessions"
    stopping.set()
    with pytest.raises(PassCancelled):
        progress(1, 2)


# File views -------------------------------------------------------------------------------------


def test_client_range_counts_utf16_units() -> None:
    lines = ["x = '😋' + y", "z"]
    found = LineRange(start_line=0, start_char=8, end_line=1, end_char=1)
    span = client_range(lines, found, UTF16)
    assert span == types.Range(types.Position(0, 9), types.Position(1, 1))


def test_file_view_places_edits_in_the_current_text(indexed: tuple[World, History]) -> None:
    world, history = indexed
    uri = world.config_py.as_uri()
    view = build_view(history, uri, str(world.config_py), CONFIG_PY, UTF16)
    assert [event.role for event in view.events] == ["edit", "read"]
    assert view.changed_by() == {EDIT_SESSION}
    (placed,) = view.placed
    assert placed.range == types.Range(types.Position(4, 0), types.Position(5, 32))
    assert view.covering(types.Position(5, 10)) == [placed]
    assert view.covering(types.Position(2, 0)) == []
    crlf = build_view(history, uri, str(world.config_py), CONFIG_PY.replace("\n", "\r\n"), UTF16)
    assert crlf.placed[0].range == placed.range  # same lines and columns without the "\r"
    gone = build_view(history, uri, str(world.config_py), "import json\n", UTF16)
    assert gone.placed == [] and len(gone.events) == 2


def test_file_views_are_kept_per_version_and_index_generation() -> None:
    views = FileViews()
    built: list[FileView | None] = []

    def build(previous: FileView | None) -> FileView:
        built.append(previous)
        return FileView("file:///a", "/a")

    first = views.get("file:///a", 1, build)
    assert views.get("file:///a", 1, build) is first
    second = views.get("file:///a", 2, build)
    views.index_changed()
    views.get("file:///a", 2, build)
    views.get("file:///b", None, build)  # not open: never kept
    views.get("file:///b", None, build)
    # A new version builds on the last one; after an index change, from scratch.
    assert built == [None, first, None, None, None] and second is not first


def test_file_history_result_has_lsp_ranges_and_filters_by_position(
    indexed: tuple[World, History],
) -> None:
    world, history = indexed
    view = build_view(history, "file:///x", str(world.config_py), CONFIG_PY, UTF16)
    result = file_history_result(view, None)
    edit, read = result["events"]
    assert edit["role"] == "edit" and read["role"] == "read" and "ranges" not in edit
    assert edit["request"] == "parse_config leaks a file handle, fix it"
    assert edit["hunks"][0]["written"] == NEW
    assert edit["range"] == edit["hunks"][0]["range"]
    assert edit["range"] == {
        "start": {"line": 4, "character": 0},
        "end": {"line": 5, "character": 32},
    }
    assert read["range"] is None
    assert [e["role"] for e in file_history_result(view, types.Position(4, 3))["events"]] == [
        "edit"
    ]
    assert file_history_result(view, types.Position(0, 0))["events"] == []
    assert not edit["changed"] and not read["changed"]


def test_file_history_result_says_changed_since_when_a_written_line_was_edited(
    indexed: tuple[World, History],
) -> None:
    world, history = indexed
    edited = CONFIG_PY.replace("return json.load(handle)", "return json.load(handle) or {}")
    view = build_view(history, "file:///x", str(world.config_py), edited, UTF16)
    edit, read = file_history_result(view, None)["events"]
    assert edit["changed"] and edit["range"] is not None  # still there, edited since
    assert not read["changed"]


# Requests ---------------------------------------------------------------------------------------


def test_search_result_is_the_clis_json(indexed: tuple[World, History]) -> None:
    _, history = indexed
    choice = history.scope_for(all_workspaces=True)
    result = search_result(history, Params("deja/search", {"query": "pyyaml"}), choice)
    expected = history.search(SearchQuery("pyyaml", scope=Scope(), limit=20)).hits
    assert result["hits"] == [hit_json(hit) for hit in expected]
    assert set(result) == {"query", "scope", "approximate", "notes", "total", "hits"}
    assert result["total"] is None  # counted only when asked
    counted = search_result(
        history, Params("deja/search", {"query": "pyyaml", "count": True}), choice
    )
    assert counted["total"] == history.search(SearchQuery("pyyaml", scope=Scope())).total
    approximate = search_result(history, Params("deja/search", {"query": "helth"}), choice)
    assert approximate["approximate"] and "helth → health" in approximate["notes"][-1]


def test_session_result_groups_turns_and_renders_markdown(indexed: tuple[World, History]) -> None:
    _, history = indexed
    result = session_result(history, Params("deja/session", {"sessionId": EDIT_SESSION[:10]}))
    assert result["session"]["id"] == EDIT_SESSION
    assert [turn["turn"] for turn in result["turns"]] == [0, 1, 2, 3, 4]
    assert result["turns"][2]["records"][-1]["role"] == "edit"
    assert "# Make parse\\_config close its file" in result["markdown"]
    one = session_result(history, Params("deja/session", {"sessionId": EDIT_SESSION, "turn": 3}))
    assert [turn["turn"] for turn in one["turns"]] == [3]
    with pytest.raises(RequestError, match="has no turn 9"):
        session_result(history, Params("deja/session", {"sessionId": EDIT_SESSION, "turn": 9}))


# Scope and fork ---------------------------------------------------------------------------------


def test_scope_for_folders_matches_uris_paths_and_nesting(indexed: tuple[World, History]) -> None:
    world, history = indexed
    write_session(
        world.store,
        session_doc("nested-1", [user("inner work")], workspace=str(world.project / "src")),
    )
    history.refresh()
    project = str(world.project)
    for folder in (world.project.as_uri(), project, project + "/"):
        choice = history.scope_for_folders([folder])
        assert set(choice.scope.workspaces) == {project, project + "/src"} and not choice.notes
    inner = history.scope_for_folders([(world.project / "src" / "deep").as_uri()])
    assert set(inner.scope.workspaces) == {project + "/src"}
    both = history.scope_for_folders([project, "file:///nonexistent/elsewhere"])
    assert "/nonexistent/elsewhere" in both.scope.workspaces
    none = history.scope_for_folders([str(world.base / "unrelated")])
    assert none.scope.is_all and "no Continue session belongs to" in none.notes[0]
    assert history.scope_for_folders([]).scope.is_all


def test_fork_command_runs_in_the_workspace_while_it_exists(indexed: tuple[World, History]) -> None:
    world, history = indexed
    here = history.fork_command(EDIT_SESSION)
    assert (here.command, here.args, here.cwd) == (
        "cn",
        ["--fork", EDIT_SESSION],
        str(world.project),
    )
    assert "--fork" in here.note and "new Continue session" in here.note
    gone = history.fork_command(OTHER_SESSION)
    assert gone.cwd is None and "/nonexistent/elsewhere" in gone.note
    assert "directory you start it from" in gone.note and "--fork" in gone.note
    assert fork_command(history.sessions(Scope())[0]).args[0] == "--fork"


# Markdown, hover, lenses, documents -------------------------------------------------------------


def test_escape_neutralises_links_html_and_line_starts() -> None:
    text = "# [click](command:deja.evil) <img src=x> *bold* 1. item\n- list"
    escaped = render_markdown.escape(text)
    assert "\\[click\\](command" in escaped and "\\<img src=x\\>" in escaped
    assert "\\*bold\\*" in escaped
    assert escaped.startswith("\\#") and "\n\\- list" in escaped


def test_fence_is_longer_than_any_backtick_run() -> None:
    block = render_markdown.fence("a ```` b", "text")
    assert block.startswith("`````text\n") and block.endswith("\n`````")


def test_session_markdown_fences_session_text(indexed: tuple[World, History]) -> None:
    world, history = indexed
    doc = edit_session(world.project)
    doc["history"].append(user("```\n[x](command:deja.evil)\n```"))
    write_session(world.store, doc)
    history.refresh()
    markdown = render_markdown.session(history.show(EDIT_SESSION))
    assert (
        "## Turn 5" in markdown and "````text\n```\n[x](command:deja.evil)\n```\n````" in markdown
    )
    assert "Edited `" in markdown and "```diff" in markdown and "Wrote `" in markdown


def test_file_history_search_and_fork_markdown(indexed: tuple[World, History]) -> None:
    world, history = indexed
    events = history.file_history(str(world.config_py))
    markdown = render_markdown.file_history(str(world.config_py), events)
    assert "2 recorded events from 1 Continue session" in markdown
    assert "## Edited" in markdown and "## Read" in markdown and "Asked:" in markdown
    hits = history.search(SearchQuery("pyyaml", scope=Scope())).hits
    found = render_markdown.search("pyyaml", "all workspaces", hits, ["a note"])
    assert "# Continue history: pyyaml" in found and "**pyyaml**" in found and "exit 1" in found
    fork = render_markdown.fork(history.fork_command(EDIT_SESSION))
    assert f"cd {world.project} && cn --fork {EDIT_SESSION}" in fork


def test_hover_markdown_has_the_edit_and_command_links(indexed: tuple[World, History]) -> None:
    world, history = indexed
    uri = world.config_py.as_uri()
    view = build_view(history, uri, str(world.config_py), CONFIG_PY, UTF16)
    markdown = hover_markdown(view.covering(types.Position(5, 0)), uri)
    assert "**Make parse\\_config close its file**" in markdown and "turn 2" in markdown
    assert "> parse\\_config leaks a file handle" in markdown
    assert "+     with open(path" in markdown and "-     return json.load(open(path))" in markdown
    last = markdown.rsplit("\n\n", 1)[1]
    links = {
        label: (command, json.loads(unquote(args)))
        for label, command, args in re.findall(r"\[([^\]]+)\]\(command:([\w.]+)\?([^)]+)\)", last)
    }
    assert links == {
        "Open session": ("deja.showSession", [EDIT_SESSION, 2]),
        "Fork it here": ("deja.forkSession", [EDIT_SESSION]),
        "File history": ("deja.showFileHistory", [uri]),
    }


def test_hover_does_not_repeat_a_request_that_is_the_title(indexed: tuple[World, History]) -> None:
    world, history = indexed
    uri = world.config_py.as_uri()
    view = build_view(history, uri, str(world.config_py), CONFIG_PY, UTF16)
    (found,) = view.covering(types.Position(5, 0))
    asked = found.event.request
    for title, quoted in [
        (asked, False),
        ("  Parse_config leaks a file handle,\nfix it ", False),  # the same words, reflowed
        (asked[:20] + "…", False),  # a title cut from the request
        ("Make parse_config close its file", True),
        (asked[:20] + " and more…", True),
    ]:
        event = dataclasses.replace(found.event, title=title)
        markdown = hover_markdown([dataclasses.replace(found, event=event)], uri)
        assert ("> parse\\_config leaks" in markdown) is quoted, title


def test_hover_says_a_line_was_changed_since(indexed: tuple[World, History]) -> None:
    world, history = indexed
    uri = world.config_py.as_uri()
    typed = CONFIG_PY.replace("json.load(handle)", "json.load(handle) or {}")
    view = build_view(history, uri, str(world.config_py), typed, UTF16)
    (found,) = view.covering(types.Position(5, 0))
    assert found.changed and not view.covering(types.Position(4, 0))[0].changed
    markdown = hover_markdown([found], uri)
    assert "This line was changed since that session wrote it." in markdown
    assert markdown.count("Make parse\\_config close its file") == 1  # the title said once


def test_lenses_count_sessions_and_name_each_written_range(indexed: tuple[World, History]) -> None:
    world, history = indexed
    uri = world.config_py.as_uri()
    view = build_view(history, uri, str(world.config_py), CONFIG_PY, UTF16)
    top, edit = lenses(view)
    assert top.range.start.line == 0 and top.command is not None
    assert top.command.title.startswith("1 Continue session touched this file · last ")
    assert (top.command.command, top.command.arguments) == ("deja.showFileHistory", [uri])
    assert edit.range.start.line == 4 and edit.command is not None
    assert edit.command.title == "edited by Continue · Make parse_config close its file"
    assert edit.command.arguments == [EDIT_SESSION, 2]
    nothing = build_view(history, "file:///n", str(world.base / "none.py"), "", UTF16)
    assert lenses(nothing) == []


def test_views_are_private_and_named_per_file(tmp_path: Path) -> None:
    path = write_view(tmp_path / "views", "session-x", "# hi\n")
    assert path.read_text() == "# hi\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert write_view(tmp_path / "views", "session-x", "# again\n").read_text() == "# again\n"
    assert sorted(p.name for p in path.parent.iterdir()) == ["session-x.md"]
    assert file_view_name("/a/config.py") != file_view_name("/b/config.py")
    assert file_view_name("/a/my config.py").startswith("history-my-config.py-")
