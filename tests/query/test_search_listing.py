"""Search and listings a user can trust: snippets bounded whatever the message size, pages that
say what they leave out, the AND/OR/NOT operators, `--file` and `--workspace` resolved as `deja
blame` resolves paths, "nothing found" naming its filters, `--version`, and `--json` errors as
an envelope on stdout."""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from deja import __version__
from deja.query import History, QueryError, Scope, SearchQuery
from deja.query.search import bound_snippet
from tests.support.cli_run import json_envelope, run_deja
from tests.support.storebuilder import assistant, call, session_doc, user, write_session

HUGE_SESSION = "d0d0d0d0-0000-4000-8000-000000000001"
ALPHA_SESSION = "a1a1a1a1-0000-4000-8000-000000000001"
BETA_SESSION = "b2b2b2b2-0000-4000-8000-000000000001"
COMMON_SESSIONS = 22
# The bound: ~300 characters around the best match, whatever the message size.
SNIPPET_CHARS = 300
# A 6 MB message of one word, and one whose only match sits next to a 6 MB word.
ONE_TOKEN = "zzhuge" + "b" * 6_000_000
NEXT_TO_HUGE = "needle " + "na" * 3_000_000
OPERATOR_TEXTS = {
    "ops-1": "apple banana",
    "ops-2": "apple cherry",
    "ops-3": "durian fruit",
    "ops-4": "bread or butter",
    "ops-5": "bread butter",
}


@dataclass(frozen=True)
class World:
    base: Path
    alpha: Path
    beta: Path
    gamma: Path
    ops: Path
    env: dict[str, str]

    def history(self) -> History:
        return History(Path(self.env["DEJA_HOME"]), Path(self.env["DEJA_CONTINUE_ROOT"]))


def edit(path: str, written: str, call_id: str) -> dict[str, object]:
    return assistant(
        "",
        [
            call(
                "Edit",
                {"file_path": path, "old_string": "pass", "new_string": written},
                output="edited",
                call_id=call_id,
            )
        ],
    )


def build(base: Path) -> World:
    alpha, beta, gamma, ops = (
        base / "w/alpha/myproj",
        base / "w/beta/myproj",
        base / "w/gamma/tool",
        base / "w/ops",
    )
    for folder in (alpha / "src", beta / "src", gamma, ops):
        folder.mkdir(parents=True)
    store = base / "store"
    write_session(
        store,
        session_doc(
            ALPHA_SESSION,
            [user("tidy the widget code"), edit("src/app.py", "widget = 1", "c1")],
            title="Alpha widget",
            workspace=alpha.as_uri(),
        ),
    )
    write_session(
        store,
        session_doc(
            BETA_SESSION,
            [
                user("widget work in beta"),
                edit("src/app.py", "widget = 2", "c1"),
                edit(f"{beta}/src/other.py", "widget = 3", "c2"),
            ],
            title="Beta widget",
            workspace=str(beta),
        ),
    )
    write_session(
        store,
        session_doc(
            HUGE_SESSION,
            [user(NEXT_TO_HUGE), user(ONE_TOKEN)],
            title="Pasted a huge blob",
            workspace=str(alpha),
        ),
    )
    for number in range(COMMON_SESSIONS):
        write_session(
            store,
            session_doc(
                f"c0c0c0c0-0000-4000-8000-{number:012d}",
                [user(f"a common question, number {number}")],
                title=f"Common {number}",
                workspace=str(gamma),
            ),
        )
    for name, text in OPERATOR_TEXTS.items():
        write_session(
            store,
            session_doc(
                f"0b0b0b0b-0000-4000-8000-00000000000{name[-1]}",
                [user(text)],
                title=name,
                workspace=str(ops),
            ),
        )
    env = {
        **os.environ,
        "DEJA_CONTINUE_ROOT": str(store),
        "DEJA_HOME": str(base / "home"),
        "PYTHONPATH": os.pathsep.join(sys.path),
        "NO_COLOR": "1",
    }
    return World(base, alpha, beta, gamma, ops, env)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    made = build(tmp_path_factory.mktemp("listing"))
    subprocess.run(
        [sys.executable, "-m", "deja", "index"], env=made.env, check=True, capture_output=True
    )
    return made


@pytest.fixture(scope="module")
def history(world: World) -> Iterator[History]:
    opened = world.history()
    yield opened
    opened.close()


def deja(
    world: World, *args: str, cwd: Path | str = "/", code: int = 0
) -> subprocess.CompletedProcess[str]:
    result = run_deja(world.env, *args, cwd=cwd)
    assert result.returncode == code, (result.stdout, result.stderr)
    return result


def as_json(result: subprocess.CompletedProcess[str], command: str) -> dict[str, object]:
    return json_envelope(result, command)


def hits(world: World, *args: str, cwd: Path | str = "/") -> list[dict[str, object]]:
    data = as_json(deja(world, "search", *args, "--json", "--limit", "100", cwd=cwd), "search")
    return data["hits"]  # type: ignore[return-value]


def titles(found: list[dict[str, object]]) -> set[object]:
    return {hit["title"] for hit in found}


# Snippets ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("query", "match"), [("needle", "needle"), ("zzhuge*", "zzhuge")])
def test_snippets_are_bounded_whatever_the_message_size(
    world: World, query: str, match: str
) -> None:
    found = hits(world, query, "--all")
    assert [hit["title"] for hit in found] == ["Pasted a huge blob"]
    snippet = str(found[0]["snippet"])
    assert len(snippet.replace("**", "")) <= SNIPPET_CHARS
    assert f"**{match}" in snippet and snippet.count("**") == 2  # the match, its mark closed
    human = deja(world, "search", query, "--all").stdout
    assert max(len(line) for line in human.splitlines()) <= SNIPPET_CHARS + 20


def test_snippet_window_is_around_the_best_match(history: History) -> None:
    found = history.search(SearchQuery("needle", scope=Scope())).hits
    assert found and found[0].snippet.startswith("\x02needle\x03 nana")
    assert len(found[0].snippet.replace("\x02", "").replace("\x03", "")) <= SNIPPET_CHARS


# Pages that say what they leave out -----------------------------------------------------------


def test_sessions_say_how_many_are_beyond_the_page(world: World) -> None:
    out = deja(world, "sessions", "--workspace", str(world.gamma)).stdout
    assert out.count("started") == 20
    assert "showing 20 of 22 sessions (use --limit/--offset)" in out
    data = as_json(deja(world, "sessions", "--workspace", str(world.gamma), "--json"), "sessions")
    assert data["total"] == COMMON_SESSIONS and len(data["sessions"]) == 20  # type: ignore[arg-type]
    tail = deja(world, "sessions", "--workspace", str(world.gamma), "--offset", "20").stdout
    assert tail.count("started") == 2 and "showing 21–22 of 22 sessions" in tail
    whole = deja(world, "sessions", "--workspace", str(world.gamma), "--limit", "30").stdout
    assert "showing" not in whole and whole.count("started") == COMMON_SESSIONS


def test_sessions_offset_past_the_end_says_how_many_there_are(world: World) -> None:
    out = deja(world, "sessions", "--workspace", str(world.gamma), "--offset", "40").stdout
    assert "no sessions at offset 40; there are 22" in out
    data = as_json(
        deja(world, "sessions", "--workspace", str(world.gamma), "--offset", "40", "--json"),
        "sessions",
    )
    assert data["sessions"] == [] and data["total"] == COMMON_SESSIONS


def test_search_says_how_many_hits_are_beyond_the_page(world: World) -> None:
    out = deja(world, "search", "common", "--workspace", str(world.gamma)).stdout
    assert "showing 10 of 22 hits (use --limit/--offset)" in out
    data = as_json(
        deja(world, "search", "common", "--workspace", str(world.gamma), "--json"), "search"
    )
    assert data["total"] == COMMON_SESSIONS and len(data["hits"]) == 10  # type: ignore[arg-type]
    page = as_json(
        deja(world, "search", "common", "--all", "--limit", "5", "--offset", "20", "--json"),
        "search",
    )
    assert len(page["hits"]) == 2 and page["total"] == COMMON_SESSIONS  # type: ignore[arg-type]
    beyond = deja(world, "search", "common", "--all", "--offset", "30").stdout
    assert "no hits at offset 30; there are 22" in beyond
    whole = deja(world, "search", "widget", "--all", "--limit", "50").stdout
    assert "showing" not in whole


def test_total_counts_the_same_filters_as_the_page(history: History) -> None:
    for query in (
        SearchQuery("common", scope=Scope(), limit=3),
        SearchQuery("widget", scope=Scope(), role="edit", limit=1),
        SearchQuery("common", scope=Scope(), limit=1, offset=100),
    ):
        everything = history.search(
            SearchQuery(query.text, scope=query.scope, role=query.role, limit=1000)
        )
        assert history.search(query).total == len(everything.hits) > 0


# Query operators --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("apple OR durian", {"ops-1", "ops-2", "ops-3"}),
        ("apple NOT banana", {"ops-2"}),
        ("apple AND NOT banana", {"ops-2"}),
        ("apple AND cherry", {"ops-2"}),
        ("bread OR cherry butter", {"ops-4", "ops-5"}),
        ("bread or butter", {"ops-4"}),  # lowercase: the words themselves
        ('"bread or" OR durian', {"ops-3", "ops-4"}),
        ("appl* OR duri*", {"ops-1", "ops-2", "ops-3"}),
    ],
)
def test_uppercase_and_or_not_are_operators(
    history: History, world: World, query: str, expected: set[str]
) -> None:
    found = history.search(SearchQuery(query, scope=Scope((str(world.ops),)), limit=50)).hits
    assert {hit.title for hit in found} == expected


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("OR", "OR needs a word on each side"),
        ("apple OR", "OR needs a word on each side"),
        ("OR apple", "OR needs a word on each side"),
        ("apple OR OR durian", "OR needs a word on each side"),
        ("apple AND", "AND needs a word on each side"),
        ("AND apple", "AND needs a word on each side"),
        ("apple NOT", "NOT needs a word after it"),
        ("apple OR -banana", "OR joins words to find"),
        ("apple OR NOT banana", "OR joins words to find"),
        ("NOT apple", "at least one word to find"),
    ],
)
def test_malformed_operators_are_explained(history: History, query: str, message: str) -> None:
    with pytest.raises(QueryError, match=message) as raised:
        history.search(SearchQuery(query, scope=Scope()))
    assert "lowercase" in str(raised.value) or "word to find" in message


def test_operator_error_is_one_line_on_the_cli(world: World) -> None:
    result = deja(world, "search", "widget", "OR", "--all", code=1)
    assert result.stdout == "" and "OR needs a word on each side" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


# --file as blame resolves it -------------------------------------------------------------------


def blamed(world: World, path: str, cwd: Path | str) -> set[object]:
    data = as_json(deja(world, "blame", path, "--json", cwd=cwd), "blame")
    return {event["path"] for event in data["events"]}  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("typed", "where", "expected"),
    [
        ("src/app.py", "alpha", {"alpha"}),  # relative to the current directory
        ("app.py", "alpha/src", {"alpha"}),
        ("ALPHA_URI", "/", {"alpha"}),  # a file:// URI
        ("src/other.py", "alpha", {"beta"}),  # workspace-relative: the same file elsewhere
        ("myproj/src/app.py", "/", {"alpha", "beta"}),  # a suffix
    ],
)
def test_search_file_resolves_like_blame(
    world: World, typed: str, where: str, expected: set[str]
) -> None:
    folders = {"alpha": world.alpha, "beta": world.beta}
    if typed == "ALPHA_URI":
        typed = (world.alpha / "src/app.py").as_uri()
    cwd = world.alpha / "src" if where == "alpha/src" else folders.get(where, "/")
    found = hits(world, "widget", "--all", "--file", typed, cwd=cwd)
    files = {hit["file"] for hit in found}
    assert files == blamed(world, typed, cwd)
    wanted = {"app.py" if "app" in typed else "other.py"}
    assert {str(f).rsplit("/", 1)[1] for f in files} == wanted
    assert {
        name for name, folder in folders.items() for f in files if str(f).startswith(str(folder))
    } == expected


# --workspace: a folder inside one, or a suffix ---------------------------------------------------


def test_workspace_given_a_folder_inside_it(world: World) -> None:
    data = as_json(
        deja(world, "search", "widget", "--workspace", str(world.alpha / "src"), "--json"),
        "search",
    )
    assert data["scope"] == str(world.alpha)
    assert titles(data["hits"]) == {"Alpha widget"}  # type: ignore[arg-type]


@pytest.mark.parametrize("given", ["tool", "gamma/tool", "w/gamma/tool/"])
def test_workspace_given_a_suffix(world: World, given: str) -> None:
    data = as_json(deja(world, "sessions", "--workspace", given, "--json"), "sessions")
    assert data["scope"] == str(world.gamma) and data["total"] == COMMON_SESSIONS


def test_workspace_suffix_matching_several_lists_them(world: World) -> None:
    result = deja(world, "search", "widget", "--workspace", "myproj", code=1)
    assert result.stdout == "" and len(result.stderr.strip().splitlines()) == 1
    assert str(world.alpha) in result.stderr and str(world.beta) in result.stderr
    data = as_json(
        deja(world, "search", "widget", "--workspace", "alpha/myproj", "--json"), "search"
    )
    assert data["scope"] == str(world.alpha)


def test_workspace_matching_none_says_so(world: World) -> None:
    result = deja(world, "sessions", "--workspace", "nosuchproject", code=1)
    assert "no Continue workspace matches 'nosuchproject'" in result.stderr


# Nothing found names its filters -----------------------------------------------------------------


def test_nothing_found_names_the_active_filters(world: World) -> None:
    out = deja(
        world,
        "search",
        "qqxxqqzz",
        "--workspace",
        str(world.gamma),
        "--role",
        "user",
        "--file",
        "nothere.py",
        "--since",
        "2025-01-02",
    ).stdout
    assert (
        f"nothing found for 'qqxxqqzz' in {world.gamma} "
        "(role: user, file: nothere.py, since: 2025-01-02)"
    ) in out


# --version and --json errors ---------------------------------------------------------------------


def test_version(world: World) -> None:
    version = importlib.metadata.version("deja")
    assert version == __version__
    assert deja(world, "--version").stdout == f"deja {version}\n"


@pytest.mark.parametrize(
    ("args", "command", "message", "code"),
    [
        (["show", "nosuchsession"], "show", "no session", 1),
        (["search", "widget", "OR"], "search", "OR needs a word", 1),
        (["search", "widget", "--workspace", "myproj"], "search", "myproj", 1),
        (["search", "widget", "--limit", "many"], "search", "--limit", 2),
        (["sessions", "--bogus"], "sessions", "unrecognized arguments: --bogus", 2),
        (["search", "x", "--since", "yesterday"], "search", "not a duration", 2),
    ],
)
def test_json_errors_are_an_envelope_on_stdout(
    world: World, args: list[str], command: str, message: str, code: int
) -> None:
    result = deja(world, *args, "--json", code=code)
    data = as_json(result, command)
    assert set(data) == {"schema", "command", "error"}
    assert message in data["error"]["message"]  # type: ignore[index]
    assert result.stderr == ""


def test_json_error_when_the_store_is_missing(tmp_path: Path, world: World) -> None:
    env = {**world.env, "DEJA_CONTINUE_ROOT": str(tmp_path / "none"), "DEJA_HOME": str(tmp_path)}
    result = subprocess.run(
        [sys.executable, "-m", "deja", "search", "x", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert str(tmp_path / "none") in as_json(result, "search")["error"]["message"]  # type: ignore[index]


@pytest.mark.parametrize(
    ("snippet", "expected"),
    [
        ("short \x02match\x03 text", "short \x02match\x03 text"),
        ("x" * 100 + " \x02match\x03 " + "y" * 400, "…" + "x" * 73 + " \x02match\x03 "),
        ("\x02" + "b" * 1000 + "\x03 tail", "\x02" + "b" * 298 + "\x03…"),
        ("a" * 500 + " \x02end\x03", "…" + "a" * 294 + " \x02end\x03"),
        ("no match at all " * 40, ("no match at all " * 40)[:298] + "…"),
    ],
)
def test_bound_snippet_windows(snippet: str, expected: str) -> None:
    bounded = bound_snippet(snippet)
    assert bounded.startswith(expected)
    assert len(bounded.replace("\x02", "").replace("\x03", "")) <= SNIPPET_CHARS
    assert bounded.count("\x02") == bounded.count("\x03")


def test_search_fills_the_notes_its_answer_carries(history: History) -> None:
    exact = history.search(SearchQuery("needle", scope=Scope()), scope_notes=["scope note"])
    assert exact.notes == ["scope note"]
    fuzzy = history.search(SearchQuery("neddle", scope=Scope()), scope_notes=["scope note"])
    assert fuzzy.approximate
    assert fuzzy.notes == ["scope note", "no exact match; approximate hits (neddle → needle)"]
