"""The argparse-free parser (`cli/fast_argv.py`, reading `cli/options.py`) against the argparse
parser it stands in for: on every command line it answers, the same namespace; on anything else
it declines, so argparse parses (and words the errors). Varied and random argv, bad ones
included."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from deja.cli import dash_words, fast_argv, options
from deja.cli.parser import UsageError, build_parser
from tests.support.storebuilder import session_doc, user, write_session


@pytest.fixture(autouse=True)
def frozen_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """`--since 7d` is relative to now: both parsers must read the same now."""
    monkeypatch.setattr("deja.query.since.time.time", lambda: 1_800_000_000.0)


def full(words: list[str]) -> dict[str, object] | None:
    """argparse's namespace for `words` as `parser.parse` reads them, or None for an error."""
    parser = build_parser(words)
    shown, hidden = dash_words.hide(words)
    try:
        args, extra = parser.parse_known_args(shown)
    except (UsageError, SystemExit):
        return None
    extra = dash_words.reveal(args, extra, hidden)
    if extra and args.command == "search" and all(word.startswith("-") for word in extra):
        args.query += extra
    elif extra:
        return None
    return vars(args)


def fast(words: list[str]) -> dict[str, object] | None:
    args = fast_argv.parse(words)
    return None if args is None else vars(args)


ANSWERED = [
    ["search", "x", "--limit", "many"],  # read as a word, refused by the request (operations)
    ["search"],
    ["search", "TypeError"],
    ["search", "parse", "config", "--all"],
    ["search", "--all", "parse", "config"],
    ["search", "--json", "x", "--limit", "3", "--offset", "20"],
    ["search", "x", "--role", "command", "--since", "7d", "--file", "src/a.py"],
    ["search", "--workspace", "myproj", '"exact phrase"', "prefix*"],
    ["search", "x", "--session", "abcd1234", "--limit", "0", "--limit", "5"],
    ["search", "--team", "--project", "web", "a OR b"],
    ["search", "", "x"],
    ["search", "x", "--since", "2026-11-01", "--all", "--json"],
    ["search", "x", "-exclude"],
    ["search", "--all", "-hello", "world"],  # `-hello` is not `-h ello`
    ["search", "-help", "-j", "a", "-x", "--json"],
]

DECLINED = [
    [],
    ["forget", "--list"],  # a required group: argparse's
    ["handoff", "abcd1234"],  # a positional of one word, a computed default
    ["team", "push"],  # sub-commands
    ["sessions", "x"],  # a word where the command takes none
    ["restore", "-x"],  # a dash word of a command that takes no free text
    ["--version"],
    ["search", "-h"],
    ["search", "--help"],
    ["search", "x", "--lim", "3"],  # an abbreviation argparse accepts
    ["search", "x", "--limit=3"],
    ["search", "--", "-x"],
    ["search", "x", "--limit"],
    ["search", "x", "--limit", "-1"],
    ["search", "x", "--role", "wizard"],
    ["search", "x", "--since", "yesterday-ish"],
    ["search", "x", "--all", "--workspace", "w"],
    ["search", "x", "--all", "y"],  # a second run of words: argparse refuses it
    ["search", "x", "--workspace", "--all"],
    ["search", "x", "--nope"],
]


@pytest.mark.parametrize("words", ANSWERED, ids=" ".join)
def test_answers_as_argparse_does(words: list[str]) -> None:
    answer = fast(words)
    assert answer is not None, "declined a plain search command line"
    assert answer == full(words)


@pytest.mark.parametrize("words", DECLINED, ids=lambda w: " ".join(w) or "(none)")
def test_declines_what_it_cannot_read_exactly(words: list[str]) -> None:
    assert fast(words) is None


def test_random_command_lines_agree_or_are_declined() -> None:
    pieces = [
        "x",
        "TypeError",
        "a OR b",
        "-not",
        "-hello",
        "--all",
        "--json",
        "--team",
        "--workspace",
        "--limit",
        "--offset",
        "--role",
        "--since",
        "--file",
        "--session",
        "--project",
        "3",
        "-2",
        "7d",
        "edit",
        "bogus",
        "--li",
        "--",
        "",
    ]
    rng = random.Random(16)
    answered = 0
    for _ in range(3000):
        words = ["search", *rng.choices(pieces, k=rng.randint(0, 7))]
        answer = fast(words)
        if answer is not None:
            answered += 1
            assert answer == full(words), words
    assert answered > 300  # the fast path is taken for a good share of them


def test_the_search_command_loads_no_argparse_dataclasses_or_orjson(tmp_path: Path) -> None:
    """Over an index the last pass left up to date (no implicit pass), searching by words (with
    the semantic extra on and vectors in the index, the model must load: its own cost)."""
    store = tmp_path / "store"
    write_session(store, session_doc("s1", [user("a parser for configs")]), mtime=1_750_000_000)
    probe = (
        "import sys; from deja.cli.main import main;"
        " code = main(['search', '--all', 'x', '--limit', '3']);"
        " print(code, *(m in sys.modules for m in ('argparse', 'deja.cli.parser', 'dataclasses',"
        " 'orjson', 'deja.semantic.model')))"
    )
    env = {**os.environ, "DEJA_CONTINUE_ROOT": str(store), "DEJA_HOME": str(tmp_path / "home")}
    indexed = subprocess.run(
        [sys.executable, "-m", "deja", "index"], env=env, capture_output=True, timeout=120
    )
    assert indexed.returncode == 0, indexed.stderr
    run = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0, run.stderr
    # Nor dataclasses, orjson or the model.
    assert run.stdout.split()[-6:] == ["0", "False", "False", "False", "False", "False"]


def test_a_search_process_still_runs_what_was_registered_at_exit(tmp_path: Path) -> None:
    """`program` ends a search with `os._exit` (no interpreter teardown), after running what
    was registered with `atexit` (an implicit pass's reader pool registers its own)."""
    (tmp_path / "store" / "sessions").mkdir(parents=True)
    mark = tmp_path / "ran"
    probe = (
        "import atexit, pathlib, sys; from deja.cli.main import program;"
        f" atexit.register(pathlib.Path({str(mark)!r}).write_text, 'yes');"
        " sys.argv = ['deja', 'search', '--all', 'x']; program()"
    )
    env = {"DEJA_CONTINUE_ROOT": str(tmp_path / "store"), "DEJA_HOME": str(tmp_path / "home")}
    run = subprocess.run(
        [sys.executable, "-c", probe],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    assert mark.read_text() == "yes"


def test_the_program_ends_a_search_with_its_output_and_exit_code(tmp_path: Path) -> None:
    (tmp_path / "store" / "sessions").mkdir(parents=True)
    env = {
        **os.environ,
        "DEJA_CONTINUE_ROOT": str(tmp_path / "store"),
        "DEJA_HOME": str(tmp_path / "home"),
    }

    def deja(*words: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "deja", *words],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )

    found = deja("search", "--all", "nothing", "--json")
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout)["total"] == 0  # the whole envelope, flushed
    unknown = deja("search", "--all", "x", "--session", "feedfacefeedface")
    assert unknown.returncode == 1 and unknown.stderr.startswith("deja: ")
    bad = deja("search", "x", "--limit", "-3")
    assert bad.returncode == 2  # a usage error, refused in the words every door uses
    assert bad.stderr == "deja: --limit must be a whole number from 1 to 500, not -3\n"


def test_any_word_can_be_excluded_on_both_parsers(tmp_path: Path) -> None:
    store = tmp_path / "store"
    write_session(store, session_doc("s1", [user("hello world")]), mtime=1_750_000_000)
    write_session(store, session_doc("s2", [user("goodbye world")]), mtime=1_750_000_100)
    env = {**os.environ, "DEJA_CONTINUE_ROOT": str(store), "DEJA_HOME": str(tmp_path / "home")}
    # The fast path, and argparse (`--lim` is an abbreviation only argparse reads).
    for words in (["--all", "-hello", "world"], ["--all", "-hello", "world", "--lim", "3"]):
        run = subprocess.run(
            [sys.executable, "-m", "deja", "search", *words, "--json"],
            env=env, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert run.returncode == 0, run.stderr
        hits = json.loads(run.stdout)["hits"]
        assert [hit["session_id"] for hit in hits] == ["s2"], words


def test_free_text_keeps_its_dash_words_in_place() -> None:
    """`files` topics exclude words as search does; an error text keeps `-bash:` where it was."""
    from deja.cli.parser import parse

    error = parse(["fix", "-bash:", "deploy:", "command", "not", "found", "--limit", "2"])
    assert not isinstance(error, int)
    assert error.error == ["-bash:", "deploy:", "command", "not", "found"] and error.limit == 2
    topic = parse(["files", "--all", "-hello", "world"])
    assert not isinstance(topic, int) and topic.topic == ["-hello", "world"] and topic.all
    late = parse(["search", "x", "--all", "-hello"])  # after an option: still a query word
    assert not isinstance(late, int) and late.query == ["x", "-hello"]
    bad = parse(["fix", "-oops", "--limit", "-3"])  # an option's value stays the option's
    assert not isinstance(bad, int) and bad.error == ["-oops"] and bad.limit == -3


READ = [c for c in options.COMMANDS if fast_argv.readable(c) and c.name != "search"]


@pytest.mark.parametrize("command", READ, ids=lambda c: c.name)
def test_every_command_read_without_argparse_reads_as_argparse(command: options.Command) -> None:
    """The commands besides `search` whose options `fast_argv` reads (`deja index`, `sessions`,
    …): random command lines of their own options, values good and bad, and stray words."""
    pieces = ["x", "-x", "--", "", "3", "-2", "70000", "many", "--nope", "--li", "-h", "--json"]
    for arg in command.args:
        pieces += arg.names
    rng = random.Random(command.name)
    answered = 0
    for _ in range(400):
        words = [command.name, *rng.choices(pieces, k=rng.randint(0, 5))]
        answer = fast(words)
        if answer is not None:
            answered += 1
            assert answer == full(words), words
    assert answered > 20
