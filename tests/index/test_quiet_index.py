"""`deja index` over a store the last pass saw as it is now (issue 16): the pass's report told
without the pass, argparse or the reader loaded, and the same output, byte for byte, as the
command that runs the pass."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from deja.cli import fast_argv
from deja.cli.parser import parse
from deja.index import PassReport, store_stamp
from deja.query import History
from tests.support.cli_run import deja_env, run_deja
from tests.support.storebuilder import session_doc, user, write_session

PAST = time.time() - 3600


@pytest.fixture
def store(tmp_path: Path) -> Path:
    root = tmp_path / "continue"
    for n in range(4):
        write_session(root, session_doc(f"s{n}", [user(f"word{n} plan")]), mtime=PAST)
    doc = session_doc("hidden", [user("secret plan")], workspace="/work/private")
    write_session(root, doc, mtime=PAST)
    write_session(root, b'{"sessionId": "x", "history": [', "bad", mtime=PAST)
    write_session(root, b"[1, 2", "worse", mtime=PAST)
    (tmp_path / "exclude").write_text("/work/private\n")
    return root


@pytest.fixture
def history(tmp_path: Path, store: Path) -> History:
    opened = History(home=tmp_path / "home", root=store, exclude_path=tmp_path / "exclude")
    yield opened  # type: ignore[misc]
    opened.close()


def said(report: PassReport) -> dict[str, Any]:
    fields = report.as_dict()
    fields.pop("seconds")
    return fields


@pytest.mark.parametrize(
    "words",
    [
        ["index"],
        ["index", "--json"],
        ["index", "--rebuild", "--json"],
        ["index", "--accept-empty"],
        ["index", "--json", "--json", "--accept-empty", "--rebuild"],
    ],
)
def test_the_index_command_line_reads_as_argparse_reads_it(words: list[str]) -> None:
    assert vars(fast_argv.parse(words)) == vars(parse(words))


@pytest.mark.parametrize(
    "words",
    [["index", "--reb"], ["index", "-h"], ["index", "now"], ["index", "--json=1"], ["blame", "x"]],
)
def test_anything_else_is_left_to_argparse(words: list[str]) -> None:
    assert fast_argv.parse(words) is None


def test_the_quiet_report_is_the_pass_report(history: History, store: Path) -> None:
    history.refresh()
    history.forget_session("s3")
    assert history.quiet_pass() is None  # a forget undoes the stamp
    history.refresh()
    quiet = history.quiet_pass()
    assert quiet is not None and quiet.sessions == 6  # seven files, one forgotten
    assert sorted(Path(d.path).name for d in quiet.errors) == ["bad.json", "worse.json"]
    assert said(quiet) == said(history.refresh())
    with history._index.transaction() as db:
        store_stamp.clear(db)
    assert said(quiet) == said(history.refresh())  # the full pass, every file judged


def test_an_empty_plan_is_the_quiet_report_though_the_listing_moved(
    history: History, store: Path
) -> None:
    """A forgotten session's file deleted after the stamp vouched for it: the listing is not the
    stamp's, yet the pass has nothing to read or mark; its report is told without it."""
    history.refresh()
    history.forget_session("s3")
    history.refresh()
    assert history.quiet_pass() is not None
    (store / "sessions" / "s3.json").unlink()
    assert not history.store_unchanged()
    quiet = history.quiet_pass()
    assert quiet is not None and quiet.sessions == 6  # six files, none forgotten
    assert said(quiet) == said(history.refresh())


def test_any_change_leaves_it_to_the_pass(history: History, store: Path) -> None:
    history.refresh()
    assert history.quiet_pass() is not None
    write_session(store, session_doc("s0", [user("rewritten")]), mtime=PAST + 5)
    assert history.quiet_pass() is None
    history.refresh()
    assert history.quiet_pass() is not None
    write_session(store, session_doc("new", [user("fresh")]))  # written just now
    assert history.refresh().read == 1
    assert history.quiet_pass() is None  # too fresh to vouch for: read again


def masked(text: str) -> str:
    """A run's output but its time."""
    text = re.sub(r"\(\d+\.\d\d s\)", "(T s)", text)
    return re.sub(r'"seconds": [0-9.e-]+', '"seconds": T', text)


PROBE = """
import sys
from deja.cli.main import main
code = main(sys.argv[1:])
sys.stdout.flush()
heavy = ("argparse", "deja.index.refresh", "deja.continue_store.parse")
loaded = [m for m in heavy if m in sys.modules]
print("loaded:", loaded, file=sys.stderr)
sys.exit(code)
"""


def run_probe(env: dict[str, str], *words: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", PROBE, *words], env=env, capture_output=True, text=True, timeout=60
    )


@pytest.mark.parametrize("json", [False, True])
def test_deja_index_says_the_same_as_the_pass_without_loading_it(
    tmp_path: Path, store: Path, json: bool
) -> None:
    env = deja_env(store, tmp_path / "cli-home", XDG_CONFIG_HOME=str(tmp_path / "config"))
    words = ["index", "--json"] if json else ["index"]
    assert run_deja(env, "index").returncode == 0  # the first pass reads everything
    opened = History(home=tmp_path / "cli-home", root=store)
    with opened._index.transaction() as db:
        store_stamp.clear(db)
    opened.close()
    full = run_probe(env, *words)  # no stamp: the pass runs, and records it
    quick = run_probe(env, *words)
    assert full.returncode == quick.returncode == 0
    assert "deja.index.refresh" in full.stderr
    assert "loaded: []" in quick.stderr
    assert masked(quick.stdout) == masked(full.stdout)
    assert ("bad.json" in quick.stdout) and ("worse.json" in quick.stdout)
    # The program itself (`python -m deja`, which ends without the interpreter's teardown).
    program = run_deja(env, *words)
    assert program.returncode == 0 and masked(program.stdout) == masked(full.stdout)


def test_the_program_ends_a_failed_index_with_its_words_and_code(tmp_path: Path) -> None:
    env = deja_env(tmp_path / "nowhere", tmp_path / "home")
    failed = run_deja(env, "index")
    assert failed.returncode == 1 and failed.stderr.startswith("deja: no Continue store")
    as_json = run_deja(env, "index", "--json")
    assert as_json.returncode == 1 and '"error"' in as_json.stdout
