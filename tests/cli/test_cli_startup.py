"""`deja --version` and `deja --help` load no command module, build no command's parser, and
(`--version`) load no argparse nor `typing`: start-up is what a user feels first. A command that
runs builds only its own parser. A quiet `deja index` loads neither `typing` nor `dataclasses`
(with `inspect`) nor the search; words only, it takes its paths as text (no `pathlib`, which
brings `re`, `enum`, `urllib` and `ipaddress`) and loads no search types; with meaning on, no
model. A `deja search` whose words find hits loads no `dataclasses`, nor numpy when meaning is
on; over an unchanged store, no `typing`, `pathlib`, `urllib` nor `re`."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.cli_run import deja_env, run_deja
from tests.support.storebuilder import session_doc, user, write_session

# A run of `main`: what it loaded (nothing loaded before it), or (`count`) the argparse parsers
# it built (argparse loaded first, to count them).
PROBE = """
import sys
built = []
if sys.argv[1] == "count":
    import argparse
    init = argparse.ArgumentParser.__init__
    def counted(self, *args, **kw):
        built.append(kw.get("prog"))
        init(self, *args, **kw)
    argparse.ArgumentParser.__init__ = counted
from deja.cli.main import main
try:
    code = main(sys.argv[2:])
except SystemExit as exit:
    code = exit.code
modules = sorted(sys.modules)
import json
print(json.dumps({"code": code, "built": built, "modules": modules}), file=sys.stderr)
"""


def probe(*words: str, count: bool = False, env: dict[str, str] | None = None) -> dict[str, object]:
    how = "count" if count else "plain"
    run = subprocess.run(
        [sys.executable, "-c", PROBE, how, *words],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    return json.loads(run.stderr.strip().splitlines()[-1])  # type: ignore[no-any-return]


def commands_loaded(modules: object) -> list[str]:
    assert isinstance(modules, list)
    return [m for m in modules if m.startswith(("deja.cli.commands.", "deja.query", "deja.index"))]


def test_version_loads_no_parser_no_command_no_typing() -> None:
    ran = probe("--version")
    assert ran["code"] == 0
    modules = ran["modules"]
    assert commands_loaded(modules) == []
    assert isinstance(modules, list)
    assert [m for m in ("argparse", "typing", "re") if m in modules] == []


def test_help_builds_the_top_parser_alone_and_loads_no_command() -> None:
    ran = probe("--help")
    assert ran["code"] == 0
    assert commands_loaded(ran["modules"]) == []
    assert "deja.cli.common" not in ran["modules"]  # type: ignore[operator]
    counted = probe("--help", count=True)
    assert counted["built"] == ["deja"]  # the commands are listed, their parsers not built


def test_a_typo_is_told_without_building_the_commands() -> None:
    ran = probe("serch", "x", count=True)
    assert ran["code"] == 2 and ran["built"] == ["deja"]
    assert commands_loaded(ran["modules"]) == []


def test_a_command_builds_its_own_parser_alone() -> None:
    ran = probe("show", "--help", count=True)
    assert ran["code"] == 0 and ran["built"] == ["deja", "deja show"]


# Off the path of a quiet `deja index` and of a `deja search` whose words find hits: what they
# used to load for a record class or a type name.
NOT_LOADED = ("typing", "dataclasses", "inspect", "numpy")


@pytest.fixture
def indexed(tmp_path: Path) -> dict[str, str]:
    """The environment of `deja` on a small store, indexed (so `deja index` is quiet)."""
    root = tmp_path / "continue"
    past = time.time() - 3600
    for n in range(3):
        doc = session_doc(f"s{n}", [user(f"tune the kestrel cache {n}")], workspace="/w")
        write_session(root, doc, mtime=past)
    env = deja_env(root, tmp_path / "home")
    assert run_deja(env, "index").returncode == 0
    return env


def loaded(ran: dict[str, object], names: tuple[str, ...]) -> list[str]:
    modules = ran["modules"]
    assert isinstance(modules, list)
    return [name for name in names if name in modules]


def test_a_quiet_index_loads_no_typing_dataclasses_nor_the_search(indexed: dict[str, str]) -> None:
    ran = probe("index", env=indexed)
    assert ran["code"] == 0
    assert "deja.index.plan" in ran["modules"]  # type: ignore[operator]  # the quiet report ran
    search_side = ("deja.query.search", "deja.query.query_syntax", "deja.query.meaning")
    assert loaded(ran, NOT_LOADED + search_side) == []


# Off a quiet `deja index`'s path, words only: the paths are text (`os.path`), the output plain
# lines, the workspace rules and the search's types not needed.
QUIET_INDEX_NOT_LOADED = (
    "pathlib",
    "re",
    "enum",
    "urllib.parse",
    "ipaddress",
    "deja.query.hits",
    "deja.query.scope",
    "deja.continue_store.workspace",
    "deja.cli.render",
    "deja.wire",
)


def test_a_quiet_index_takes_its_paths_as_text_and_loads_no_search_types(
    indexed: dict[str, str],
) -> None:
    ran = probe("index", env={**indexed, "DEJA_SEMANTIC": "0"})
    assert ran["code"] == 0
    assert "deja.index.plan" in ran["modules"]  # type: ignore[operator]  # the quiet report ran
    assert loaded(ran, QUIET_INDEX_NOT_LOADED) == []


def test_a_quiet_index_with_meaning_on_loads_no_model(indexed: dict[str, str]) -> None:
    pytest.importorskip("wordllama")  # the semantic extra
    env = {k: v for k, v in indexed.items() if k != "DEJA_SEMANTIC"}
    assert run_deja(env, "index").returncode == 0  # the records' vectors made
    ran = probe("index", env=env)
    assert ran["code"] == 0
    assert "deja.index.plan" in ran["modules"]  # type: ignore[operator]  # the quiet report ran
    unwanted = ("numpy", "wordllama", "deja.index.refresh", "deja.semantic.model")
    # Nor what the model module brings: meaning on costs a quiet index what words only do.
    assert loaded(ran, (*unwanted, "dataclasses", "pathlib", "threading")) == []


@pytest.mark.parametrize("meaning", ["0", None])
def test_a_search_whose_words_find_hits_loads_no_dataclasses_nor_numpy(
    indexed: dict[str, str], meaning: str | None
) -> None:
    env = {k: v for k, v in indexed.items() if k != "DEJA_SEMANTIC"}
    if meaning is not None:
        env["DEJA_SEMANTIC"] = meaning
    assert run_deja(env, "index").returncode == 0  # with meaning on: the records' vectors
    ran = probe("search", "kestrel", "--all", env=env)
    assert ran["code"] == 0
    assert "deja.query.search" in ran["modules"]  # type: ignore[operator]
    assert loaded(ran, ("dataclasses", "inspect", "numpy")) == []


# Off the path of a `deja search` over an unchanged store, words only or meaning on: the request
# types need no `typing`, the store's check takes its root as text (no `pathlib`), only an IDE's
# URI needs `urllib` (with `ipaddress`), and the query, a drive and a snippet's marks are read
# without `re` (with `enum`; a word mixing cases, which `re` splits, is not in this query).
SEARCH_NOT_LOADED = ("typing", "pathlib", "urllib.parse", "ipaddress", "re", "enum")


@pytest.mark.parametrize("meaning", ["0", None])
def test_a_search_over_an_unchanged_store_loads_no_typing_pathlib_urllib_nor_re(
    indexed: dict[str, str], meaning: str | None
) -> None:
    env = {k: v for k, v in indexed.items() if k != "DEJA_SEMANTIC"}
    if meaning is not None:
        env["DEJA_SEMANTIC"] = meaning
    assert run_deja(env, "index").returncode == 0
    ran = probe("search", "kestrel", "--all", env=env)
    assert ran["code"] == 0
    assert "deja.query.search" in ran["modules"]  # type: ignore[operator]
    assert loaded(ran, SEARCH_NOT_LOADED) == []
