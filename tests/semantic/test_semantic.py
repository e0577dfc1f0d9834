"""Search by meaning (the semantic extra): the model loads with the network cut off, paraphrases
are found and labelled, vectors live in the index file and follow its records."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from deja import semantic, settings
from deja.facts import MEANING_ONLY
from deja.query import History, Scope, SearchQuery
from deja.semantic import identity
from deja.semantic.vectors import EMBEDDED_ROLES
from tests.support.cli_run import deja_env, json_envelope, run_deja
from tests.support.no_network import BLOCK_SOCKETS
from tests.support.storebuilder import assistant, session_doc, user, write_session

# The dev extra installs the semantic one: without it these fail, they do not skip.
pytestmark = pytest.mark.semantic

CACHE = "a1b2c3d4-0000-4000-8000-000000000001"
DOCKER = "a1b2c3d4-0000-4000-8000-000000000002"
STYLE = "a1b2c3d4-0000-4000-8000-000000000003"

# A child process that blocks every socket before loading the model and says what was tried.
_GUARDED_LOAD = (
    BLOCK_SOCKETS
    + """
from deja.semantic import model
embedder = model.load()
vectors = embedder.embed(["memoize the token lookup", "cache the login credentials"])
print(json.dumps({"tried": tried, "shape": list(vectors.shape),
                  "similarity": float(vectors[0] @ vectors[1])}))
"""
)


def _offline_env() -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(sys.path),
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        # Nothing cached to fall back on: a loader that wanted a hub would fail, not find it.
        "HF_HOME": "/nonexistent/hf",
        "XDG_CACHE_HOME": "/nonexistent/cache",
        "HOME": "/nonexistent/home",
    }


def test_the_extra_is_installed() -> None:
    assert semantic.available() and semantic.enabled()


def test_the_model_loads_with_every_socket_blocked() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _GUARDED_LOAD],
        env=_offline_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["tried"] == []
    assert report["shape"] == [2, identity.DIMENSIONS]
    assert report["similarity"] > 0.2  # related texts are close, so real weights were read


def _can_cut_the_network() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-n", "true"], capture_output=True, timeout=30)
    return probe.returncode == 0


def test_the_model_loads_in_a_network_namespace_with_no_interfaces() -> None:
    if not _can_cut_the_network():
        pytest.fail("this test needs `unshare -n` (util-linux, as root): the network cut off")
    done = subprocess.run(
        ["unshare", "-n", sys.executable, "-c", _GUARDED_LOAD],
        env=_offline_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1])["tried"] == []


def _store(root: Path) -> None:
    write_session(
        root,
        session_doc(
            CACHE,
            [
                user("Every request hits the auth server to resolve the bearer token."),
                assistant("I memoized the token lookup with an LRU keyed by token hash."),
            ],
            title="Token lookup",
        ),
    )
    write_session(
        root,
        session_doc(
            DOCKER,
            [
                user("Our container image is huge and deploys are slow."),
                assistant("Moved to a multi-stage Dockerfile on a slim base image."),
            ],
            title="Image size",
        ),
    )
    write_session(
        root,
        session_doc(
            STYLE,
            [user("Make the buttons blue."), assistant("Changed the stylesheet colour.")],
            title="Buttons",
        ),
    )


def _search(history: History, text: str) -> list[tuple[str, str, bool]]:
    result = history.search(SearchQuery(text, scope=Scope(), limit=10))
    return [(hit.session_id, hit.role, hit.meaning_only) for hit in result.hits]


def test_a_paraphrase_is_found_by_meaning_and_labelled(tmp_path: Path) -> None:
    _store(tmp_path / "store")
    history = History(home=tmp_path / "home", root=tmp_path / "store")
    history.refresh()
    hits = _search(history, "caching credentials for login")
    assert hits and hits[0][0] == CACHE and hits[0][2] is True
    # The same question by words alone finds nothing: every word must match.
    os.environ["DEJA_SEMANTIC"] = "0"
    try:
        assert _search(history, "caching credentials for login") == []
    finally:
        del os.environ["DEJA_SEMANTIC"]
    exact = _search(history, "memoized token lookup")
    assert exact[0] == (CACHE, "assistant", False)
    history.close()


def _vector_counts(home: Path) -> tuple[int, int, int]:
    """(vectors, records of embedded roles, vectors whose record is gone)."""
    db = sqlite3.connect(home / "index.sqlite3")
    try:
        vectors = db.execute("SELECT count(*) FROM record_vectors").fetchone()[0]
        roles = ",".join(f"'{r}'" for r in EMBEDDED_ROLES)
        records = db.execute(f"SELECT count(*) FROM records WHERE role IN ({roles})").fetchone()[0]
        orphans = db.execute(
            "SELECT count(*) FROM record_vectors WHERE record_id NOT IN (SELECT id FROM records)"
        ).fetchone()[0]
    finally:
        db.close()
    return int(vectors), int(records), int(orphans)


def test_vectors_follow_records_through_rewrite_and_forget(tmp_path: Path) -> None:
    root = tmp_path / "store"
    _store(root)
    history = History(home=tmp_path / "home", root=root)
    history.refresh()
    assert _vector_counts(tmp_path / "home") == (6, 6, 0)
    write_session(
        root,
        session_doc(
            DOCKER,
            [
                user("Our container image is huge and deploys are slow."),
                assistant("Moved to a multi-stage Dockerfile on a slim base image."),
                user("Also ignore node_modules."),
            ],
            title="Image size",
        ),
        listed=False,
    )
    history.refresh()
    assert _vector_counts(tmp_path / "home") == (7, 7, 0)
    history.forget_session(CACHE)
    assert _vector_counts(tmp_path / "home") == (5, 5, 0)
    assert all(hit[0] != CACHE for hit in _search(history, "caching credentials for login"))
    history.close()


def test_turned_off_no_vectors_then_on_every_record_gets_one(tmp_path: Path) -> None:
    _store(tmp_path / "store")
    os.environ["DEJA_SEMANTIC"] = "0"
    try:
        history = History(home=tmp_path / "home", root=tmp_path / "store")
        history.refresh()
        db = sqlite3.connect(tmp_path / "home" / "index.sqlite3")
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
        db.close()
        assert "record_vectors" not in tables
        assert _search(history, "caching credentials for login") == []
    finally:
        del os.environ["DEJA_SEMANTIC"]
    history.refresh()  # nothing changed in the store: the vectors are made all the same
    assert _vector_counts(tmp_path / "home") == (6, 6, 0)
    assert _search(history, "caching credentials for login")[0][0] == CACHE
    history.close()


def test_a_bad_setting_is_one_message_naming_it() -> None:
    with pytest.raises(settings.SettingError, match="DEJA_SEMANTIC must be 0"):
        settings.semantic_search({"DEJA_SEMANTIC": "maybe"})


def test_the_cli_labels_hits_found_by_meaning(tmp_path: Path) -> None:
    _store(tmp_path / "store")
    env = deja_env(tmp_path / "store", tmp_path / "home")
    env.pop("DEJA_SEMANTIC", None)
    shown = run_deja(env, "search", "caching credentials for login", "--all")
    assert shown.returncode == 0, shown.stderr
    first = shown.stdout.splitlines()[0]
    assert "Token lookup" in first and MEANING_ONLY in first
    data = json_envelope(
        run_deja(env, "search", "caching credentials for login", "--all", "--json"),
        "search",
    )
    assert data["hits"][0]["session_id"] == CACHE and data["hits"][0]["meaning_only"] is True
    words = json_envelope(run_deja(env, "search", "memoized", "--all", "--json"), "search")
    assert words["hits"][0]["meaning_only"] is False


def test_agents_and_the_editor_are_told_a_hit_came_by_meaning(tmp_path: Path) -> None:
    from deja import render_markdown
    from deja.mcp.tools import hit_block

    _store(tmp_path / "store")
    history = History(home=tmp_path / "home", root=tmp_path / "store")
    history.refresh()
    hit = history.search(SearchQuery("caching credentials for login", scope=Scope()))
    first = hit.hits[0]
    assert first.meaning_only
    assert MEANING_ONLY in "\n".join(hit_block(1, first))
    markdown = render_markdown.search("q", "all", [first], [])
    assert MEANING_ONLY in markdown
    history.close()


def test_a_broken_install_indexes_and_searches_by_words(tmp_path: Path) -> None:
    _store(tmp_path / "store")
    env = deja_env(tmp_path / "store", tmp_path / "home")
    env.pop("DEJA_SEMANTIC", None)
    assert run_deja(env, "index").returncode == 0  # vectors made with the real model
    broken = tmp_path / "broken"
    (broken / "wordllama").mkdir(parents=True)  # the package without its weights
    (broken / "wordllama" / "__init__.py").write_text("")
    env["PYTHONPATH"] = os.pathsep.join([str(broken), env["PYTHONPATH"]])
    write_session(
        tmp_path / "store",
        session_doc(STYLE, [user("Make the buttons blue and round.")], title="Buttons"),
        listed=False,
    )
    indexed = run_deja(env, "index")
    assert indexed.returncode == 0, indexed.stderr
    data = json_envelope(run_deja(env, "search", "memoized", "--all", "--json"), "search")
    assert [hit["session_id"] for hit in data["hits"]] == [CACHE]
    assert data["hits"][0]["meaning_only"] is False
    meaning = json_envelope(
        run_deja(env, "search", "caching credentials for login", "--all", "--json"),
        "search",
    )
    assert meaning["hits"] == []
